import { circuitCooldownMs, MAX_ATTEMPTS, RETRY_DELAYS_MS, retryAfterMs, retryDelayMs } from './retry-policy';

describe('retry policy', () => {
  it('When attempts fail, Then the delays follow the schedule (5 s … 10 h) and stop after the last attempt', () => {
    const mid = () => 0.5;
    expect(Array.from({ length: MAX_ATTEMPTS }, (_, i) => retryDelayMs(i + 1, mid))).toEqual([
      ...RETRY_DELAYS_MS,
      null,
    ]);
    expect(MAX_ATTEMPTS).toBe(8);
  });

  it('When jitter is drawn, Then a delay stays within ±10 % of the schedule', () => {
    expect(retryDelayMs(1, () => 0)).toBe(4_500);
    expect(retryDelayMs(1, () => 0.999999)).toBeLessThanOrEqual(5_500);
    expect(retryDelayMs(2, () => 0)).toBe(270_000);
  });

  it('When the circuit keeps failing, Then its cool-down doubles from 30 s up to an hour', () => {
    expect([5, 6, 7].map(circuitCooldownMs)).toEqual([30_000, 60_000, 120_000]);
    expect(circuitCooldownMs(50)).toBe(3_600_000);
  });

  it('When the receiver sends Retry-After, Then seconds and dates are read and capped at 24 h', () => {
    const now = new Date('2026-01-01T00:00:00Z');
    expect(retryAfterMs('120', now)).toBe(120_000);
    expect(retryAfterMs('Thu, 01 Jan 2026 00:01:00 GMT', now)).toBe(60_000);
    expect(retryAfterMs('999999', now)).toBe(24 * 3_600_000);
    expect(retryAfterMs('soon', now)).toBeUndefined();
    expect(retryAfterMs(undefined, now)).toBeUndefined();
  });
});
