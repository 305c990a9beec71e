import { importPKCS8, SignJWT } from 'jose';
import { parseRetryAfterMs, type PushMessage, type PushOutcome } from '../../domain/push-sender';

/** The fields of a Google service-account key file (JSON) that FCM needs. */
export interface ServiceAccount {
  project_id: string;
  client_email: string;
  private_key: string;
  token_uri?: string;
}

export interface FcmSettings {
  /** https://fcm.googleapis.com */
  url: string;
  /** The OAuth2 token endpoint; the key file's token_uri (https://oauth2.googleapis.com/token) if unset. */
  tokenUrl?: string | undefined;
  serviceAccount: ServiceAccount;
  timeoutMs: number;
  now?: () => number;
}

const SCOPE = 'https://www.googleapis.com/auth/firebase.messaging';
/** An access token is renewed this long before Google's expiry, so none expires in flight. */
const TOKEN_MARGIN_MS = 5 * 60_000;

/**
 * FCM HTTP v1, one attempt per call. The access token comes from the service account by the OAuth2
 * JWT-bearer grant (RFC 7523) at the configured token URL, is shared by all sends (one fetch at a
 * time) and renewed before it expires or when FCM answers 401.
 */
export function fcmSender(settings: FcmSettings) {
  const now = settings.now ?? Date.now;
  const account = settings.serviceAccount;
  const tokenUrl = settings.tokenUrl ?? account.token_uri ?? 'https://oauth2.googleapis.com/token';
  const sendUrl = `${settings.url.replace(/\/$/, '')}/v1/projects/${encodeURIComponent(account.project_id)}/messages:send`;
  const keyPromise = importPKCS8(account.private_key, 'RS256');
  let access: { value: Promise<{ token: string; expiresAt: number }> } | undefined;

  async function fetchAccessToken(): Promise<{ token: string; expiresAt: number }> {
    const iat = Math.floor(now() / 1000);
    const assertion = await new SignJWT({ scope: SCOPE })
      .setProtectedHeader({ alg: 'RS256', typ: 'JWT' })
      .setIssuer(account.client_email)
      .setAudience(tokenUrl)
      .setIssuedAt(iat)
      .setExpirationTime(iat + 3600)
      .sign(await keyPromise);
    const res = await fetch(tokenUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion }),
      signal: AbortSignal.timeout(settings.timeoutMs),
    });
    if (!res.ok) throw new Error(`token endpoint answered ${res.status}`);
    const body = (await res.json()) as { access_token?: string; expires_in?: number };
    if (!body.access_token) throw new Error('token endpoint answered no access_token');
    return { token: body.access_token, expiresAt: now() + (body.expires_in ?? 3600) * 1000 };
  }

  function refresh() {
    const value = fetchAccessToken();
    const entry = { value };
    access = entry;
    value.catch(() => access === entry && (access = undefined)); // a failed fetch is not kept
    return entry;
  }

  async function accessToken(): Promise<string> {
    const entry = access;
    const current = entry && (await entry.value.catch(() => undefined));
    if (current && current.expiresAt - TOKEN_MARGIN_MS > now()) return current.token;
    // the first caller to find it missing or stale fetches; the others wait for that same fetch
    const next = access === entry || !access ? refresh() : access;
    return (await next.value).token;
  }

  return {
    async send(message: PushMessage): Promise<PushOutcome> {
      let res: Response;
      let text: string;
      try {
        const token = await accessToken();
        res = await fetch(sendUrl, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({
            message: {
              token: message.token,
              notification: { title: message.title, body: message.body },
              ...(message.data && { data: message.data }),
              android: {
                priority: 'high',
                ...(message.collapseKey && { collapse_key: message.collapseKey }),
              },
            },
          }),
          signal: AbortSignal.timeout(settings.timeoutMs),
        });
        text = await res.text();
      } catch (err) {
        return { outcome: 'retry', reason: `network: ${(err as Error).message}` };
      }
      if (res.ok) return { outcome: 'sent' };
      const reason = readErrorCode(text) ?? `HTTP ${res.status}`;
      const retryAfterMs = parseRetryAfterMs(res.headers.get('retry-after'), now());
      if (reason === 'UNREGISTERED' || res.status === 404)
        return { outcome: 'unregistered', reason, refusedAt: now() };
      if (reason === 'INVALID_ARGUMENT' || reason === 'SENDER_ID_MISMATCH')
        return { outcome: 'invalid', reason, refusedAt: now() };
      if (res.status === 401) {
        access = undefined; // fetched anew for the retry
        return { outcome: 'retry', reason, retryAfterMs: 0 };
      }
      if (res.status === 429 || res.status >= 500) return { outcome: 'retry', reason, retryAfterMs };
      return { outcome: 'failed', reason };
    },
    close() {},
  };
}

/** FCM's error code: details[].errorCode (UNREGISTERED, …), else error.status. */
function readErrorCode(body: string): string | undefined {
  try {
    const error = (JSON.parse(body) as { error?: { status?: string; details?: { errorCode?: string }[] } })
      .error;
    return error?.details?.find((d) => d.errorCode)?.errorCode ?? error?.status;
  } catch {
    return undefined;
  }
}
