import type { AnyDomainEvent } from '@lingua/contracts';
import type { InAppNotification, NotificationStore } from './in-app-notification';

const SUBSCRIPTION_TEXT: Record<string, { title: string; body: string }> = {
  active: { title: 'Subscription active', body: 'Premium features are unlocked. Enjoy!' },
  cancelled: { title: 'Subscription cancelled', body: 'Your subscription was cancelled.' },
  expired: {
    title: 'Subscription expired',
    body: 'Your subscription has ended. Renew to keep premium features.',
  },
  pending: { title: 'Subscription pending', body: 'We are confirming your purchase with the store.' },
};

/**
 * The in-app notification an event gives its user, or null when it gives none. The id derives from
 * the event id, so a redelivered event notifies once.
 */
export function notificationFor(event: AnyDomainEvent): InAppNotification | null {
  const base = { read: false, readAt: null, createdAt: new Date(event.timestamp) };
  switch (event.event) {
    case 'user.created':
      return {
        ...base,
        id: `welcome:${event.id}`,
        userId: event.data.userId,
        type: 'welcome',
        title: `Welcome, ${event.data.username}!`,
        body: 'Your account is ready. Add your first words and start reviewing.',
        // what the text is made of: another language renders it again when read
        data: { username: event.data.username },
      };
    case 'subscription.created':
    case 'subscription.updated': {
      if (!event.data.userId) return null; // a guest's subscription: no account to notify yet
      // a plan change ends the old purchase ('replaced'); the new one's subscription.created speaks for it.
      // An entitlement resync repeats for identity what the user was already told (ADR 0020).
      if (
        event.event === 'subscription.updated' &&
        ['replaced', 'entitlement_resync'].includes(event.data.change)
      )
        return null;
      const text = SUBSCRIPTION_TEXT[event.data.status] ?? SUBSCRIPTION_TEXT.active!;
      return {
        ...base,
        id: `subscription:${event.id}`,
        userId: event.data.userId,
        type: 'subscription',
        ...text,
        data: {
          subscriptionId: event.data.subscriptionId,
          planId: event.data.planId,
          status: event.data.status,
          expiresAt: event.data.expiresAt,
        },
      };
    }
    case 'achievement.unlocked':
      return {
        ...base,
        id: `achievement:${event.id}`,
        userId: event.data.userId,
        type: 'achievement',
        title: `Achievement unlocked: ${event.data.name}`,
        // the XP is the user's once claimed on the achievements screen, not before
        body: `Claim your ${event.data.xp} XP on the achievements screen.`,
        data: { achievementId: event.data.achievementId, name: event.data.name, xp: event.data.xp },
      };
    default:
      return null;
  }
}

/** Stores the notification an event gives, if any (a deleted account's are erased after the fan-out). */
export async function notifyFromEvent(event: AnyDomainEvent, deps: { notifications: NotificationStore }) {
  const notification = notificationFor(event);
  if (notification) await deps.notifications.upsert(notification);
}

/**
 * The notice an endpoint's owner gets when delivery disables it; one per disabling (the id names the
 * failure episode, so replicas disabling it at the same time notify once).
 */
export function endpointDisabledNotification(
  endpoint: { id: string; ownerId: string; url: string; failingSince: Date | null },
  reason: 'gone' | 'persistent_failure',
  at: Date,
): InAppNotification {
  const since = endpoint.failingSince ?? at;
  return {
    id: `webhook-disabled:${endpoint.id}:${since.getTime()}`,
    userId: endpoint.ownerId,
    type: 'system',
    title: 'Webhook endpoint disabled',
    body:
      reason === 'gone'
        ? `${endpoint.url} answered 410 Gone, so we stopped sending to it. Re-enable it to receive events again.`
        : `${endpoint.url} has been failing since ${since.toISOString()} without a single success, so we ` +
          'stopped sending to it. Fix it, re-enable it, and replay the failed deliveries.',
    data: { endpointId: endpoint.id, reason },
    read: false,
    readAt: null,
    createdAt: at,
  };
}
