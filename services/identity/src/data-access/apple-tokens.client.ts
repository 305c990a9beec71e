import { createPrivateKey, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { SignJWT } from 'jose';
import type { Clock } from '@lingua/auth';
import type { AppleTokens } from '../domain/ports';

export type { AppleTokens };

export interface AppleTokenSettings {
  /** The Services ID or bundle id the authorization code was issued to. */
  clientId: string;
  teamId: string;
  /** Id of the Sign in with Apple key (Apple Developer → Keys). */
  keyId: string;
  /** The key's .p8 file (PKCS#8 PEM, P-256). */
  privateKeyPem: string;
  tokenUrl: string;
  revokeUrl: string;
  timeoutMs: number;
}

/** What Apple's token endpoint refused or failed with (`invalid_grant`, `invalid_client`, HTTP 5xx…). */
export class AppleTokenError extends Error {
  constructor(
    readonly reason: string,
    readonly status: number | undefined,
  ) {
    super(`Apple token endpoint: ${reason}`);
    this.name = 'AppleTokenError';
  }
}

/** The settings from the environment, or undefined when the Apple key is not configured. */
export function appleTokenSettings(f: {
  APPLE_TEAM_ID?: string | undefined;
  APPLE_KEY_ID?: string | undefined;
  APPLE_PRIVATE_KEY_FILE?: string | undefined;
  APPLE_CLIENT_ID?: string | undefined;
  APPLE_AUDIENCES: string[];
  APPLE_TOKEN_URL: string;
  APPLE_REVOKE_URL: string;
  APPLE_TOKEN_TIMEOUT_MS: number;
}): AppleTokenSettings | undefined {
  if (!f.APPLE_TEAM_ID || !f.APPLE_KEY_ID || !f.APPLE_PRIVATE_KEY_FILE) return undefined;
  return {
    clientId: f.APPLE_CLIENT_ID ?? f.APPLE_AUDIENCES[0]!,
    teamId: f.APPLE_TEAM_ID,
    keyId: f.APPLE_KEY_ID,
    privateKeyPem: readFileSync(f.APPLE_PRIVATE_KEY_FILE, 'utf8'),
    tokenUrl: f.APPLE_TOKEN_URL,
    revokeUrl: f.APPLE_REVOKE_URL,
    timeoutMs: f.APPLE_TOKEN_TIMEOUT_MS,
  };
}

const CLIENT_SECRET_LIFETIME_S = 3600;

/**
 * Apple's REST endpoints for Sign in with Apple (`/auth/token`, `/auth/revoke`). The client secret
 * is a short ES256 JWT signed with the team's key (iss team id, sub client id, aud Apple), made
 * anew when the previous one is about to expire.
 */
export function appleTokenClient(settings: AppleTokenSettings, clock: Clock): AppleTokens {
  const key: KeyObject = createPrivateKey(settings.privateKeyPem);
  let secret: { value: string; renewAt: number } | undefined;

  async function clientSecret(): Promise<string> {
    const now = Math.floor(clock.now().getTime() / 1000);
    if (secret && now < secret.renewAt) return secret.value;
    const value = await new SignJWT({})
      .setProtectedHeader({ alg: 'ES256', kid: settings.keyId })
      .setIssuer(settings.teamId)
      .setSubject(settings.clientId)
      .setAudience('https://appleid.apple.com')
      .setIssuedAt(now)
      .setExpirationTime(now + CLIENT_SECRET_LIFETIME_S)
      .sign(key);
    secret = { value, renewAt: now + CLIENT_SECRET_LIFETIME_S - 300 };
    return value;
  }

  async function post(url: string, form: Record<string, string>): Promise<Record<string, unknown>> {
    let res: Response;
    try {
      res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: new URLSearchParams({
          client_id: settings.clientId,
          client_secret: await clientSecret(),
          ...form,
        }),
        signal: AbortSignal.timeout(settings.timeoutMs),
      });
    } catch (err) {
      throw new AppleTokenError(`unreachable (${(err as Error).message})`, undefined);
    }
    const text = await res.text();
    let body: Record<string, unknown> = {};
    try {
      body = text ? (JSON.parse(text) as Record<string, unknown>) : {};
    } catch {
      /* Apple answers JSON; anything else is reported by status */
    }
    if (!res.ok) throw new AppleTokenError(String(body.error ?? `HTTP ${res.status}`), res.status);
    return body;
  }

  return {
    async exchangeCode(code) {
      const body = await post(settings.tokenUrl, { code, grant_type: 'authorization_code' });
      return { refreshToken: typeof body.refresh_token === 'string' ? body.refresh_token : undefined };
    },
    async revoke(refreshToken) {
      await post(settings.revokeUrl, { token: refreshToken, token_type_hint: 'refresh_token' });
    },
  };
}
