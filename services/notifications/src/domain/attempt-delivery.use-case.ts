import type { Clock } from '@lingua/auth';
import type { Logger } from '@lingua/logger';
import {
  CIRCUIT_THRESHOLD,
  circuitCooldownMs,
  isSuccessStatus,
  retryAfterMs,
  retryDelayMs,
} from './retry-policy';
import type {
  AttemptOutcome,
  ClaimedDelivery,
  DeliveryStore,
  EndpointStore,
  OwnerRoles,
  WebhookEndpoint,
} from './webhook';
import { mayReceive, OWNER_NOT_ADMIN } from './webhook';
import type { NotificationStore } from './in-app-notification';
import { endpointDisabledNotification } from './notify-from-event.use-case';
import { signedHeaders } from './webhook-signature';

export interface SendResult {
  statusCode: number | null;
  error: string | null;
  retryAfter: string | undefined;
  /** Standard Webhooks / Svix: a receiver may answer `webhook-delivery: abort-message` to stop retries. */
  abort: boolean;
  responseBody: string | null;
  durationMs: number;
}

export interface WebhookSender {
  send(url: string, headers: Record<string, string>, body: string): Promise<SendResult>;
}

export interface AttemptDeps {
  endpoints: EndpointStore;
  deliveries: DeliveryStore;
  sender: WebhookSender;
  clock: Clock;
  logger: Logger;
  disableAfterMs: number;
  /** A scope-all endpoint's owner must still be an admin when each attempt is sent. */
  owners: OwnerRoles;
  /** Where the owner of an endpoint disabled by delivery is told (in-app). */
  notifications?: NotificationStore;
  random?: () => number;
}

const jitter = (random: () => number) => Math.round(random() * 1_000);

/**
 * One attempt of a claimed delivery: checks the endpoint and its circuit, sends the signed body,
 * records the outcome, and schedules the next attempt, finishes, or dead-letters the delivery
 * (status failed, replayable). Every write is fenced by the version of the claim.
 */
export async function attemptDelivery(
  d: ClaimedDelivery,
  deps: AttemptDeps,
  /** The endpoint as just read by the caller (fresh fan-out), saving a read on the hot path. */
  knownEndpoint?: WebhookEndpoint,
): Promise<void> {
  const random = deps.random ?? Math.random;
  const now = deps.clock.now();
  const endpoint = knownEndpoint ?? (await deps.endpoints.get(d.endpointId));
  const dead = (error: string) =>
    deps.deliveries.settle(
      d,
      {
        status: 'failed',
        attempts: d.attempts,
        nextAttemptAt: null,
        lastAttempt: { at: now, statusCode: null, error, durationMs: 0 },
        completedAt: now,
      },
      now,
    );
  if (!endpoint) return void (await dead('endpoint deleted'));
  if (!endpoint.enabled)
    return void (await dead(`endpoint disabled (${endpoint.disabledReason ?? 'by owner'})`));
  if (!(await mayReceive(endpoint, { ...deps, now })))
    return void (await dead(`endpoint disabled (${OWNER_NOT_ADMIN})`));

  if (endpoint.circuitOpenUntil && endpoint.circuitOpenUntil > now) {
    await deps.deliveries.postpone(d, new Date(endpoint.circuitOpenUntil.getTime() + jitter(random)), now);
    return;
  }
  if (endpoint.consecutiveFailures >= CIRCUIT_THRESHOLD) {
    // half-open: one probe goes through; the circuit is re-armed meanwhile so the others wait
    const cooldown = circuitCooldownMs(endpoint.consecutiveFailures);
    const reopen = new Date(now.getTime() + cooldown);
    // one conditional update on the endpoint: of concurrent attempts across replicas, one wins
    const isProbe = await deps.endpoints.claimProbe(endpoint.id, now, reopen);
    if (!isProbe) {
      await deps.deliveries.postpone(d, new Date(reopen.getTime() + jitter(random)), now);
      return;
    }
  }

  const headers = {
    'content-type': 'application/json',
    'user-agent': 'Lingua-Webhooks/1.0',
    ...signedHeaders(d.eventId, now, d.body, endpoint.secrets),
  };
  const result = await deps.sender.send(endpoint.url, headers, d.body);
  const attempt = d.attempts + 1;
  const outcome: AttemptOutcome = {
    at: now,
    statusCode: result.statusCode,
    error: result.error,
    durationMs: result.durationMs,
  };
  await deps.deliveries.recordAttempt({
    ...outcome,
    deliveryId: d.id,
    endpointId: d.endpointId,
    attempt,
    responseBody: result.responseBody,
  });

  if (result.statusCode !== null && isSuccessStatus(result.statusCode)) {
    // the endpoint's health first: whoever sees the delivery succeeded sees the circuit closed too
    if (endpoint.consecutiveFailures > 0 || endpoint.circuitOpenUntil)
      await deps.endpoints.recordSuccess(endpoint.id);
    await deps.deliveries.settle(
      d,
      { status: 'succeeded', attempts: attempt, nextAttemptAt: null, lastAttempt: outcome, completedAt: now },
      now,
    );
    return;
  }

  const after = await deps.endpoints.recordFailure(endpoint.id, now);
  const gone = result.statusCode === 410;
  if (after) {
    const failingFor = after.failingSince ? now.getTime() - after.failingSince.getTime() : 0;
    if (gone || failingFor >= deps.disableAfterMs) {
      const reason = gone ? 'gone' : 'persistent_failure';
      await deps.endpoints.update(endpoint.id, { enabled: false, disabledReason: reason, updatedAt: now });
      deps.logger.warn({ endpointId: endpoint.id, gone, failingFor }, 'webhook endpoint disabled');
      await deps.notifications?.upsert(endpointDisabledNotification(after, reason, now));
    } else if (after.consecutiveFailures >= CIRCUIT_THRESHOLD) {
      const until = new Date(now.getTime() + circuitCooldownMs(after.consecutiveFailures));
      await deps.endpoints.update(endpoint.id, { circuitOpenUntil: until });
    }
  }

  const delay = gone || result.abort ? null : retryDelayMs(attempt, random);
  if (delay === null) {
    await deps.deliveries.settle(
      d,
      { status: 'failed', attempts: attempt, nextAttemptAt: null, lastAttempt: outcome, completedAt: now },
      now,
    );
    deps.logger.warn({ deliveryId: d.id, attempts: attempt }, 'webhook delivery dead-lettered');
    return;
  }
  const wait = Math.max(delay, retryAfterMs(result.retryAfter, now) ?? 0);
  await deps.deliveries.settle(
    d,
    {
      status: 'pending',
      attempts: attempt,
      nextAttemptAt: new Date(now.getTime() + wait),
      lastAttempt: outcome,
      completedAt: null,
    },
    now,
  );
}
