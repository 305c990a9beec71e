import { isFromTheFuture, makeEvent, parseEvent } from './event-envelope';

describe('event contracts', () => {
  it('When an event is made, Then it has id, event, version, timestamp and validated data', () => {
    const e = makeEvent(
      'user.created',
      { userId: 'u1', email: 'a@b.co', username: 'ann', authProvider: 'password' },
      { now: new Date('2026-01-01T00:00:00Z') },
    );
    expect(e).toMatchObject({
      event: 'user.created',
      version: 1,
      timestamp: '2026-01-01T00:00:00.000Z',
      data: { userId: 'u1' },
    });
    expect(e.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(parseEvent(JSON.parse(JSON.stringify(e)))).toEqual(e);
  });

  it('When a payload breaks its schema, Then making or parsing it fails', () => {
    expect(() =>
      makeEvent('achievement.unlocked', { userId: 'u1', achievementId: 'a', name: 'n', xp: -1 }),
    ).toThrow();
    const e = makeEvent('user.deleted', { userId: 'u1' });
    expect(() => parseEvent({ ...e, data: {} })).toThrow();
    expect(() => parseEvent({ ...e, event: 'user.exploded' })).toThrow();
  });

  it('When a subscription event names the admin role, Then it is refused (events cannot grant admin)', () => {
    const data = {
      subscriptionId: 's1',
      userId: 'u1',
      deviceId: null,
      planId: 'p',
      status: 'active' as const,
      platform: 'ios' as const,
      expiresAt: '2030-01-01T00:00:00Z',
      autoRenewal: true,
      isTrialPeriod: false,
      userRole: 'subscriber' as const,
      userSubscriptionStatus: 'active' as const,
    };
    const e = makeEvent('subscription.created', data);
    expect(() => parseEvent({ ...e, data: { ...data, userRole: 'admin' } })).toThrow(/userRole/);
  });

  it('When a timestamp is more than the clock skew ahead, Then the event is from the future', () => {
    const now = new Date('2026-01-01T00:00:00Z');
    expect(isFromTheFuture({ timestamp: '2026-01-01T00:04:59Z' }, now)).toBe(false);
    expect(isFromTheFuture({ timestamp: '2026-01-01T00:05:01Z' }, now)).toBe(true);
    expect(isFromTheFuture({ timestamp: '2099-01-01T00:00:00Z' }, now)).toBe(true);
  });
});
