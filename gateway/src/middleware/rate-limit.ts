import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { AppError } from '@lingua/errors';
import type { RedisClient } from '@lingua/redis';
import { type BucketName, bucketSpecs, type RateLimits } from '../domain/rate-plans';

export interface RateState {
  limit: number;
  remaining: number;
  resetAt: Date;
}

/**
 * One Redis limiter per bucket, shared by every gateway replica (atomic INCR + TTL in Redis).
 * When Redis is down, each replica falls back to an in-memory limiter with the same budget
 * (insurance) rather than refusing all traffic or letting everything through.
 */
export function createRateLimiters(redis: RedisClient, limits: RateLimits, prefix: string) {
  const specs = bucketSpecs(limits);
  const limiters = Object.fromEntries(
    (Object.keys(specs) as BucketName[]).map((name) => {
      const { points, durationSeconds: duration } = specs[name];
      return [
        name,
        new RateLimiterRedis({
          storeClient: redis,
          useRedisPackage: true,
          keyPrefix: `${prefix}:${name}`,
          points,
          duration,
          rejectIfRedisNotReady: true,
          insuranceLimiter: new RateLimiterMemory({ points, duration, keyPrefix: `${prefix}:${name}` }),
        }),
      ];
    }),
  ) as Record<BucketName, RateLimiterRedis>;

  const state = (bucket: BucketName, r: RateLimiterRes): RateState => ({
    limit: specs[bucket].points,
    remaining: r.remainingPoints,
    resetAt: new Date(Date.now() + Math.max(0, r.msBeforeNext)),
  });

  return {
    /** Takes one point; resolves with the state, or `exceeded` when the budget is spent. */
    async consume(bucket: BucketName, key: string): Promise<RateState & { exceeded: boolean }> {
      try {
        return { ...state(bucket, await limiters[bucket].consume(key)), exceeded: false };
      } catch (rejection) {
        if (rejection instanceof RateLimiterRes) return { ...state(bucket, rejection), exceeded: true };
        throw rejection;
      }
    },
  };
}
export type RateLimiters = ReturnType<typeof createRateLimiters>;

/** IETF RateLimit header fields (draft 7 style) on every limited response; returns the seconds to reset. */
export function setRateHeaders(
  res: { setHeader(name: string, value: string): unknown },
  s: RateState,
  windowSeconds: number,
): number {
  const reset = Math.max(0, Math.ceil((s.resetAt.getTime() - Date.now()) / 1000));
  res.setHeader('RateLimit-Limit', String(s.limit));
  res.setHeader('RateLimit-Remaining', String(s.remaining));
  res.setHeader('RateLimit-Reset', String(reset));
  res.setHeader('RateLimit-Policy', `${s.limit};w=${windowSeconds}`);
  return reset;
}

export const tooManyRequests = (retryAfterSeconds: number, message: string) =>
  new AppError('RATE_LIMITED', message, {
    headers: { 'Retry-After': String(Math.max(1, retryAfterSeconds)) },
    details: { retry_after_seconds: Math.max(1, retryAfterSeconds) },
  });
