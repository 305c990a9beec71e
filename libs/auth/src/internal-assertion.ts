import { createHmac, createSecretKey, type KeyObject, timingSafeEqual } from 'node:crypto';
import { AppError } from '@lingua/errors';
import { AccessClaims } from './access-tokens';
import { type Clock, systemClock } from './clock';

/**
 * Internal assertions: how the gateway tells a service who called (docs/adr/0001-internal-assertions.md).
 *
 * Only identity (which signs) and the gateway (which verifies at the edge) hold the client-token
 * secret. For every admitted user request the gateway signs the verified claims for the one service
 * the request goes to, with that service's own key (HMAC-SHA256). A service holds only its key, so a
 * compromised pod can forge an assertion for itself, never a client token nor an assertion another
 * service accepts.
 *
 * Wire format: `v1.<base64url(JSON {aud, exp, c})>.<base64url(HMAC(key, "v1." + payload))>`.
 */
export const ASSERTION_HEADER = 'x-lingua-assertion';

/** The services that accept assertions; each has its own key (`<SERVICE>_ASSERTION_KEY`). */
export const ASSERTION_AUDIENCES = [
  'identity',
  'flashcards',
  'subscriptions',
  'ai',
  'notifications',
] as const;
export type AssertionAudience = (typeof ASSERTION_AUDIENCES)[number];

/**
 * How long an assertion is valid after it was signed. It only has to cross one hop (gateway to
 * service, plus clock skew between pods); the request's own deadline is shorter than this.
 */
export const ASSERTION_TTL_SECONDS = 60;

/** Development keys, used only when NODE_ENV is not production (anyone can read them here). */
export const devAssertionKey = (audience: AssertionAudience) =>
  `lingua-local-${audience}-assertion-key-do-not-use-in-production`;

const PREFIX = 'v1.';
const MIN_KEY_LENGTH = 32;

function keyOf(secret: string, name: string): KeyObject {
  if (secret.length < MIN_KEY_LENGTH)
    throw new Error(`${name} must be at least ${MIN_KEY_LENGTH} characters`);
  return createSecretKey(Buffer.from(secret, 'utf8'));
}

const mac = (key: KeyObject, signed: string) => createHmac('sha256', key).update(signed).digest();

export interface AssertionSigner {
  /** The assertion for `audience` carrying `claims` (verified by the caller before). */
  sign(audience: AssertionAudience, claims: Readonly<AccessClaims>): string;
}

/**
 * The gateway's signer. A client sends the same token on every request, so the assertion for a
 * (token, service) pair is reused until half its lifetime has passed: the common request costs a
 * map look-up instead of an HMAC (bench/assertion.js). The oldest entry goes first when full.
 */
export function createAssertionSigner(
  keys: Record<AssertionAudience, string>,
  options: { clock?: Clock; ttlSeconds?: number; maxEntries?: number } = {},
): AssertionSigner {
  const clock = options.clock ?? systemClock;
  const ttl = options.ttlSeconds ?? ASSERTION_TTL_SECONDS;
  const maxEntries = options.maxEntries ?? 20_000;
  const keyObjects = Object.fromEntries(
    ASSERTION_AUDIENCES.map((aud) => [aud, keyOf(keys[aud], `${aud.toUpperCase()}_ASSERTION_KEY`)]),
  ) as Record<AssertionAudience, KeyObject>;
  const issued = new Map<string, { assertion: string; renewAt: number }>();

  return {
    sign(audience, claims) {
      const now = Math.floor(clock.now().getTime() / 1000);
      const cacheKey = audience + claims.jti;
      const hit = issued.get(cacheKey);
      if (hit !== undefined && now < hit.renewAt) return hit.assertion;
      // never outlives the client token it stands for
      const exp = Math.min(now + ttl, claims.exp);
      const payload = Buffer.from(JSON.stringify({ aud: audience, exp, c: claims })).toString('base64url');
      const signed = PREFIX + payload;
      const assertion = `${signed}.${mac(keyObjects[audience], signed).toString('base64url')}`;
      if (hit === undefined && issued.size >= maxEntries) issued.delete(issued.keys().next().value as string);
      issued.set(cacheKey, { assertion, renewAt: now + Math.floor((exp - now) / 2) });
      return assertion;
    },
  };
}

export interface AssertionVerifier {
  /** The caller's claims; throws AppError TOKEN_INVALID (forged, other audience, malformed) or TOKEN_EXPIRED. */
  verify(assertion: string): AccessClaims;
}

const invalid = (why: string) => new AppError('TOKEN_INVALID', `Internal assertion refused: ${why}`);

/**
 * A service's verifier: its own key and audience only. Accepted assertions are remembered until they
 * expire (the gateway reuses them, see above); refusals are never remembered.
 */
export function createAssertionVerifier(
  audience: AssertionAudience,
  secret: string,
  options: { clock?: Clock; maxEntries?: number } = {},
): AssertionVerifier {
  const clock = options.clock ?? systemClock;
  const maxEntries = options.maxEntries ?? 10_000;
  const key = keyOf(secret, `${audience.toUpperCase()}_ASSERTION_KEY`);
  const accepted = new Map<string, { claims: Readonly<AccessClaims>; exp: number }>();

  function check(assertion: string) {
    const dot = assertion.lastIndexOf('.');
    if (!assertion.startsWith(PREFIX) || dot <= PREFIX.length) throw invalid('malformed');
    const signed = assertion.slice(0, dot);
    const given = Buffer.from(assertion.slice(dot + 1), 'base64url');
    const expected = mac(key, signed);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalid('bad signature');
    let body: { aud?: unknown; exp?: unknown; c?: unknown };
    try {
      body = JSON.parse(Buffer.from(signed.slice(PREFIX.length), 'base64url').toString('utf8'));
    } catch {
      throw invalid('malformed');
    }
    // a key shared by mistake between two services still cannot carry one's assertion to the other
    if (body.aud !== audience) throw invalid('issued for another service');
    if (typeof body.exp !== 'number') throw invalid('malformed');
    const claims = AccessClaims.safeParse(body.c);
    if (!claims.success) throw invalid('malformed claims');
    return { claims: Object.freeze(claims.data), exp: body.exp };
  }

  return {
    verify(assertion) {
      const now = Math.floor(clock.now().getTime() / 1000);
      let entry = accepted.get(assertion);
      if (entry === undefined) {
        entry = check(assertion);
        if (accepted.size >= maxEntries) accepted.delete(accepted.keys().next().value as string);
        accepted.set(assertion, entry);
      }
      if (now >= entry.exp) {
        accepted.delete(assertion);
        if (now >= entry.claims.exp) throw new AppError('TOKEN_EXPIRED', 'Token has expired');
        throw invalid('expired');
      }
      return { ...entry.claims };
    },
  };
}
