import { generateKeyPairSync } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { importSPKI, jwtVerify, SignJWT } from 'jose';

export interface PlaySubscription {
  subscriptionState: string;
  latestOrderId: string;
  startTime: string;
  expiryTime: string;
  autoRenew: boolean;
  freeTrial?: boolean;
  /** Answered as acknowledgementState: PENDING until an acknowledge call succeeds. */
  acknowledged?: boolean;
  /** The purchase token this one replaced (upgrade, downgrade or re-signup). */
  linkedPurchaseToken?: string;
}

export interface AcknowledgeCall {
  token: string;
  productId: string;
  authorized: boolean;
  /** Answered with 2xx (the purchase is acknowledged from then on). */
  succeeded: boolean;
  /** What `onAcknowledge` saw when the call arrived (e.g. whether the subscription was stored yet). */
  observed?: unknown;
}

/**
 * A loopback stand-in for the Google Play Developer API (purchases.subscriptionsv2.get and
 * purchases.subscriptions.acknowledge), answering like the real one, and checking that each call
 * carries a bearer JWT signed by the service account key the test generated. `slow` tokens answer
 * after 3 s (a store that times out); `failing` tokens get 503 on get, `failingAcknowledge` on acknowledge.
 */
export async function startPlayStandIn(packageName: string) {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const clientEmail = 'play-verifier@lingua-test.iam.gserviceaccount.com';
  const dir = mkdtempSync(path.join(tmpdir(), 'play-sa-'));
  const keyFile = path.join(dir, 'service-account.json');
  writeFileSync(
    keyFile,
    JSON.stringify({
      type: 'service_account',
      client_email: clientEmail,
      private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }),
      private_key_id: 'test-key',
    }),
  );
  const verifyKey = await importSPKI(publicKey.export({ type: 'spki', format: 'pem' }) as string, 'RS256');
  const purchases = new Map<string, PlaySubscription & { productId: string }>();
  const slow = new Set<string>();
  const failing = new Set<string>();
  const calls: { token: string; authorized: boolean }[] = [];
  const failingAcknowledge = new Set<string>();
  const acknowledgements: AcknowledgeCall[] = [];
  const hooks: { onAcknowledge?: (token: string) => Promise<unknown> } = {};
  // Pub/Sub's push signer: its certificates are served at /oauth2/v1/certs like Google's
  const pushKeys = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const pushCerts = { 'push-key-1': pushKeys.publicKey.export({ type: 'spki', format: 'pem' }) as string };

  const isAuthorized = (authorization: string | undefined) =>
    jwtVerify(/^Bearer (.+)$/.exec(authorization ?? '')?.[1] ?? '', verifyKey).then(
      ({ payload }) => payload.iss === clientEmail,
      () => false,
    );
  const send = (res: ServerResponse, status: number, body?: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(body === undefined ? '' : JSON.stringify(body));
  };

  /** POST …/purchases/subscriptions/{productId}/tokens/{token}:acknowledge (empty 200 like Google's). */
  async function acknowledge(req: IncomingMessage, res: ServerResponse, m: RegExpExecArray) {
    const [pkg, productId, token] = [m[1]!, m[2]!, m[3]!].map(decodeURIComponent) as [string, string, string];
    await new Promise((r) => req.on('end', r).resume()); // drain the (optional) request body
    const observed = await hooks.onAcknowledge?.(token);
    const call: AcknowledgeCall = {
      token,
      productId,
      authorized: await isAuthorized(req.headers.authorization),
      succeeded: false,
      observed,
    };
    acknowledgements.push(call);
    if (!call.authorized)
      return send(res, 401, {
        error: { code: 401, message: 'Request had invalid authentication credentials.' },
      });
    if (pkg !== packageName) return send(res, 404, { error: { code: 404, message: 'Package not found' } });
    if (failingAcknowledge.has(token))
      return send(res, 503, { error: { code: 503, message: 'Backend Error' } });
    const p = purchases.get(token);
    if (!p || p.productId !== productId)
      return send(res, 404, { error: { code: 404, message: 'The purchase token was not found.' } });
    // a purchase whose payment is still pending cannot be acknowledged
    if (p.subscriptionState === 'SUBSCRIPTION_STATE_PENDING')
      return send(res, 400, { error: { code: 400, message: 'The purchase is not in a valid state.' } });
    p.acknowledged = true;
    call.succeeded = true;
    send(res, 200);
  }

  const server: Server = createServer(async (req, res) => {
    const ack =
      /^\/androidpublisher\/v3\/applications\/([^/]+)\/purchases\/subscriptions\/([^/]+)\/tokens\/([^/?:]+):acknowledge(\?|$)/.exec(
        req.url ?? '',
      );
    if (ack && req.method === 'POST') return acknowledge(req, res, ack);
    const match =
      /^\/androidpublisher\/v3\/applications\/([^/]+)\/purchases\/subscriptionsv2\/tokens\/([^/?]+)/.exec(
        req.url ?? '',
      );
    if (req.url === '/oauth2/v1/certs') return send(res, 200, pushCerts);
    if (!match || req.method !== 'GET') return send(res, 404, { error: { code: 404, message: 'Not found' } });
    const token = decodeURIComponent(match[2]!);
    const authorized = await isAuthorized(req.headers.authorization);
    calls.push({ token, authorized });
    if (!authorized)
      return send(res, 401, {
        error: { code: 401, message: 'Request had invalid authentication credentials.' },
      });
    if (decodeURIComponent(match[1]!) !== packageName)
      return send(res, 404, { error: { code: 404, message: 'Package not found' } });
    if (slow.has(token)) await new Promise((r) => setTimeout(r, 3_000).unref());
    if (failing.has(token)) return send(res, 503, { error: { code: 503, message: 'Backend Error' } });
    const p = purchases.get(token);
    if (!p) return send(res, 404, { error: { code: 404, message: 'The purchase token was not found.' } });
    send(res, 200, {
      kind: 'androidpublisher#subscriptionPurchaseV2',
      regionCode: 'US',
      startTime: p.startTime,
      subscriptionState: p.subscriptionState,
      latestOrderId: p.latestOrderId,
      ...(p.linkedPurchaseToken && { linkedPurchaseToken: p.linkedPurchaseToken }),
      acknowledgementState: p.acknowledged
        ? 'ACKNOWLEDGEMENT_STATE_ACKNOWLEDGED'
        : 'ACKNOWLEDGEMENT_STATE_PENDING',
      lineItems: [
        {
          productId: p.productId,
          expiryTime: p.expiryTime,
          autoRenewingPlan: { autoRenewEnabled: p.autoRenew },
          offerDetails: { basePlanId: 'monthly' },
          ...(p.freeTrial && { offerPhase: { freeTrial: {} } }),
        },
      ],
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  return {
    url,
    certsUrl: `${url}oauth2/v1/certs`,
    /** An OIDC token as Pub/Sub push sends it (RS256, kid, Google issuer). */
    pushToken: (
      claims: { aud: string; email: string; email_verified?: boolean; iss?: string },
      key = pushKeys.privateKey,
    ) =>
      new SignJWT({ email: claims.email, email_verified: claims.email_verified ?? true })
        .setProtectedHeader({ alg: 'RS256', kid: 'push-key-1', typ: 'JWT' })
        .setIssuer(claims.iss ?? 'https://accounts.google.com')
        .setAudience(claims.aud)
        .setSubject('1234567890')
        .setIssuedAt()
        .setExpirationTime('1h')
        .sign(key),
    otherKey: generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey,
    keyFile,
    purchases,
    slow,
    failing,
    calls,
    failingAcknowledge,
    acknowledgements,
    /** Runs when an acknowledge call arrives; its result is recorded as the call's `observed`. */
    set onAcknowledge(hook: ((token: string) => Promise<unknown>) | undefined) {
      hooks.onAcknowledge = hook;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
export type PlayStandIn = Awaited<ReturnType<typeof startPlayStandIn>>;
