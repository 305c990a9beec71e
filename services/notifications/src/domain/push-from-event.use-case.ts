import type { AnyDomainEvent } from '@lingua/contracts';
import { type MessageKey, translate } from '@lingua/http';
import type { PushSender } from './push-sender';
import { languageOf, pushToDevices, type UserReach } from './user-reach';

/** Store changes that ask the user to act: the renewal's payment failed (grace period, on hold). */
const RENEWAL_FAILED = new Set(['apple_did_fail_to_renew', 'google_on_hold', 'google_in_grace_period']);

interface EventPush {
  userId: string;
  /** The catalogue texts `<key>.title` and `<key>.body`. */
  key: string;
  params: Record<string, string | number>;
  /** One per kind on the phone: a newer one replaces the older. */
  collapseKey: string;
}

/**
 * The push an event gives its user, or null: an unlocked achievement, and the subscription changes
 * the user must act on (renewal failed, expired). The other events are in-app only.
 */
export function pushFor(event: AnyDomainEvent): EventPush | null {
  switch (event.event) {
    case 'achievement.unlocked':
      return {
        userId: event.data.userId,
        key: 'notification.achievement',
        params: { name: event.data.name, xp: event.data.xp },
        collapseKey: 'achievement',
      };
    case 'subscription.updated': {
      if (!event.data.userId) return null;
      const key =
        event.data.status === 'expired' && event.data.previousStatus !== 'expired'
          ? 'notification.subscription.expired'
          : RENEWAL_FAILED.has(event.data.change)
            ? 'notification.subscription.renewal_failed'
            : null;
      return key && { userId: event.data.userId, key, params: {}, collapseKey: 'subscription' };
    }
    default:
      return null;
  }
}

/**
 * Pushes what the event gives, in the user's language, when the user has push on (identity's
 * setting, read now: a user who turned it off gets nothing). Runs after the event's other work, so
 * a retried event repeats the push only when the push itself failed; a repeat replaces the first on
 * the phone (the collapse key).
 */
export async function pushFromEvent(
  event: AnyDomainEvent,
  deps: { users: UserReach; push: PushSender },
): Promise<boolean> {
  const push = pushFor(event);
  if (!push) return false;
  const reach = await deps.users.reach(push.userId);
  if (!reach.found || !reach.pushNotifications || reach.devices.length === 0) return false;
  const language = languageOf(reach);
  const text = (part: 'title' | 'body') =>
    translate(`${push.key}.${part}` as MessageKey, push.params, language);
  return pushToDevices(
    push.userId,
    reach,
    {
      title: text('title'),
      body: text('body'),
      collapseKey: push.collapseKey,
      data: { type: push.collapseKey, eventId: event.id },
    },
    deps,
  );
}
