import { storePurchase } from '../../test/support/purchase.fixture';
import { featureAccess } from './access';
import { offerIneligibility } from './plans-offers.use-case';
import {
  DAY_MS,
  hasAccess,
  impliedUserState,
  type StorePurchase,
  statusFromStore,
  type Subscription,
} from './subscription';

const now = new Date('2026-06-01T00:00:00Z');
const purchase = (o: Partial<StorePurchase> = {}): StorePurchase => storePurchase(now, o);

describe('statusFromStore', () => {
  it('When the store says active with auto-renew, Then active until the store expiry', () => {
    expect(statusFromStore(purchase(), now)).toEqual({ status: 'active', expiresAt: purchase().expiresDate });
  });
  it('When auto-renew is off, Then cancelled with access until expiry', () => {
    expect(statusFromStore(purchase({ autoRenew: false }), now).status).toBe('cancelled');
  });
  it('When refunded, Then cancelled and access ends at the revocation', () => {
    const revokedAt = new Date(now.getTime() + DAY_MS);
    expect(statusFromStore(purchase({ state: 'refunded', revokedAt }), now)).toEqual({
      status: 'cancelled',
      expiresAt: revokedAt,
    });
  });
  it('When the period has passed, Then expired; when pending, Then pending', () => {
    expect(statusFromStore(purchase({ expiresDate: now }), now).status).toBe('expired');
    expect(statusFromStore(purchase({ state: 'pending' }), now).status).toBe('pending');
  });
});

describe('access rules', () => {
  const sub = (o: Partial<Subscription>) =>
    ({
      status: 'active',
      expiresAt: new Date(now.getTime() + DAY_MS),
      isTrialPeriod: false,
      ...o,
    }) as Subscription;
  it('When cancelled but paid up, Then access; when the period ended, Then none', () => {
    expect(hasAccess(sub({ status: 'cancelled' }), now)).toBe(true);
    expect(hasAccess(sub({ expiresAt: now }), now)).toBe(false);
    expect(hasAccess(sub({ status: 'pending' }), now)).toBe(false);
  });
  it('When in a trial, Then identity is told subscriber/trial; after expiry user/inactive', () => {
    expect(impliedUserState(sub({ isTrialPeriod: true }), now)).toEqual({
      userRole: 'subscriber',
      userSubscriptionStatus: 'trial',
    });
    expect(impliedUserState(sub({ status: 'expired', expiresAt: now }), now)).toEqual({
      userRole: 'user',
      userSubscriptionStatus: 'inactive',
    });
  });
  it('When a free user has used the daily dialogues, Then dialogue_training is refused with the reason', () => {
    expect(featureAccess('dialogue_training', 'free', undefined, 2, 3, now)).toEqual({
      hasAccess: true,
      reason: 'free_tier_daily_quota',
    });
    expect(featureAccess('dialogue_training', 'free', undefined, 3, 3, now)).toEqual({
      hasAccess: false,
      reason: 'daily_limit_reached',
    });
    expect(
      featureAccess('advanced_scenarios', 'free', sub({ status: 'expired', expiresAt: now }), 0, 3, now)
        .reason,
    ).toBe('subscription_expired');
    expect(featureAccess('advanced_scenarios', 'admin', undefined, 0, 3, now)).toEqual({
      hasAccess: true,
      reason: 'admin_role',
    });
  });
});

describe('offer eligibility', () => {
  const offer = {
    offer_id: 'o',
    name: '',
    description: '',
    discount_type: 'free_trial' as const,
    trial_duration_days: 7,
    discount_percentage: 0,
    applicable_plans: [],
    eligibility: { new_users_only: true, device_restriction: true, geographic_restriction: ['US'] },
    verification_required: '',
    valid_until: '2030-01-01T00:00:00Z',
    retention: false,
  };
  it('When the rules are broken one by one, Then each gives its reason', () => {
    expect(offerIneligibility(offer, { hadSubscription: true, deviceUsed: false, region: 'US' })).toBe(
      'new_users_only',
    );
    expect(
      offerIneligibility(
        { ...offer, eligibility: { ...offer.eligibility, new_users_only: false } },
        { hadSubscription: true, deviceUsed: true, region: 'US' },
      ),
    ).toBe('device_already_used_offer');
    expect(offerIneligibility(offer, { hadSubscription: false, deviceUsed: false, region: 'br' })).toBe(
      'region_not_eligible',
    );
    expect(
      offerIneligibility(offer, { hadSubscription: false, deviceUsed: false, region: undefined }),
    ).toBeUndefined();
  });
});
