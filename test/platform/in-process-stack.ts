import type { RunningService } from '@lingua/bootstrap';
import { startService } from '@lingua/bootstrap';
import { loadGatewayConfig } from '../../gateway/src/config';
import { type RunningGateway, startGateway } from '../../gateway/src/server';
import * as ai from '../../services/ai/src/config';
import { defineAiService } from '../../services/ai/src/start';
import * as flashcards from '../../services/flashcards/src/config';
import { type FlashcardsOptions, defineFlashcardsService } from '../../services/flashcards/src/start';
import * as identity from '../../services/identity/src/config';
import { defineIdentityService } from '../../services/identity/src/start';
import * as notifications from '../../services/notifications/src/config';
import { defineNotificationsService } from '../../services/notifications/src/start';
import * as subscriptions from '../../services/subscriptions/src/config';
import { defineSubscriptionsService } from '../../services/subscriptions/src/start';

// The development mail sink (plain CommonJS, as `npm start` runs it), required as is.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { startMailSink } = require('../../deploy/local/mail-sink.js') as {
  startMailSink(o: { port: number }): Promise<{ port: number; close(): Promise<void> } | undefined>;
};

export interface InProcessStack {
  services: Record<'identity' | 'flashcards' | 'subscriptions' | 'ai' | 'notifications', RunningService>;
  gateway: RunningGateway;
  stop(): Promise<void>;
}

/**
 * The five services and the gateway in this test's process, on free ports, configured from one
 * environment (isolatedServiceEnv); `gatewayEnv` adds the gateway's own settings. Unless the
 * environment names an SMTP port, the stack's mail goes to a mail sink of its own (stopped with it):
 * with nothing listening, every sign-up's welcome mail was retried in the background for the
 * suite's life, and its event never settled.
 */
export async function startInProcessStack(
  givenEnv: Record<string, string>,
  gatewayEnv: Record<string, string> = {},
  options: { flashcards?: FlashcardsOptions } = {},
): Promise<InProcessStack> {
  const sink = givenEnv.SMTP_PORT === undefined ? await startMailSink({ port: 0 }) : undefined;
  const env = sink ? { ...givenEnv, SMTP_PORT: String(sink.port) } : givenEnv;
  try {
    return await startServices(env, gatewayEnv, options, sink);
  } catch (err) {
    await sink?.close();
    throw err;
  }
}

async function startServices(
  env: Record<string, string>,
  gatewayEnv: Record<string, string>,
  options: { flashcards?: FlashcardsOptions },
  sink: { close(): Promise<void> } | undefined,
): Promise<InProcessStack> {
  // each service calls its peers of this stack over gRPC, not whatever listens on the default ports
  // (before, the AI service's entitlement look-ups went nowhere and every user was treated as free)
  const flashcardsService = await startService(
    defineFlashcardsService(flashcards.loadServiceConfig(env), options.flashcards),
  );
  const subscriptionsService = await startService(
    defineSubscriptionsService(subscriptions.loadServiceConfig(env)),
  );
  const identityService = await startService(
    defineIdentityService(
      identity.loadServiceConfig({ FLASHCARDS_ADDR: flashcardsService.grpcAddress!, ...env }),
    ),
  );
  const services = {
    identity: identityService,
    flashcards: flashcardsService,
    subscriptions: subscriptionsService,
    ai: await startService(
      defineAiService(
        ai.loadServiceConfig({
          SUBSCRIPTIONS_ADDR: subscriptionsService.grpcAddress!,
          IDENTITY_ADDR: identityService.grpcAddress!,
          ...env,
        }),
      ),
    ),
    notifications: await startService(
      defineNotificationsService(
        notifications.loadServiceConfig({ IDENTITY_ADDR: identityService.grpcAddress!, ...env }),
      ),
    ),
  };
  const gateway = await startGateway(
    loadGatewayConfig({
      ...env,
      GATEWAY_PORT: '0',
      IDENTITY_HTTP_URL: services.identity.httpUrl,
      FLASHCARDS_HTTP_URL: services.flashcards.httpUrl,
      SUBSCRIPTIONS_HTTP_URL: services.subscriptions.httpUrl,
      AI_HTTP_URL: services.ai.httpUrl,
      NOTIFICATIONS_HTTP_URL: services.notifications.httpUrl,
      ...gatewayEnv,
    }),
    { logger: services.identity.deps.logger },
  );
  return {
    services,
    gateway,
    async stop() {
      await gateway.stop();
      for (const s of Object.values(services)) await s.stop();
      await sink?.close();
    },
  };
}
