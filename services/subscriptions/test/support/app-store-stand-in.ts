import { generateKeyPairSync } from 'node:crypto';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { decodeProtectedHeader, jwtVerify } from 'jose';
import type { ApplePki } from './apple-pki';

/** What Apple holds about one subscription: its latest transaction and renewal info (unsigned). */
export interface AppleSubscriptionState {
  /** Apple's status: 1 active, 2 expired, 3 billing retry, 4 grace period, 5 revoked. */
  status: number;
  transaction: Record<string, unknown>;
  renewal: Record<string, unknown>;
}

export interface StatusCall {
  transactionId: string;
  authorized: boolean;
  /** Why the bearer was refused, when it was. */
  refusal?: string;
}

/**
 * A loopback stand-in for the App Store Server API's Get All Subscription Statuses
 * (GET /inApps/v1/subscriptions/{transactionId}). Like Apple it refuses a call whose bearer is not an
 * ES256 JWT signed with the in-app purchase key it generated (header kid, iss = issuer id,
 * aud "appstoreconnect-v1", bid = bundle id, not expired) with 401, and answers the latest transaction
 * and renewal info signed with the test chain (`pki`). `failing` ids get 500, `slow` ones answer after 3 s.
 */
export async function startAppStoreStandIn(pki: ApplePki, o: { bundleId: string; environment?: string }) {
  const issuerId = '57246542-96fe-1a63-e053-0824d011072a';
  const keyId = 'TESTKEY123';
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const dir = mkdtempSync(path.join(tmpdir(), 'asc-key-'));
  const keyFile = path.join(dir, `SubscriptionKey_${keyId}.p8`);
  writeFileSync(keyFile, privateKey.export({ type: 'pkcs8', format: 'pem' }));
  const subscriptions = new Map<string, AppleSubscriptionState>();
  const failing = new Set<string>();
  const slow = new Set<string>();
  const calls: StatusCall[] = [];

  async function refusal(authorization: string | undefined): Promise<string | undefined> {
    const jwt = /^Bearer (.+)$/.exec(authorization ?? '')?.[1];
    if (!jwt) return 'no bearer';
    try {
      const header = decodeProtectedHeader(jwt);
      if (header.alg !== 'ES256' || header.kid !== keyId) return 'alg/kid';
      const { payload } = await jwtVerify(jwt, publicKey, {
        issuer: issuerId,
        audience: 'appstoreconnect-v1',
        algorithms: ['ES256'],
        requiredClaims: ['exp', 'iat'],
      });
      return payload.bid === o.bundleId ? undefined : 'bid';
    } catch (err) {
      return (err as Error).message;
    }
  }
  const send = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };

  const server: Server = createServer(async (req, res) => {
    const m = /^\/inApps\/v1\/subscriptions\/([^/?]+)(\?|$)/.exec(req.url ?? '');
    if (!m || req.method !== 'GET') return send(res, 404, { errorCode: 4040000, errorMessage: 'Not found' });
    const transactionId = decodeURIComponent(m[1]!);
    const why = await refusal(req.headers.authorization);
    calls.push({ transactionId, authorized: !why, ...(why && { refusal: why }) });
    if (why) return send(res, 401, {});
    if (slow.has(transactionId)) await new Promise((r) => setTimeout(r, 3_000).unref());
    if (failing.has(transactionId))
      return send(res, 500, { errorCode: 5000000, errorMessage: 'An unknown error occurred.' });
    const state = subscriptions.get(transactionId);
    if (!state) return send(res, 404, { errorCode: 4040010, errorMessage: 'Transaction id not found.' });
    send(res, 200, {
      environment: o.environment ?? 'Sandbox',
      bundleId: o.bundleId,
      data: [
        {
          subscriptionGroupIdentifier: '21000000',
          lastTransactions: [
            {
              originalTransactionId: transactionId,
              status: state.status,
              signedTransactionInfo: await pki.sign(state.transaction),
              signedRenewalInfo: await pki.sign(state.renewal),
            },
          ],
        },
      ],
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    issuerId,
    keyId,
    keyFile,
    subscriptions,
    failing,
    slow,
    calls,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
export type AppStoreStandIn = Awaited<ReturnType<typeof startAppStoreStandIn>>;
