import { createSecretKey, type KeyObject, randomUUID } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { z } from 'zod';
import { AppError } from '@lingua/errors';
import { type Clock, systemClock } from './clock';

/**
 * Used only when NODE_ENV is not production, so `npm start` works with no setup; identity and the
 * gateway refuse to start in production without their own JWT_SECRET.
 */
export const DEV_JWT_SECRET = 'lingua-local-development-secret-do-not-use-in-production';

/** Access token lifetime of the spec: 1 hour. */
export const ACCESS_TOKEN_TTL_SECONDS = 3600;

/** Who issues the access tokens (`iss`) and for whom (`aud`) when nothing is configured. */
export const DEFAULT_ACCESS_TOKEN_ISSUER = 'lingua-identity';
export const DEFAULT_ACCESS_TOKEN_AUDIENCE = 'lingua-api';

/** The `iss` and `aud` every access token carries and every verifier requires. */
export interface AccessTokenParties {
  issuer: string;
  audience: string;
}

/**
 * JWT_ISSUER and JWT_AUDIENCE: read by identity (signs) and the gateway (verifies), like JWT_SECRET.
 * Both sides must agree; the defaults do, so `npm start` needs neither.
 */
export const accessTokenPartiesEnv = z
  .object({
    /** `iss` of the client access tokens. */
    JWT_ISSUER: z.string().trim().min(1).max(200).default(DEFAULT_ACCESS_TOKEN_ISSUER),
    /** `aud` of the client access tokens. */
    JWT_AUDIENCE: z.string().trim().min(1).max(200).default(DEFAULT_ACCESS_TOKEN_AUDIENCE),
  })
  .transform((c) => ({ accessTokenParties: { issuer: c.JWT_ISSUER, audience: c.JWT_AUDIENCE } }));

/**
 * The claims of the spec's access token plus `jti`, `iss` and `aud` (RFC 7519), nothing more. The jti
 * makes each token unique (two sign-ins in the same second would otherwise be byte-identical) and is
 * what revocation keys on. `iss` and `aud` bind the token to this issuer and this API, so a token
 * some other system signed with a shared or leaked key is not one of ours. A token without them
 * (issued before they existed) is refused as invalid: the client refreshes.
 */
export const AccessClaims = z
  .object({
    jti: z.string().min(1).max(64),
    iss: z.string().min(1),
    aud: z.string().min(1),
    sub: z.string().min(1),
    email: z.string(),
    username: z.string(),
    role: z.enum(['user', 'subscriber', 'admin']),
    subscription_status: z.enum(['active', 'inactive', 'trial']),
    iat: z.number().int(),
    exp: z.number().int(),
  })
  .strict();
export type AccessClaims = z.infer<typeof AccessClaims>;
export type AccessTokenInput = Omit<AccessClaims, 'jti' | 'iss' | 'aud' | 'iat' | 'exp'>;

export interface AccessTokens {
  sign(
    input: AccessTokenInput,
    ttlSeconds?: number,
  ): { token: string; expiresIn: number; claims: AccessClaims };
  /** Throws AppError TOKEN_EXPIRED or TOKEN_INVALID; only HS256, with this issuer and audience, is accepted. */
  verify(token: string): AccessClaims;
}

/**
 * HS256 access tokens. The secret becomes a KeyObject once: with a plain string, jsonwebtoken 9
 * re-parses it on every verify (measured here: ~365 µs per verify against ~7 µs). `parties`: the
 * `iss` and `aud` signed into every token and required on verify (accessTokenPartiesEnv).
 */
export function createAccessTokens(
  secret: string,
  clock: Clock = systemClock,
  parties: AccessTokenParties = {
    issuer: DEFAULT_ACCESS_TOKEN_ISSUER,
    audience: DEFAULT_ACCESS_TOKEN_AUDIENCE,
  },
): AccessTokens {
  if (secret.length < 32) throw new Error('JWT secret must be at least 32 characters');
  const { issuer, audience } = parties;
  const key: KeyObject = createSecretKey(Buffer.from(secret, 'utf8'));
  const nowSeconds = () => Math.floor(clock.now().getTime() / 1000);

  return {
    sign(input, ttlSeconds = ACCESS_TOKEN_TTL_SECONDS) {
      const iat = nowSeconds();
      const claims = AccessClaims.parse({
        ...input,
        jti: randomUUID(),
        iss: issuer,
        aud: audience,
        iat,
        exp: iat + ttlSeconds,
      });
      const token = jwt.sign(claims, key, { algorithm: 'HS256', header: { alg: 'HS256', typ: 'JWT' } });
      return { token, expiresIn: ttlSeconds, claims };
    },
    verify(token) {
      let payload: unknown;
      try {
        payload = jwt.verify(token, key, {
          algorithms: ['HS256'],
          clockTimestamp: nowSeconds(),
          issuer,
          audience,
        });
      } catch (err) {
        if (err instanceof jwt.TokenExpiredError)
          throw new AppError('TOKEN_EXPIRED', 'Token has expired', { cause: err });
        throw new AppError('TOKEN_INVALID', 'Token is invalid or malformed', { cause: err });
      }
      const parsed = AccessClaims.safeParse(payload);
      if (!parsed.success) throw new AppError('TOKEN_INVALID', 'Token is invalid or malformed');
      return parsed.data;
    },
  };
}
