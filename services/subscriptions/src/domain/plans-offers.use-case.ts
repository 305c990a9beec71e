import { z } from 'zod';
import type { Offer } from './catalogue';
import { type Caller } from './owner';
import type { SubscriptionsContext } from './ports';
import { hasAccess } from './subscription';

/** The spec's Offer (the internal `retention` flag is not part of it). */
export const offerView = ({ retention: _retention, ...offer }: Offer) => offer;

async function history(caller: Caller, ctx: SubscriptionsContext) {
  const [byUser, byDevice] = await Promise.all([
    caller.userId ? ctx.subscriptions.exists({ userId: caller.userId }) : false,
    caller.deviceId ? ctx.subscriptions.exists({ deviceId: caller.deviceId }) : false,
  ]);
  return { byUser, byDevice };
}

/** GET /plans: the catalogue and where the caller stands. */
export async function listPlans(caller: Caller, ctx: SubscriptionsContext) {
  const now = ctx.clock.now();
  const known = caller.userId || caller.deviceId;
  const sub = known
    ? await ctx.subscriptions.latestFor(
        caller.userId ? { userId: caller.userId } : { deviceId: caller.deviceId },
        now,
      )
    : undefined;
  const h = await history(caller, ctx);
  return {
    available_plans: ctx.catalogue.plans.map(({ billing_period_days: _days, ...plan }) => plan),
    current_user_status: {
      is_subscribed: hasAccess(sub, now),
      user_type: caller.userId ? 'registered' : 'guest',
      device_id: caller.deviceId ?? '',
      // one trial per account and per device
      eligible_for_trial:
        !h.byUser && !h.byDevice && ctx.catalogue.plans.some((p) => p.trial_period.available),
      subscription_triggers: ctx.catalogue.subscription_triggers,
    },
  };
}

export const OffersInput = z.object({
  region: z
    .string()
    .regex(/^[A-Za-z]{2}$/)
    .optional(),
});

/** Why an offer is not open to the caller, or undefined when it is (pure). */
export function offerIneligibility(
  offer: Offer,
  facts: { hadSubscription: boolean; deviceUsed: boolean; region: string | undefined },
): string | undefined {
  if (offer.eligibility.new_users_only && facts.hadSubscription) return 'new_users_only';
  if (offer.eligibility.device_restriction && facts.deviceUsed) return 'device_already_used_offer';
  const regions = offer.eligibility.geographic_restriction;
  if (regions.length && facts.region && !regions.includes(facts.region.toUpperCase()))
    return 'region_not_eligible';
  return undefined;
}

/** GET /offers: current offers and which of them the caller may take. */
export async function listOffers(
  input: z.output<typeof OffersInput>,
  caller: Caller,
  ctx: SubscriptionsContext,
) {
  const { region } = input;
  const now = ctx.clock.now();
  const offers = ctx.catalogue.offers.filter((o) => !o.retention && new Date(o.valid_until) > now);
  const h = await history(caller, ctx);
  const eligible: string[] = [];
  const ineligible: { offer_id: string; reason: string }[] = [];
  for (const offer of offers) {
    const reason = offerIneligibility(offer, {
      hadSubscription: h.byUser || h.byDevice,
      deviceUsed: h.byDevice,
      region,
    });
    if (reason) ineligible.push({ offer_id: offer.offer_id, reason });
    else eligible.push(offer.offer_id);
  }
  return {
    active_offers: offers.map(offerView),
    user_eligibility: { eligible_offers: eligible, ineligible_offers: ineligible },
  };
}
