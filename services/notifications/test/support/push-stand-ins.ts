import { generateKeyPairSync } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { startApnsStandIn } from './apns-stand-in.ts';
import { startFcmStandIn } from './fcm-stand-in.ts';

/**
 * The APNs and FCM stand-ins with fresh keys, their credential files written to `dir` (an APNs .p8
 * key, a Firebase service account), and the environment that points the notifications service at
 * them. For the tests and benches that run the service against both providers.
 */
export async function startPushStandIns(dir: string) {
  const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const apns = await startApnsStandIn({
    publicKeyPem: ec.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    keyId: 'KEY1234567',
    teamId: 'TEAM123456',
    topic: 'app.lingua.ios',
  });
  const fcm = await startFcmStandIn({
    publicKeyPem: rsa.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    clientEmail: 'push@lingua-test.iam.gserviceaccount.com',
    projectId: 'lingua-test',
  });
  fs.writeFileSync(path.join(dir, 'AuthKey.p8'), ec.privateKey.export({ type: 'pkcs8', format: 'pem' }));
  fs.writeFileSync(
    path.join(dir, 'service-account.json'),
    JSON.stringify({
      type: 'service_account',
      project_id: 'lingua-test',
      client_email: 'push@lingua-test.iam.gserviceaccount.com',
      private_key: rsa.privateKey.export({ type: 'pkcs8', format: 'pem' }),
      token_uri: 'https://oauth2.googleapis.com/token',
    }),
  );
  const env = {
    APNS_URL: apns.url,
    APNS_KEY_FILE: path.join(dir, 'AuthKey.p8'),
    APNS_KEY_ID: 'KEY1234567',
    APNS_TEAM_ID: 'TEAM123456',
    APNS_TOPIC: 'app.lingua.ios',
    FCM_URL: fcm.url,
    FCM_TOKEN_URL: fcm.tokenUrl,
    FCM_SERVICE_ACCOUNT_FILE: path.join(dir, 'service-account.json'),
  };
  return { apns, fcm, env, close: () => Promise.all([apns.close(), fcm.close()]) };
}
