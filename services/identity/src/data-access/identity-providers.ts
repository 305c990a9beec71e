import { createHash } from 'node:crypto';
import { createRemoteJWKSet, jwtVerify, type JWTPayload } from 'jose';
import type { Clock } from '@lingua/auth';
import { AppError } from '@lingua/errors';
import type { IdentityProviders, SocialProvider, VerifiedIdentity } from '../domain/ports';

export type { IdentityProviders, VerifiedIdentity };

export interface ProviderSettings {
  jwksUrl: string;
  issuers: string[];
  audiences: string[];
}

/** Apple sends booleans as strings in some flows ("true"/"false"). */
const truthy = (v: unknown) => v === true || v === 'true';
const sha256Hex = (v: string) => createHash('sha256').update(v).digest('hex');

/**
 * Apple and Google ID tokens verified with jose against the provider's JWKS. The key sets are built
 * once (jose caches keys and re-fetches on an unknown kid at most once per cooldown).
 */
export function joseIdentityProviders(
  settings: Record<SocialProvider, ProviderSettings>,
  clock: Clock,
): IdentityProviders {
  const keySets = {
    apple: createRemoteJWKSet(new URL(settings.apple.jwksUrl), { timeoutDuration: 3_000 }),
    google: createRemoteJWKSet(new URL(settings.google.jwksUrl), { timeoutDuration: 3_000 }),
  };
  return {
    async verify(provider, token, options) {
      const s = settings[provider];
      let payload: JWTPayload;
      try {
        ({ payload } = await jwtVerify(token, keySets[provider], {
          issuer: s.issuers,
          audience: s.audiences,
          algorithms: ['RS256'],
          clockTolerance: 30,
          currentDate: clock.now(),
          requiredClaims: ['sub', 'exp', 'iat'],
        }));
      } catch (err) {
        throw new AppError('SOCIAL_LOGIN_ERROR', `${provider} identity token could not be verified`, {
          details: { reason: (err as { code?: string }).code ?? 'ERR_JWT_INVALID' },
          cause: err,
        });
      }
      // checked after the signature: a forged token is reported as such, whatever its nonce
      if (options.nonce === undefined && options.nonceRequired)
        throw new AppError(
          'SOCIAL_LOGIN_ERROR',
          `${provider} sign-in requires the nonce sent to ${provider}`,
          {
            details: { reason: 'nonce_required' },
          },
        );
      if (options.nonce !== undefined) {
        // iOS sends SHA-256(rawNonce) to Apple and the raw nonce to us; Google echoes the nonce as sent
        const expected = provider === 'apple' ? sha256Hex(options.nonce) : options.nonce;
        if (payload.nonce !== expected)
          throw new AppError('SOCIAL_LOGIN_ERROR', `${provider} identity token nonce does not match`, {
            details: { reason: 'nonce_mismatch' },
          });
      }
      const email = typeof payload.email === 'string' ? payload.email.toLowerCase() : undefined;
      return {
        provider,
        subject: String(payload.sub),
        email,
        emailVerified: email !== undefined && truthy(payload.email_verified),
      };
    },
  };
}
