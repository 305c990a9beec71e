import { randomUUID } from 'node:crypto';
import { type RunningService, startService } from '@lingua/bootstrap';
import { isolatedServiceEnv, signTestCaller, TestClock } from '@lingua/testing';
import { loadGatewayConfig } from '../../../gateway/src/config';
import { type RunningGateway, startGateway } from '../../../gateway/src/server';
import { gatewayCaller } from '../../../test/platform/gateway-caller';
import { loadServiceConfig } from '../src/config';
import { defineFlashcardsService, type FlashcardsOptions } from '../src/start';

/**
 * flashcards behind the real gateway, as the apps reach it. `restart()` stops the service (as a crash
 * would leave its data: nothing is cleaned) and starts a new one on the same database, stream and Redis.
 */
export async function startBehindGateway(
  overrides: Record<string, string> = {},
  options: Omit<FlashcardsOptions, 'clock'> = {},
) {
  const env = isolatedServiceEnv(overrides);
  // the gateway verifies tokens on the wall clock, so the service's clock starts at the real time
  const clock = new TestClock(new Date());
  const startOne = async (opts: Omit<FlashcardsOptions, 'clock'>) => {
    const service = await startService(defineFlashcardsService(loadServiceConfig(env), { clock, ...opts }));
    const gateway = await startGateway(
      loadGatewayConfig({ ...env, GATEWAY_PORT: '0', FLASHCARDS_HTTP_URL: service.httpUrl }),
      { logger: service.deps.logger },
    );
    return { service, gateway };
  };
  let current: { service: RunningService; gateway: RunningGateway } = await startOne(options);
  const call = gatewayCaller(() => current.gateway.url);
  return {
    env,
    clock,
    get service() {
      return current.service;
    },
    /** A new user whose requests go through the gateway with a bearer token. */
    user(sub: string = randomUUID()) {
      const token = () =>
        signTestCaller(
          { audience: 'flashcards', key: current.service.deps.config.assertionKey },
          { sub },
          clock,
        ).token;
      return {
        sub,
        api: (method: string, path: string, body?: unknown) =>
          call(method, path, { token: token(), ...(body !== undefined && { body }) }),
      };
    },
    /** Stops this process's service and gateway, then starts new ones on the same data. */
    async restart(opts: Omit<FlashcardsOptions, 'clock'> = {}) {
      await current.gateway.stop();
      await current.service.stop();
      current = await startOne(opts);
    },
    async stop() {
      await current.gateway.stop();
      await current.service.deps.mongo.connection.dropDatabase().catch(() => undefined);
      await current.service.stop();
    },
  };
}
export type BehindGateway = Awaited<ReturnType<typeof startBehindGateway>>;
