import { isIPv6 } from 'node:net';
import ipaddr from 'ipaddr.js';
import type { AddressBudget, RateFamily } from './access-policy';
import { type Caller, isPremium } from './caller';

export type BucketName =
  'shared-free' | 'shared-subscriber' | 'catalogue-free' | 'catalogue-premium' | 'api-key' | AddressBudget;

export interface RateLimits {
  sharedFree: number;
  sharedSubscriber: number;
  apiKey: number;
  catalogueFree: number;
  cataloguePremium: number;
  loginPerMinute: number;
  signupPerHour: number;
  recoveryPerHour: number;
  storePerMinute: number;
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
  signup: { points: l.signupPerHour, durationSeconds: 3600 },
  recovery: { points: l.recoveryPerHour, durationSeconds: 3600 },
  store: { points: l.storePerMinute, durationSeconds: 60 },
});

/**
 * The key a client address is counted under: an IPv4 address as it is (also when it reaches us
 * IPv4-mapped, `::ffff:203.0.113.7`), an IPv6 address by its /64, the smallest network a
 * subscriber is handed: one client holds a whole /64 and could rotate through it otherwise.
 */
export function addressKey(ip: string): string {
  if (!isIPv6(ip)) return `ip:${ip}`;
  const address = ipaddr.IPv6.parse(ip);
  if (address.isIPv4MappedAddress()) return `ip:${address.toIPv4Address().toString()}`;
  const prefix = new ipaddr.IPv6([...address.parts.slice(0, 4), 0, 0, 0, 0]);
  return `ip:${prefix.toString()}/64`;
}

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
  const key = caller.kind === 'user' ? `user:${caller.claims.sub}` : addressKey(caller.ip);
  if (family === 'shared') return { bucket: premium ? 'shared-subscriber' : 'shared-free', key };
  return { bucket: premium ? 'catalogue-premium' : 'catalogue-free', key };
}
