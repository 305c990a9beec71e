import { z } from 'zod';
import { planById } from './catalogue';
import { type Caller, ownerOf } from './owner';
import type { SubscriptionsContext } from './ports';
import { DAY_MS } from './subscription';

export const HistoryInput = z
  .object({
    startDate: z.coerce.date().optional(),
    endDate: z.coerce.date().optional(),
    status: z.enum(['active', 'expired', 'cancelled', 'pending']).optional(),
    page: z.coerce.number().int().min(1).max(10_000).default(1),
    limit: z.coerce.number().int().min(1).max(100).default(20),
  })
  .refine((q) => !q.startDate || !q.endDate || q.startDate <= q.endDate, {
    path: ['end_date'],
    message: 'end_date must not be before start_date',
  });

/** A user has few subscriptions; the summary is computed over all that match, at most this many. */
const SUMMARY_CAP = 1_000;

/** GET /history: the caller's subscriptions, newest first, with a summary over the whole filter. */
export async function subscriptionHistory(
  input: z.output<typeof HistoryInput>,
  caller: Caller,
  ctx: SubscriptionsContext,
) {
  const q = input;
  const owner = ownerOf(caller);
  // an end date without a time covers that whole day
  const to =
    q.endDate &&
    new Date(
      q.endDate.getTime() +
        (q.endDate.getUTCHours() === 0 && q.endDate.getUTCMinutes() === 0 ? DAY_MS - 1 : 0),
    );
  const all = await ctx.subscriptions.listFor(
    owner,
    { from: q.startDate, to, status: q.status },
    SUMMARY_CAP,
  );
  // a page past the last is an empty page, as in every other list of the API
  const totalPages = Math.max(1, Math.ceil(all.length / q.limit));
  const page = all.slice((q.page - 1) * q.limit, q.page * q.limit);
  const amount = (s: (typeof all)[number]) => s.payments.reduce((sum, p) => sum + p.amount, 0);
  const currency = all[0]?.pricePaid.currency ?? ctx.catalogue.plans[0]!.pricing.regular_price.currency;
  const lengths = all.map((s) => Math.max(0, s.expiresAt.getTime() - s.activatedAt.getTime()) / DAY_MS);
  return {
    subscription_history: page.map((s) => ({
      subscription_id: s.id,
      plan_name: planById(ctx.catalogue, s.planId)?.name ?? s.planId,
      status: s.status,
      activated_at: s.activatedAt.toISOString(),
      expires_at: s.expiresAt.toISOString(),
      platform: s.platform,
      amount_paid: amount(s),
      currency: s.pricePaid.currency,
      transaction_id: s.latestTransactionId,
    })),
    summary: {
      total_subscriptions: all.length,
      total_amount_paid: all.reduce((sum, s) => sum + amount(s), 0),
      currency,
      average_subscription_length: lengths.length
        ? Math.round(lengths.reduce((a, b) => a + b, 0) / lengths.length)
        : 0,
      most_recent_status: all[0]?.status ?? null,
    },
    pagination: { current_page: q.page, total_pages: totalPages, total_items: all.length },
  };
}
