import { generateKeyPairSync } from 'node:crypto';
import { createServer, type Server } from 'node:http';
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
}

/**
 * A loopback stand-in for the Google Play Developer API (purchases.subscriptionsv2.get), answering
 * like the real one, and checking that each call carries a bearer JWT signed by the service
 * account key the test generated. `slow` tokens answer after `slowMs` (a store that times out).
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
  // Pub/Sub's push signer: its certificates are served at /oauth2/v1/certs like Google's
  const pushKeys = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const pushCerts = { 'push-key-1': pushKeys.publicKey.export({ type: 'spki', format: 'pem' }) as string };

  const server: Server = createServer(async (req, res) => {
    const match =
      /^\/androidpublisher\/v3\/applications\/([^/]+)\/purchases\/subscriptionsv2\/tokens\/([^/?]+)/.exec(
        req.url ?? '',
      );
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.url === '/oauth2/v1/certs') return send(200, pushCerts);
    if (!match || req.method !== 'GET') return send(404, { error: { code: 404, message: 'Not found' } });
    const token = decodeURIComponent(match[2]!);
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '';
    const authorized = await jwtVerify(bearer, verifyKey).then(
      ({ payload }) => payload.iss === clientEmail,
      () => false,
    );
    calls.push({ token, authorized });
    if (!authorized)
      return send(401, { error: { code: 401, message: 'Request had invalid authentication credentials.' } });
    if (decodeURIComponent(match[1]!) !== packageName)
      return send(404, { error: { code: 404, message: 'Package not found' } });
    if (slow.has(token)) await new Promise((r) => setTimeout(r, 3_000).unref());
    if (failing.has(token)) return send(503, { error: { code: 503, message: 'Backend Error' } });
    const p = purchases.get(token);
    if (!p) return send(404, { error: { code: 404, message: 'The purchase token was not found.' } });
    send(200, {
      kind: 'androidpublisher#subscriptionPurchaseV2',
      regionCode: 'US',
      startTime: p.startTime,
      subscriptionState: p.subscriptionState,
      latestOrderId: p.latestOrderId,
      acknowledgementState: 'ACKNOWLEDGEMENT_STATE_ACKNOWLEDGED',
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
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
export type PlayStandIn = Awaited<ReturnType<typeof startPlayStandIn>>;
