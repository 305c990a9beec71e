import {
  type AttemptDeps,
  attemptDelivery,
  sendFirstAttempt,
  type WebhookSender,
} from '../../domain/attempt-delivery.use-case';
import {
  FIRST_SEND_CLAIM_MS,
  type QueuedDelivery,
  type SendFirst,
} from '../../domain/fan-out-event.use-case';
import type { LeaseStore, WebhookDelivery, WebhookEndpoint } from '../../domain/webhook';

export interface WebhookWorkerOptions {
  pollMs: number;
  /** Lease of one attempt; longer than the request timeout, so a live worker never loses it mid-attempt. */
  leaseMs: number;
  concurrency: number;
  /** An endpoint's requests in flight beyond which its new deliveries queue instead of being sent from the consumer. */
  firstSendsPerEndpoint?: number;
}

export interface RunningWebhookWorker {
  /** Look for due attempts now (after a delivery was queued or replayed). */
  kick(): void;
  /** Sends just-queued deliveries at once (no polling round trip); beyond capacity they wait for the poll. */
  dispatch(queued: QueuedDelivery[]): void;
  /** Sends a new delivery's first attempt now, before it is stored (see sendFirstAttempt). */
  sendFirst: SendFirst;
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
  // first sends run in the event consumer's slots, not in this worker's; a slow endpoint may hold only some
  const firstSends = new Set<Promise<unknown>>();
  const requestsTo = new Map<string, number>();
  const maxFirstSends = options.firstSendsPerEndpoint ?? 32;
  /** The sender, counting this endpoint's requests in flight (a slow endpoint's events go to the queue). */
  const countedSender = (endpointId: string): WebhookSender => ({
    async send(...args) {
      requestsTo.set(endpointId, (requestsTo.get(endpointId) ?? 0) + 1);
      try {
        return await deps.sender.send(...args);
      } finally {
        const left = requestsTo.get(endpointId)! - 1;
        if (left === 0) requestsTo.delete(endpointId);
        else requestsTo.set(endpointId, left);
      }
    },
  });
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

  // due candidates of the last scan not tried yet: a freed slot takes the next one instead of
  // scanning again (a scan reads the whole collection on FerretDB; one per finished attempt made a
  // backlog quadratic). Each is re-read before it is sent, so a stale candidate is harmless.
  let ready: WebhookDelivery[] = [];
  const claimBatch = async (): Promise<number> => {
    let started = 0;
    let scanned = false;
    while (!stopping && inFlight.size < options.concurrency) {
      if (ready.length === 0) {
        if (scanned) break;
        // more candidates than free slots: others may be leased by other replicas right now
        ready = await deps.deliveries.due(deps.clock.now(), options.concurrency * 4);
        scanned = true;
        if (ready.length === 0) break;
      }
      const c = ready.shift()!;
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

  const sendFirst: SendFirst = async (delivery, endpoint) => {
    if (stopping || (requestsTo.get(endpoint.id) ?? 0) >= maxFirstSends) return 'queue';
    const task = (async () => {
      try {
        // claimed before: an earlier copy of the event (re-published, or a consumer replay) sent it
        if (!(await deps.leases.acquire(`first:${delivery.id}`, FIRST_SEND_CLAIM_MS)))
          return 'exists' as const;
        // held by whoever is sending this attempt right now: queue it (it is fenced by the version)
        if (!(await deps.leases.acquire(`${delivery.id}:${delivery.version}`, options.leaseMs)))
          return 'queue' as const;
      } catch {
        return 'queue' as const; // Redis unavailable: stored and sent once it is back
      }
      await sendFirstAttempt(delivery, endpoint, { ...deps, sender: countedSender(endpoint.id) });
      return 'sent' as const;
    })();
    firstSends.add(task);
    try {
      return await task;
    } finally {
      firstSends.delete(task);
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
    sendFirst,
    async stop() {
      stopping = true;
      clearInterval(timer);
      await Promise.allSettled([...inFlight.values(), ...firstSends]);
    },
  };
}
