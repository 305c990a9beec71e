import { parseRetryAfterMs, pushRetryDelayMs, tokenIsDead } from './push-sender';

const policy = { baseMs: 500, maxMs: 30_000 };

describe('push retry rules', () => {
  it('When Retry-After is seconds or an HTTP date, Then it is read as ms from now; garbage is ignored', () => {
    const now = Date.parse('2026-11-27T22:00:00Z');
    expect(parseRetryAfterMs('120', now)).toBe(120_000);
    expect(parseRetryAfterMs('Fri, 27 Nov 2026 22:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfterMs('Fri, 27 Nov 2026 21:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfterMs('soon', now)).toBeUndefined();
    expect(parseRetryAfterMs(undefined, now)).toBeUndefined();
  });

  it('When retrying, Then the back-off doubles up to its cap, jittered, and never undercuts Retry-After', () => {
    expect(pushRetryDelayMs(1, undefined, policy, () => 1)).toBe(500);
    expect(pushRetryDelayMs(3, undefined, policy, () => 1)).toBe(2_000);
    expect(pushRetryDelayMs(20, undefined, policy, () => 1)).toBe(30_000);
    expect(pushRetryDelayMs(3, undefined, policy, () => 0.25)).toBe(500);
    expect(pushRetryDelayMs(1, 5_000, policy, () => 1)).toBe(5_000);
    expect(pushRetryDelayMs(20, 5_000, policy, () => 1)).toBe(30_000);
  });

  it('When an outcome says the app is gone or the token is bad, Then the token is dead; otherwise it stays', () => {
    expect(tokenIsDead({ outcome: 'unregistered', reason: 'Unregistered', refusedAt: 0 })).toBe(true);
    expect(tokenIsDead({ outcome: 'invalid', reason: 'BadDeviceToken', refusedAt: 0 })).toBe(true);
    expect(tokenIsDead({ outcome: 'retry', reason: 'TooManyRequests' })).toBe(false);
    expect(tokenIsDead({ outcome: 'failed', reason: 'InvalidProviderToken' })).toBe(false);
    expect(tokenIsDead({ outcome: 'sent' })).toBe(false);
  });
});
