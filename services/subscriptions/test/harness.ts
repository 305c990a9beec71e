import type { RunningService } from '@lingua/bootstrap';
import { type PeriodicTask, startService } from '@lingua/bootstrap';
import { type AnyDomainEvent, makeEvent } from '@lingua/contracts';
import { type RunningConsumer, startDurableConsumer } from '@lingua/events';
import {
  httpCall,
  isolatedServiceEnv,
  signTestCaller,
  silentLogger,
  TestClock,
  uniqueName,
  waitFor,
} from '@lingua/testing';
import { loadServiceConfig, type SubscriptionsConfig } from '../src/config';
import { defineSubscriptionsService } from '../src/start';

export interface Reply {
  status: number;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  headers: Headers;
}

export interface TestUser {
  id: string;
  token: string;
  auth: Record<string, string>;
}

export const PRODUCT = 'com.lingua.premium.monthly';
export const DAY = 86_400_000;

/**
 * The subscriptions service in this process on free ports, over the real FerretDB, NATS and Redis,
 * with a TestClock, and a recorder of every event it publishes.
 */
export async function startSubscriptions(
  env: Record<string, string> = {},
  /** Another replica of an already started service: same database, stream and clock. */
  replicaOf?: { config: SubscriptionsConfig; clock: TestClock },
) {
  const clock = replicaOf?.clock ?? new TestClock(new Date());
  const config =
    replicaOf?.config ??
    loadServiceConfig(isolatedServiceEnv({ SUBSCRIPTIONS_SWEEP_INTERVAL_MS: '100', ...env }));
  const definition = defineSubscriptionsService(config, { clock });
  // the periodic workers (the expiry sweep), kept so a test can wait for a whole run of them
  const workers: PeriodicTask[] = [];
  const service: RunningService<SubscriptionsConfig> = await startService({
    ...definition,
    workers: (deps) => {
      const started = definition.workers?.(deps) ?? [];
      for (const w of started) if ('runNow' in w) workers.push(w as PeriodicTask);
      return started;
    },
  });
  const events: AnyDomainEvent[] = [];
  const recorder: RunningConsumer = await startDurableConsumer(service.deps.nats, service.deps.bus, {
    durable: uniqueName('recorder'),
    events: '*',
    logger: silentLogger(),
    // records whatever the service published: tests move its clock by weeks, back and forth, so an
    // event may be stamped ahead of the clock by the time it arrives
    maxClockSkewMs: Number.POSITIVE_INFINITY,
    handler: async (e) => void events.push(e),
  });

  const request = (
    method: string,
    path: string,
    init: { body?: unknown; headers?: Record<string, string>; raw?: string } = {},
  ): Promise<Reply> => httpCall(service.httpUrl, method, path, init);

  return {
    service,
    config,
    clock,
    events,
    request,
    get: (path: string, headers?: Record<string, string>) =>
      request('GET', path, { ...(headers && { headers }) }),
    post: (path: string, body?: unknown, headers?: Record<string, string>) =>
      request('POST', path, { ...(body !== undefined && { body }), ...(headers && { headers }) }),
    /** A signed-in user, as the gateway forwards one (client token and subscriptions' assertion). */
    user(role: 'user' | 'subscriber' | 'admin' = 'user'): TestUser {
      // tests move the clock by weeks
      const caller = signTestCaller(
        { audience: 'subscriptions', key: config.assertionKey },
        { role },
        clock,
        365 * 86_400,
      );
      return { id: caller.sub, token: caller.token, auth: caller.headers };
    },
    /**
     * A positive signal that this replica's background work since now is done: a whole sweep run that
     * started after this call (the first runNow() waits out a run under way), then the outbox drained.
     */
    async sweepsSettled() {
      for (const w of workers) {
        await w.runNow();
        await w.runNow();
      }
      await service.deps.outbox.flush();
    },
    /**
     * Every event staged before this call has been published (the outbox drained) and has reached the
     * recorder (a marker published after them arrived).
     */
    async eventsSettled() {
      await service.deps.outbox.flush();
      const marker = makeEvent('user.deleted', { userId: uniqueName('marker') });
      await service.deps.publisher.publish(marker);
      await waitFor(() => expect(events.map((e) => e.id)).toContain(marker.id));
    },
    eventsFor: (subscriptionId: string) =>
      events.filter((e) => (e.data as { subscriptionId?: string }).subscriptionId === subscriptionId),
    async stop() {
      await recorder.stop();
      if (!replicaOf) await service.deps.mongo.connection.dropDatabase().catch(() => undefined);
      await service.stop();
    },
  };
}
export type Harness = Awaited<ReturnType<typeof startSubscriptions>>;

let n = 0;
/** A unique transaction id for sandbox receipts. */
export const tx = () =>
  `tx${Date.now().toString(36)}${(n++).toString(36)}${Math.random().toString(36).slice(2, 6)}`;

/** Apple's renewal info (JWSRenewalInfoDecodedPayload) of a Sandbox purchase of PRODUCT. */
export const renewalInfo = (originalTransactionId: string, autoRenew = true) => ({
  originalTransactionId,
  autoRenewProductId: PRODUCT,
  productId: PRODUCT,
  autoRenewStatus: autoRenew ? 1 : 0,
  signedDate: Date.now(),
  environment: 'Sandbox',
});

export const sandboxReceipt = (scenario: string, id = tx()) => ({
  platform: 'ios',
  receipt_data: `sandbox_${scenario}_${id}`,
  transaction_id: id,
  product_id: PRODUCT,
});

/** Waits until the predicate holds (waitFor retries on throw). */
export const until = (predicate: () => boolean | Promise<boolean>, timeoutMs = 60_000) =>
  waitFor(
    async () => {
      if (!(await predicate())) throw new Error('condition not met yet');
    },
    { timeoutMs },
  );
