import { timingSafeEqual } from 'node:crypto';
import { OAuth2Client } from 'google-auth-library';
import { AppError } from '@lingua/errors';

export interface GooglePushAuthSettings {
  sharedSecret?: string | undefined;
  audience?: string | undefined;
  serviceAccountEmail?: string | undefined;
  certsUrl: string;
  timeoutMs: number;
}

const CERT_CACHE_MS = 60 * 60 * 1000;
const ISSUERS = ['accounts.google.com', 'https://accounts.google.com'];

/**
 * Authenticates a Pub/Sub push of a real-time developer notification: either the shared secret
 * carried in the push endpoint URL (`?token=`), or the OIDC token Pub/Sub puts in the Authorization
 * header (signature against the configured certificates URL, audience, issuer, signer e-mail).
 */
export function googlePushAuth(settings: GooglePushAuthSettings) {
  const client = new OAuth2Client();
  let certs: { value: Record<string, string>; at: number } | undefined;

  async function currentCerts(): Promise<Record<string, string>> {
    if (certs && Date.now() - certs.at < CERT_CACHE_MS) return certs.value;
    const res = await fetch(settings.certsUrl, { signal: AbortSignal.timeout(settings.timeoutMs) });
    if (!res.ok) throw new AppError('SERVICE_UNAVAILABLE', 'Push certificates unavailable');
    certs = { value: (await res.json()) as Record<string, string>, at: Date.now() };
    return certs.value;
  }

  return {
    configured: !!(settings.sharedSecret || settings.audience),
    async verify(input: {
      queryToken?: string | undefined;
      authorization?: string | undefined;
    }): Promise<void> {
      if (settings.sharedSecret && input.queryToken) {
        const a = Buffer.from(input.queryToken);
        const b = Buffer.from(settings.sharedSecret);
        if (a.length === b.length && timingSafeEqual(a, b)) return;
        throw new AppError('UNAUTHORIZED', 'Push authentication failed');
      }
      if (settings.audience) {
        const token = /^Bearer\s+(\S+)$/i.exec(input.authorization ?? '')?.[1];
        if (!token) throw new AppError('UNAUTHORIZED', 'Push authentication required');
        let payload;
        try {
          const ticket = await client.verifySignedJwtWithCertsAsync(
            token,
            await currentCerts(),
            settings.audience,
            ISSUERS,
          );
          payload = ticket.getPayload();
        } catch (err) {
          if (err instanceof AppError) throw err;
          throw new AppError('UNAUTHORIZED', 'Push authentication failed', { cause: err as Error });
        }
        if (
          settings.serviceAccountEmail &&
          (payload?.email !== settings.serviceAccountEmail || payload.email_verified !== true)
        )
          throw new AppError('UNAUTHORIZED', 'Push was not sent by the configured service account');
        return;
      }
      throw new AppError('UNAUTHORIZED', 'Push authentication required');
    },
  };
}
export type GooglePushAuth = ReturnType<typeof googlePushAuth>;
