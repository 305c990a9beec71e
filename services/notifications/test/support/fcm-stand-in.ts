import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { importSPKI, jwtVerify } from 'jose';

export interface FcmScriptedAnswer {
  status: number;
  /** FCM's error code in details[].errorCode (UNREGISTERED, INVALID_ARGUMENT, QUOTA_EXCEEDED, UNAVAILABLE). */
  errorCode?: string;
  retryAfter?: string;
}

export interface FcmRequest {
  token: string;
  accessToken: string;
  message: {
    token: string;
    notification: { title: string; body: string };
    data?: Record<string, string>;
    android?: { collapse_key?: string; priority?: string };
  };
  at: number;
}

const STATUS_NAME: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  404: 'NOT_FOUND',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
};

/**
 * A local FCM HTTP v1 and its OAuth2 token endpoint (one HTTP server): POST /token takes the
 * service account's JWT-bearer assertion, verifies it with the account's public key (issuer, audience
 * = this token URL, scope) and issues an opaque access token; POST
 * /v1/projects/<project>/messages:send accepts only access tokens it issued and not expired (401
 * otherwise), then answers what the test scripted for the device token (200 by default).
 */
export async function startFcmStandIn(options: {
  publicKeyPem: string;
  clientEmail: string;
  projectId: string;
  /** Lifetime of the access tokens it issues. */
  expiresInSeconds?: number;
  delayMs?: number;
}) {
  const publicKey = await importSPKI(options.publicKeyPem, 'RS256');
  const issued = new Map<string, number>(); // access token → expiry (ms)
  const scripts = new Map<string, FcmScriptedAnswer[]>();
  const requests: FcmRequest[] = [];
  let tokenRequests = 0;
  let inFlight = 0;
  let peakInFlight = 0;
  let url = '';

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => void handle(req, res, Buffer.concat(chunks).toString()));
  });

  function json(
    res: http.ServerResponse,
    status: number,
    body: unknown,
    headers: http.OutgoingHttpHeaders = {},
  ) {
    res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
  }

  function fcmError(res: http.ServerResponse, status: number, errorCode?: string, retryAfter?: string) {
    json(
      res,
      status,
      {
        error: {
          code: status,
          status: STATUS_NAME[status] ?? 'UNKNOWN',
          message: errorCode ?? STATUS_NAME[status] ?? 'error',
          details: errorCode
            ? [{ '@type': 'type.googleapis.com/google.firebase.fcm.v1.FcmError', errorCode }]
            : [],
        },
      },
      retryAfter ? { 'retry-after': retryAfter } : {},
    );
  }

  async function handle(req: http.IncomingMessage, res: http.ServerResponse, body: string) {
    if (req.method === 'POST' && req.url === '/token') {
      tokenRequests++;
      const form = new URLSearchParams(body);
      try {
        if (form.get('grant_type') !== 'urn:ietf:params:oauth:grant-type:jwt-bearer')
          throw new Error('grant');
        const { payload } = await jwtVerify(form.get('assertion') ?? '', publicKey, {
          algorithms: ['RS256'],
          issuer: options.clientEmail,
          audience: `${url}/token`,
        });
        if (payload.scope !== 'https://www.googleapis.com/auth/firebase.messaging') throw new Error('scope');
      } catch {
        return json(res, 400, { error: 'invalid_grant' });
      }
      const token = `ya29.standin-${randomBytes(16).toString('hex')}`;
      const expiresIn = options.expiresInSeconds ?? 3600;
      issued.set(token, Date.now() + expiresIn * 1000);
      return json(res, 200, { access_token: token, expires_in: expiresIn, token_type: 'Bearer' });
    }
    const send = /^\/v1\/projects\/([^/]+)\/messages:send$/.exec(req.url ?? '');
    if (req.method !== 'POST' || !send) return fcmError(res, 404);
    inFlight++;
    peakInFlight = Math.max(peakInFlight, inFlight);
    try {
      if (options.delayMs) await sleep(options.delayMs);
      const accessToken = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '';
      const expiry = issued.get(accessToken);
      if (!expiry || expiry < Date.now()) return fcmError(res, 401);
      if (decodeURIComponent(send[1]!) !== options.projectId) return fcmError(res, 403, 'SENDER_ID_MISMATCH');
      const { message } = JSON.parse(body) as { message: FcmRequest['message'] };
      requests.push({ token: message.token, accessToken, message, at: Date.now() });
      const scripted = scripts.get(message.token)?.shift();
      if (!scripted || scripted.status === 200)
        return json(res, 200, {
          name: `projects/${options.projectId}/messages/${randomBytes(8).toString('hex')}`,
        });
      return fcmError(res, scripted.status, scripted.errorCode, scripted.retryAfter);
    } finally {
      inFlight--;
    }
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    tokenUrl: `${url}/token`,
    requests,
    get tokenRequests() {
      return tokenRequests;
    },
    /** Ends every access token issued so far (as if they had expired at Google). */
    revokeAll: () => issued.clear(),
    script: (token: string, ...answers: FcmScriptedAnswer[]) => scripts.set(token, answers),
    get peakInFlight() {
      return peakInFlight;
    },
    resetPeak: () => (peakInFlight = 0),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
