import type { EntitlementVersions, SubscriptionsContext } from './ports';

/**
 * user.deleted: the account's subscriptions lose their link to the person (user and device ids),
 * while the purchase records stay for accounting and for store notifications about them. The
 * user's entitlement version goes last (a replay finds no subscriptions and deletes nothing more).
 */
export async function forgetDeletedUser(
  input: { userId: string },
  ctx: Pick<SubscriptionsContext, 'subscriptions' | 'clock'> & {
    entitlementVersions?: Pick<EntitlementVersions, 'forget'>;
  },
): Promise<number> {
  const subs = await ctx.subscriptions.listFor({ userId: input.userId }, {}, 1_000);
  const now = ctx.clock.now();
  for (const sub of subs)
    await ctx.subscriptions.mutate(sub.id, (current) =>
      current.userId === input.userId
        ? {
            next: { ...current, userId: null, deviceId: null, autoRenewal: false, updatedAt: now },
            events: [],
          }
        : undefined,
    );
  await ctx.entitlementVersions?.forget(input.userId);
  return subs.length;
}
