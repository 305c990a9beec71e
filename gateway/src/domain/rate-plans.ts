import type { RateFamily } from './access-policy';
import { type Caller, isPremium } from './caller';

export type BucketName =
  'shared-free' | 'shared-subscriber' | 'catalogue-free' | 'catalogue-premium' | 'api-key' | 'login';

export interface RateLimits {
  sharedFree: number;
  sharedSubscriber: number;
  apiKey: number;
  catalogueFree: number;
  cataloguePremium: number;
  loginPerMinute: number;
}

export interface BucketSpec {
  points: number;
  durationSeconds: number;
}

export const bucketSpecs = (l: RateLimits): Record<BucketName, BucketSpec> => ({
  'shared-free': { points: l.sharedFree, durationSeconds: 3600 },
  'shared-subscriber': { points: l.sharedSubscriber, durationSeconds: 3600 },
  'api-key': { points: l.apiKey, durationSeconds: 3600 },
  'catalogue-free': { points: l.catalogueFree, durationSeconds: 3600 },
  'catalogue-premium': { points: l.cataloguePremium, durationSeconds: 3600 },
  login: { points: l.loginPerMinute, durationSeconds: 60 },
});

/**
 * The hourly budget a request draws from and the key it is counted under. Users are counted by
 * their id (across devices and replicas), guests by client IP, API keys by key (1000/h everywhere).
 */
export function bucketFor(
  family: RateFamily,
  caller: Caller,
): { bucket: BucketName; key: string } | undefined {
  if (family === 'none') return undefined;
  if (caller.kind === 'apiKey') return { bucket: 'api-key', key: `key:${caller.keyId}` };
  const premium = caller.kind === 'user' && isPremium(caller.claims);
  const key = caller.kind === 'user' ? `user:${caller.claims.sub}` : `ip:${caller.ip}`;
  if (family === 'shared') return { bucket: premium ? 'shared-subscriber' : 'shared-free', key };
  return { bucket: premium ? 'catalogue-premium' : 'catalogue-free', key };
}
