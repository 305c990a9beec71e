import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { jwtVerify } from 'jose';

export const APPLE_TEAM = 'TEAM123456';
export const APPLE_KEY_ID = 'KEY1234567';

/**
 * A loopback stand-in for Apple's /auth/token and /auth/revoke. It holds the public half of the
 * team's P-256 key (the private half goes to the service as a .p8 file) and checks each call's
 * client secret as Apple does: ES256, the key id, issuer = team, subject = client id, audience Apple.
 */
export async function startAppleTokenStandIn(clientId: string) {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const dir = mkdtempSync(path.join(tmpdir(), 'apple-key-'));
  const keyFile = path.join(dir, `AuthKey_${APPLE_KEY_ID}.p8`);
  writeFileSync(keyFile, privateKey.export({ type: 'pkcs8', format: 'pem' }));
  const validCodes = new Set<string>();
  const exchanged: string[] = [];
  const revoked: string[] = [];
  let failNext: number | undefined;

  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
    const answer = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (failNext) {
      const status = failNext;
      failNext = undefined;
      return answer(status, { error: 'server_error' });
    }
    try {
      const { protectedHeader } = await jwtVerify(form.get('client_secret') ?? '', publicKey, {
        algorithms: ['ES256'],
        issuer: APPLE_TEAM,
        subject: clientId,
        audience: 'https://appleid.apple.com',
      });
      if (protectedHeader.kid !== APPLE_KEY_ID || form.get('client_id') !== clientId)
        throw new Error('client');
    } catch {
      return answer(400, { error: 'invalid_client' });
    }
    if (req.url === '/auth/token') {
      const code = form.get('code') ?? '';
      if (form.get('grant_type') !== 'authorization_code' || !validCodes.delete(code))
        return answer(400, { error: 'invalid_grant' });
      exchanged.push(code);
      return answer(200, {
        access_token: `at-${code}`,
        token_type: 'Bearer',
        expires_in: 3600,
        refresh_token: `rt-${code}`,
        id_token: 'not-read',
      });
    }
    if (req.url === '/auth/revoke') {
      revoked.push(form.get('token') ?? '');
      return answer(200, {});
    }
    answer(404, { error: 'not_found' });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    env: {
      APPLE_TEAM_ID: APPLE_TEAM,
      APPLE_KEY_ID,
      APPLE_PRIVATE_KEY_FILE: keyFile,
      APPLE_CLIENT_ID: clientId,
      APPLE_TOKEN_URL: `${base}/auth/token`,
      APPLE_REVOKE_URL: `${base}/auth/revoke`,
    },
    /** A one-time code as the app would receive it from Apple. */
    issueCode() {
      const code = `c${Math.random().toString(36).slice(2)}`;
      validCodes.add(code);
      return code;
    },
    exchanged,
    revoked,
    failNextWith(status: number) {
      failNext = status;
    },
    async close() {
      await new Promise((r) => server.close(r));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
