import { AppError } from '@lingua/errors';

/** The UTC calendar day of a time, `YYYY-MM-DD`: daily quotas reset at 00:00 UTC. */
export const utcDay = (now: Date) => now.toISOString().slice(0, 10);

export function nextUtcMidnight(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1));
}

/** 429 RATE002 with what a client needs to wait it out: the limit, the reset time, Retry-After. */
export function quotaExceeded(what: string, limit: number, resetAt: Date, now: Date): AppError {
  const retryAfter = Math.max(1, Math.ceil((resetAt.getTime() - now.getTime()) / 1000));
  return new AppError('QUOTA_EXCEEDED', `${what} quota exceeded`, {
    details: { limit, used: limit, resetAt: resetAt.toISOString() },
    headers: { 'Retry-After': String(retryAfter) },
  });
}
