import type { AnyDomainEvent } from '@lingua/contracts';
import type { Clock, EntitlementVersions, Mutation, SubscriptionStore } from './ports';
import {
  type AnnouncedEntitlement,
  entitlingSubscription,
  type Subscription,
  subscriptionUpdated,
  type UserEntitlement,
  userEntitlementOf,
} from './subscription';

/** More subscriptions than one person ever has: all of them are read. */
const ALL = 1_000;
/** Re-announcements one write may trigger at once before leaving the rest to the sweep. */
const MAX_RESYNC_DEPTH = 3;
export const RESYNC_CHANGE = 'entitlement_resync';

type Decision = NonNullable<Mutation>;

const isSubscriptionEvent = (
  e: AnyDomainEvent,
): e is Extract<AnyDomainEvent, { event: 'subscription.created' | 'subscription.updated' }> =>
  e.event === 'subscription.created' || e.event === 'subscription.updated';

/** Still counted as current, though its paid period is over: the expiry sweep has yet to write it. */
const awaitsExpiry = (s: Subscription, now: Date) =>
  s.status !== 'expired' && !s.endedEarly && s.expiresAt <= now;

const sameEntitlement = (a: UserEntitlement, b: UserEntitlement) =>
  a.userRole === b.userRole && a.userSubscriptionStatus === b.userSubscriptionStatus;

/**
 * A user's role is what ALL of the user's subscriptions give (premium while any of them does), and
 * identity follows it by a per-user version, never by which replica's clock stamped an event.
 *
 * Every write of an account's subscription that stages an event goes through here: the user's
 * version is increased first, then all of the user's subscriptions are read, and the events carry
 * the entitlement they give together with that version (`userVersion`); identity applies an event
 * only when its version is higher than the last it applied. Because the version is taken before
 * the read, the write with the highest version read after every write with a lower one began, so
 * it saw them, except when two writes of one user's subscriptions overlap (each may have read
 * before the other wrote). The writer notices it (the counter moved past its version after its
 * write) and announces the user's entitlement again; a writer that died before noticing is caught
 * by `reconcile` in the periodic sweep, which compares the last announced entitlement (kept on the
 * subscription whose event carried it) with the truth.
 */
export function userEntitlements(
  store: SubscriptionStore,
  deps: { versions: EntitlementVersions; clock: Clock },
) {
  /** Completes a decision about an account's subscription: the user's entitlement and version. */
  async function stamp(decision: Decision): Promise<{ decision: Decision; version?: number }> {
    const userId = decision.next.userId;
    if (!userId || !decision.events.some(isSubscriptionEvent)) return { decision };
    const version = await deps.versions.next(userId);
    const others = (await store.listFor({ userId }, {}, ALL)).filter((s) => s.id !== decision.next.id);
    const entitlement = userEntitlementOf([...others, decision.next], deps.clock.now());
    const announced: AnnouncedEntitlement = { ...entitlement, version };
    const events = decision.events.map((e) =>
      isSubscriptionEvent(e) && e.data.userId === userId
        ? ({ ...e, data: { ...e.data, ...entitlement, userVersion: version } } as AnyDomainEvent)
        : e,
    );
    return { decision: { next: { ...decision.next, announced }, events }, version };
  }

  /** After a write at `version`: another writer of the same user overlapped, so announce again. */
  async function afterWrite(userId: string, version: number, depth: number) {
    if (depth >= MAX_RESYNC_DEPTH) return; // the sweep's reconciliation finishes it
    if ((await deps.versions.current(userId)) !== version) await reconcile(userId, depth + 1);
  }

  async function mutate(
    id: string,
    decide: (current: Subscription) => Mutation,
    depth: number,
  ): Promise<Subscription | undefined> {
    let last: { userId: string; version: number } | undefined;
    const result = await store.mutate(id, decide, async (decision) => {
      const stamped = await stamp(decision);
      last =
        stamped.version === undefined
          ? undefined
          : { userId: decision.next.userId!, version: stamped.version };
      return stamped.decision;
    });
    // `last` is the round that was written: a round whose write lost is decided (and stamped) again
    if (last && result?.announced?.version === last.version)
      await afterWrite(last.userId, last.version, depth);
    return result;
  }

  /**
   * Announces the user's entitlement again, with a new version, when the last one announced is not
   * what the user's subscriptions give now (an overlap the writers did not finish correcting).
   */
  async function reconcile(userId: string, depth = 0): Promise<void> {
    const subs = await store.listFor({ userId }, {}, ALL);
    if (subs.length === 0) return;
    const now = deps.clock.now();
    // a paid period just ended: the expiry sweep's write announces it (a resync now would be a second event)
    if (subs.some((s) => awaitsExpiry(s, now))) return;
    const truth = userEntitlementOf(subs, now);
    let top: Subscription | undefined;
    for (const s of subs)
      if (s.announced && (!top?.announced || s.announced.version > top.announced.version)) top = s;
    if (top?.announced && sameEntitlement(top.announced, truth)) return;
    const target = entitlingSubscription(subs, now) ?? top ?? subs[0]!;
    await mutate(
      target.id,
      (current) =>
        current.userId === userId
          ? {
              next: { ...current, updatedAt: now },
              events: [subscriptionUpdated(current, RESYNC_CHANGE, current.status, now)],
            }
          : undefined,
      depth,
    );
  }

  const entitled: SubscriptionStore = {
    ...store,
    async insert(sub, events) {
      const { decision, version } = await stamp({ next: sub, events });
      const inserted = await store.insert(decision.next, decision.events);
      if (inserted && version !== undefined) await afterWrite(sub.userId!, version, 0);
      return inserted;
    },
    mutate: (id, decide) => mutate(id, decide, 0),
  };
  return { store: entitled, reconcile: (userId: string) => reconcile(userId) };
}

/**
 * The sweep's check that identity follows the truth for every user whose subscriptions changed in
 * the last `windowMs` (see userEntitlements); each check is one read unless it must announce.
 */
export async function reconcileRecentEntitlements(
  deps: {
    subscriptions: Pick<SubscriptionStore, 'usersChangedSince'>;
    reconcile: (userId: string) => Promise<void>;
    clock: Clock;
    eventsStaged(): void;
  },
  windowMs: number,
  limit = 200,
): Promise<void> {
  const since = new Date(deps.clock.now().getTime() - windowMs);
  for (const userId of await deps.subscriptions.usersChangedSince(since, limit)) await deps.reconcile(userId);
  deps.eventsStaged();
}
