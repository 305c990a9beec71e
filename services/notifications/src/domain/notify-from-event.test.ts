import { makeEvent } from '@lingua/contracts';
import { notificationFor } from './notify-from-event.use-case';

const subscription = {
  subscriptionId: 'sub-1',
  userId: '11111111-1111-4111-8111-111111111111',
  planId: 'premium_monthly',
  deviceId: null,
  platform: 'android',
  expiresAt: '2026-12-01T00:00:00.000Z',
  autoRenewal: false,
  isTrialPeriod: false,
} as const;

describe('in-app notification of a subscription change', () => {
  it('When a subscription expires, Then its user is told', () => {
    const event = makeEvent('subscription.updated', {
      ...subscription,
      status: 'expired',
      previousStatus: 'active',
      change: 'expired',
      userRole: 'user',
      userSubscriptionStatus: 'inactive',
    });
    expect(notificationFor(event)).toMatchObject({ type: 'subscription', title: 'Subscription expired' });
  });

  it('When a plan change replaces the old purchase, Then no "expired" notice (the new subscription has its own)', () => {
    const event = makeEvent('subscription.updated', {
      ...subscription,
      status: 'expired',
      previousStatus: 'active',
      change: 'replaced',
      // the user keeps premium through the new subscription
      userRole: 'subscriber',
      userSubscriptionStatus: 'active',
    });
    expect(notificationFor(event)).toBeNull();
  });

  it('When subscriptions re-announces the entitlement (a resync), Then no notice: nothing changed for the user', () => {
    const event = makeEvent('subscription.updated', {
      ...subscription,
      status: 'active',
      previousStatus: 'active',
      change: 'entitlement_resync',
      userRole: 'subscriber',
      userSubscriptionStatus: 'active',
      userVersion: 7,
    });
    expect(notificationFor(event)).toBeNull();
  });
});
