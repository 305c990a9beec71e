import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** 256 bits of randomness, URL-safe: refresh, reset and verification tokens. */
export const randomToken = (): string => randomBytes(32).toString('base64url');

/** Tokens are stored as their SHA-256 only: a database leak does not hand out sessions. */
export const sha256 = (value: string): string => createHash('sha256').update(value).digest('base64url');

/** Constant-time string equality (CSRF tokens and the like). */
export function safeEqual(a: string, b: string): boolean {
  // equal-length digests: timingSafeEqual needs equal lengths, and lengths must not leak either
  return timingSafeEqual(Buffer.from(sha256(a)), Buffer.from(sha256(b)));
}
