import { type AttemptDeps, attemptDelivery } from '../../domain/attempt-delivery.use-case';
import type { QueuedDelivery } from '../../domain/fan-out-event.use-case';
import type { LeaseStore, WebhookDelivery, WebhookEndpoint } from '../../domain/webhook';

export interface WebhookWorkerOptions {
  pollMs: number;
  /** Lease of one attempt; longer than the request timeout, so a live worker never loses it mid-attempt. */
  leaseMs: number;
  concurrency: number;
}

export interface RunningWebhookWorker {
  /** Look for due attempts now (after a delivery was queued or replayed). */
  kick(): void;
  /** Sends just-queued deliveries at once (no polling round trip); beyond capacity they wait for the poll. */
  dispatch(queued: QueuedDelivery[]): void;
  stop(): Promise<void>;
}

/**
 * The background sender. Due attempts are candidates; a worker sends one only after taking its lease
 * (keyed by the delivery's version, so each attempt has its own), and re-reads it to be sure it is
 * still that attempt. Replicas therefore never send the same attempt twice, and all state is in the
 * database: after a crash the lease runs out and another worker (or the restarted one) takes over.
 */
export function startWebhookWorker(
  deps: AttemptDeps & { leases: LeaseStore },
  options: WebhookWorkerOptions,
): RunningWebhookWorker {
  const inFlight = new Map<string, Promise<void>>();
  let stopping = false;
  let pumping = false;
  let again = false;

  const launch = (d: WebhookDelivery, endpoint?: WebhookEndpoint) => {
    const task = attemptDelivery(d, deps, endpoint)
      .catch((err) => deps.logger.error({ err, deliveryId: d.id }, 'webhook attempt failed'))
      .finally(() => {
        inFlight.delete(d.id);
        void pump();
      });
    inFlight.set(d.id, task);
  };

  const dispatchOne = async ({ delivery, endpoint }: QueuedDelivery) => {
    if (stopping || inFlight.size >= options.concurrency || inFlight.has(delivery.id)) return;
    // just created by us at version 0: the lease alone makes it ours, no re-read needed
    if (await deps.leases.acquire(`${delivery.id}:${delivery.version}`, options.leaseMs))
      launch(delivery, endpoint);
  };

  const claimBatch = async (): Promise<number> => {
    const free = options.concurrency - inFlight.size;
    if (free <= 0) return 0;
    // more candidates than free slots: others may be leased by other replicas right now
    const candidates = await deps.deliveries.due(deps.clock.now(), options.concurrency * 4);
    let started = 0;
    for (const c of candidates) {
      if (stopping || inFlight.size >= options.concurrency) break;
      if (inFlight.has(c.id)) continue;
      if (!(await deps.leases.acquire(`${c.id}:${c.version}`, options.leaseMs))) continue;
      const fresh = await deps.deliveries.get(c.id);
      if (!fresh || fresh.version !== c.version || fresh.status !== 'pending') continue;
      launch(fresh);
      started++;
    }
    return started;
  };

  const pump = async (): Promise<void> => {
    if (stopping) return;
    if (pumping) {
      again = true;
      return;
    }
    pumping = true;
    try {
      do {
        again = false;
        while (!stopping && (await claimBatch()) > 0);
      } while (again && !stopping);
    } catch (err) {
      deps.logger.warn({ err }, 'webhook worker could not claim deliveries');
    } finally {
      pumping = false;
    }
  };

  const timer = setInterval(() => void pump(), options.pollMs);
  timer.unref();
  void pump();
  return {
    kick: () => void pump(),
    dispatch(queued) {
      for (const q of queued)
        dispatchOne(q).catch((err) =>
          deps.logger.warn({ err, deliveryId: q.delivery.id }, 'webhook dispatch failed'),
        );
    },
    async stop() {
      stopping = true;
      clearInterval(timer);
      await Promise.allSettled([...inFlight.values()]);
    },
  };
}
