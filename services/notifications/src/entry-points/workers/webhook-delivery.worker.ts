import {
  type AttemptDeps,
  attemptDelivery,
  type WebhookSender,
} from '../../domain/attempt-delivery.use-case';
import type { QueuedDelivery, SendFirst } from '../../domain/fan-out-event.use-case';
import type { WebhookDelivery, WebhookEndpoint } from '../../domain/webhook';

export interface WebhookWorkerOptions {
  pollMs: number;
  /**
   * How far a claim moves the attempt's due time ahead: longer than the request timeout, so a live
   * worker never loses it mid-attempt, and after which a dead worker's attempt is taken by another.
   */
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
  /** Sends a new delivery's first attempt now, storing it claimed just before the request. */
  sendFirst: SendFirst;
  stop(): Promise<void>;
}

/**
 * The background sender. Due attempts are candidates; a worker sends one only after claiming it in
 * the database (one update conditional on the version it read, which bumps the version and moves the
 * attempt's due time `leaseMs` ahead). Replicas therefore never send the same attempt twice, and all
 * state is in the database: after a crash the claimed attempt falls due again and another worker (or
 * the restarted one) takes it. No Redis: this needs only single-document atomicity.
 */
export function startWebhookWorker(deps: AttemptDeps, options: WebhookWorkerOptions): RunningWebhookWorker {
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
    const claimed = await deps.deliveries.claim(delivery, deps.clock.now(), options.leaseMs);
    if (claimed) launch(claimed, endpoint);
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
        // more candidates than free slots: others may be claimed by other replicas right now
        ready = await deps.deliveries.due(deps.clock.now(), options.concurrency * 4);
        scanned = true;
        if (ready.length === 0) break;
      }
      const c = ready.shift()!;
      if (inFlight.has(c.id)) continue;
      // the claim returns the delivery as it now is; null: another worker or a change got there first
      const claimed = await deps.deliveries.claim(c, deps.clock.now(), options.leaseMs);
      if (!claimed) continue;
      launch(claimed);
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
      // stored already claimed, before the request: the unique (endpoint, event) id lets exactly one
      // copy of the event (re-published, replayed, or racing on another replica) send it
      const now = deps.clock.now();
      const claimed: WebhookDelivery = {
        ...delivery,
        nextAttemptAt: new Date(now.getTime() + options.leaseMs),
        version: delivery.version + 1,
      };
      if (!(await deps.deliveries.insertClaimed(claimed))) return 'exists' as const;
      await attemptDelivery(claimed, { ...deps, sender: countedSender(endpoint.id) }, endpoint);
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
