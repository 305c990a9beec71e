import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ConfigError } from '@lingua/config';
import { parseConfig } from '@lingua/config';
import { isolatedServiceEnv } from '@lingua/testing';
import { loadServiceConfig, notificationsPushCredentials } from '../src/config';
import { pushSenderFromConfig } from '../src/data-access/push';
import { startPushStandIns } from './support/push-stand-ins';

// How the service's configuration chooses its push providers: the real ones from credential files
// and configurable endpoints, the development sink `npm start` runs when there are none, and the
// refusals at boot.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { startPushSink } = require('../../../deploy/local/push-sink') as {
  startPushSink(o: { port: number }): Promise<{
    port: number;
    pushes: { to: string; text: string; collapseKey?: string }[];
    close(): Promise<void>;
  }>;
};

const message = (platform: 'ios' | 'android', token: string) => ({
  platform,
  token,
  title: 'Time to study',
  body: '12 cards are due',
  collapseKey: 'study_reminder',
});

describe('push providers from the configuration', () => {
  let dir: string;
  beforeAll(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'push-wiring-'))));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('When no provider credentials are configured in development, Then pushes of both platforms go to the development push sink', async () => {
    const sink = await startPushSink({ port: 0 });
    const push = pushSenderFromConfig(
      loadServiceConfig(
        isolatedServiceEnv({ NODE_ENV: 'development', PUSH_SINK_URL: `http://127.0.0.1:${sink.port}/push` }),
      ),
    );
    try {
      expect(push.providers).toEqual({ ios: 'sink', android: 'sink' });
      await expect(push.send(message('ios', 'a'.repeat(64)))).resolves.toEqual({ outcome: 'sent' });
      await expect(push.send(message('android', 'fcm-device-1'))).resolves.toEqual({ outcome: 'sent' });
      expect(sink.pushes).toEqual([
        expect.objectContaining({ to: 'ios:aaaaaaaa…aaaa', text: 'Time to study — 12 cards are due' }),
        expect.objectContaining({ to: 'android:fcm-device-1', collapseKey: 'study_reminder' }),
      ]);
    } finally {
      push.close();
      await sink.close();
    }
  });

  it('When APNs and FCM credentials are files and the endpoints point at stand-ins, Then each platform goes to its provider', async () => {
    const { apns, fcm, env, close } = await startPushStandIns(dir);
    const push = pushSenderFromConfig(loadServiceConfig(isolatedServiceEnv(env)));
    try {
      expect(push.providers).toEqual({ ios: 'apns', android: 'fcm' });
      await expect(push.send(message('ios', 'b'.repeat(64)))).resolves.toEqual({ outcome: 'sent' });
      await expect(push.send(message('android', 'fcm-device-2'))).resolves.toEqual({ outcome: 'sent' });
      expect(apns.requests.map((r) => r.token)).toEqual(['b'.repeat(64)]);
      expect(fcm.requests.map((r) => r.token)).toEqual(['fcm-device-2']);
      expect(fcm.tokenRequests).toBe(1);
    } finally {
      push.close();
      await close();
    }
  });

  it('When a credentials file cannot be read, Then building the sender fails naming the variable', () => {
    const config = loadServiceConfig(
      isolatedServiceEnv({ FCM_SERVICE_ACCOUNT_FILE: path.join(dir, 'missing.json') }),
    );
    expect(() => pushSenderFromConfig(config)).toThrow(/^FCM_SERVICE_ACCOUNT_FILE: cannot read/);
  });

  it('When only some APNs settings are given, or production has no push credentials, Then the configuration is refused naming each variable', () => {
    const issues = (env: Record<string, string>) => {
      try {
        parseConfig(notificationsPushCredentials, env);
        return [];
      } catch (err) {
        return (err as ConfigError).issues.map((i) => i.variable).sort();
      }
    };
    expect(issues({ NODE_ENV: 'development', APNS_KEY_FILE: '/k.p8' })).toEqual([
      'APNS_KEY_ID',
      'APNS_TEAM_ID',
      'APNS_TOPIC',
    ]);
    expect(issues({ NODE_ENV: 'development' })).toEqual([]);
    expect(issues({ NODE_ENV: 'production' })).toEqual([
      'APNS_KEY_FILE',
      'APNS_KEY_ID',
      'APNS_TEAM_ID',
      'APNS_TOPIC',
      'FCM_SERVICE_ACCOUNT_FILE',
    ]);
    expect(
      issues({
        NODE_ENV: 'production',
        APNS_KEY_FILE: '/k.p8',
        APNS_KEY_ID: 'K',
        APNS_TEAM_ID: 'T',
        APNS_TOPIC: 'app',
        FCM_SERVICE_ACCOUNT_FILE: '/sa.json',
        APNS_URL: 'http://127.0.0.1:9999',
      }),
    ).toEqual(['APNS_URL']);
  });
});
