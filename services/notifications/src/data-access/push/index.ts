import { pushDuration, pushRequests } from '@lingua/metrics';
import { readFileSync } from 'node:fs';
import type { PushMessage, PushOutcome, PushPlatform, PushSender } from '../../domain/push-sender';
import { apnsSender } from './apns.sender';
import { fcmSender, type ServiceAccount } from './fcm.sender';
import { reliablePushSender } from './reliable';
import { sinkPushSender } from './sink.sender';

export interface PushSettings {
  APNS_URL: string;
  APNS_KEY_FILE?: string | undefined;
  APNS_KEY_ID?: string | undefined;
  APNS_TEAM_ID?: string | undefined;
  APNS_TOPIC?: string | undefined;
  FCM_URL: string;
  FCM_TOKEN_URL?: string | undefined;
  FCM_SERVICE_ACCOUNT_FILE?: string | undefined;
  PUSH_SINK_URL: string;
  PUSH_TIMEOUT_MS: number;
  PUSH_CONCURRENCY: number;
  PUSH_MAX_ATTEMPTS: number;
  PUSH_MAX_RETRY_WAIT_MS: number;
}

type Provider = { send(m: PushMessage): Promise<PushOutcome>; close(): void };

/** A credentials file the service cannot read stops it at start, naming the variable. */
function readCredential(variable: string, file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    throw new Error(`${variable}: cannot read ${file}: ${(err as Error).message}`, { cause: err });
  }
}

function readServiceAccount(file: string): ServiceAccount {
  const json = readCredential('FCM_SERVICE_ACCOUNT_FILE', file);
  let account: Partial<ServiceAccount>;
  try {
    account = JSON.parse(json) as Partial<ServiceAccount>;
  } catch {
    throw new Error(`FCM_SERVICE_ACCOUNT_FILE: ${file} is not JSON`);
  }
  for (const field of ['project_id', 'client_email', 'private_key'] as const)
    if (typeof account[field] !== 'string')
      throw new Error(`FCM_SERVICE_ACCOUNT_FILE: ${file} has no ${field} (a Firebase service-account key?)`);
  return account as ServiceAccount;
}

/**
 * The push sender of the service: APNs for iOS and FCM for Android when their credentials are
 * configured, otherwise (development only: production refuses to start without them, see config.ts)
 * the local push sink. Each provider has its own retries and concurrency bound, so a slow provider
 * does not hold the other's pushes.
 */
export function pushSenderFromConfig(settings: PushSettings): PushSender & {
  providers: Record<PushPlatform, 'apns' | 'fcm' | 'sink'>;
  close(): void;
} {
  const reliability = {
    maxAttempts: settings.PUSH_MAX_ATTEMPTS,
    concurrency: settings.PUSH_CONCURRENCY,
    baseDelayMs: 500,
    maxDelayMs: 30_000,
    maxWaitMs: settings.PUSH_MAX_RETRY_WAIT_MS,
  };
  const sink = () => sinkPushSender({ url: settings.PUSH_SINK_URL, timeoutMs: settings.PUSH_TIMEOUT_MS });
  const apnsConfigured = !!settings.APNS_KEY_FILE;
  const ios: Provider = apnsConfigured
    ? apnsSender({
        url: settings.APNS_URL,
        key: readCredential('APNS_KEY_FILE', settings.APNS_KEY_FILE!),
        keyId: settings.APNS_KEY_ID!,
        teamId: settings.APNS_TEAM_ID!,
        topic: settings.APNS_TOPIC!,
        timeoutMs: settings.PUSH_TIMEOUT_MS,
      })
    : sink();
  const fcmConfigured = !!settings.FCM_SERVICE_ACCOUNT_FILE;
  const android: Provider = fcmConfigured
    ? fcmSender({
        url: settings.FCM_URL,
        tokenUrl: settings.FCM_TOKEN_URL,
        serviceAccount: readServiceAccount(settings.FCM_SERVICE_ACCOUNT_FILE!),
        timeoutMs: settings.PUSH_TIMEOUT_MS,
      })
    : sink();
  const senders: Record<PushPlatform, PushSender> = {
    ios: measuredPushSender(apnsConfigured ? 'apns' : 'sink', reliablePushSender(ios, reliability)),
    android: measuredPushSender(fcmConfigured ? 'fcm' : 'sink', reliablePushSender(android, reliability)),
  };
  return {
    providers: { ios: apnsConfigured ? 'apns' : 'sink', android: fcmConfigured ? 'fcm' : 'sink' },
    send: (message) => senders[message.platform].send(message),
    close() {
      ios.close();
      android.close();
    },
  };
}

/** Each message's final outcome and time (retries included), per provider. */
function measuredPushSender(provider: string, sender: PushSender): PushSender {
  return {
    async send(message) {
      const started = performance.now();
      const result = await sender.send(message).catch((err: unknown) => {
        pushRequests.inc({ provider, outcome: 'failed' });
        throw err;
      });
      pushRequests.inc({ provider, outcome: result.outcome });
      pushDuration.observe({ provider }, (performance.now() - started) / 1000);
      return result;
    },
  };
}
