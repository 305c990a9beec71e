import { randomUUID } from 'node:crypto';
import type { AccessClaims, Clock } from '@lingua/auth';
import type { EventName } from '@lingua/contracts';
import { AppError } from '@lingua/errors';
import { queueDelivery } from './fan-out-event.use-case';
import { TEST_EVENT_NAME } from './webhook';
import type {
  AttemptRecord,
  DeliveryStatus,
  DeliveryStore,
  EndpointScope,
  EndpointStore,
  WebhookDelivery,
  WebhookEndpoint,
} from './webhook';
import { newEndpointSecret } from './webhook-signature';
import { webhookUrlProblem } from './webhook-url-policy';

/** How long a rotated-out secret keeps signing, so receivers can switch without dropping deliveries. */
export const ROTATION_OVERLAP_MS = 24 * 3_600_000;

export interface WebhookDeps {
  endpoints: EndpointStore;
  deliveries: DeliveryStore;
  clock: Clock;
  allowPrivate: boolean;
  resolve: (host: string) => Promise<string[]>;
  maxEndpointsPerAccount: number;
  /** Wakes the delivery worker after a delivery was queued or replayed. */
  kick: () => void;
}

type Caller = Pick<AccessClaims, 'sub' | 'role'>;

export const toPublicEndpoint = (e: WebhookEndpoint) => ({
  id: e.id,
  url: e.url,
  description: e.description,
  events: e.events,
  scope: e.scope,
  ownerId: e.ownerId,
  enabled: e.enabled,
  disabledReason: e.disabledReason,
  circuit: {
    state: e.circuitOpenUntil ? 'open' : e.consecutiveFailures > 0 ? 'degraded' : 'closed',
    consecutiveFailures: e.consecutiveFailures,
    openUntil: e.circuitOpenUntil?.toISOString() ?? null,
    failingSince: e.failingSince?.toISOString() ?? null,
  },
  createdAt: e.createdAt.toISOString(),
  updatedAt: e.updatedAt.toISOString(),
});

export const toPublicDelivery = (d: WebhookDelivery) => ({
  id: d.id,
  endpointId: d.endpointId,
  eventId: d.eventId,
  event: d.eventName,
  status: d.status,
  attempts: d.attempts,
  nextAttemptAt: d.nextAttemptAt?.toISOString() ?? null,
  lastAttempt: d.lastAttempt && { ...d.lastAttempt, at: d.lastAttempt.at.toISOString() },
  replays: d.replays,
  createdAt: d.createdAt.toISOString(),
  completedAt: d.completedAt?.toISOString() ?? null,
});

const toPublicAttempt = (a: AttemptRecord) => ({
  attempt: a.attempt,
  at: a.at.toISOString(),
  statusCode: a.statusCode,
  error: a.error,
  durationMs: a.durationMs,
  responseBody: a.responseBody,
});

async function assertUrlAllowed(url: string, deps: WebhookDeps) {
  const problem = await webhookUrlProblem(url, deps);
  if (problem) throw new AppError('VALIDATION_ERROR', 'Validation failed', { details: { url: [problem] } });
}

/** The endpoint if the caller may manage it (owner or admin); others get 404, not a hint it exists. */
export async function endpointFor(caller: Caller, id: string, deps: Pick<WebhookDeps, 'endpoints'>) {
  const e = await deps.endpoints.get(id);
  if (!e || (e.ownerId !== caller.sub && caller.role !== 'admin'))
    throw new AppError('NOT_FOUND', 'Webhook endpoint not found');
  return e;
}

export async function createWebhookEndpoint(
  caller: Caller,
  input: {
    url: string;
    events: EventName[];
    description?: string | undefined;
    scope?: EndpointScope | undefined;
  },
  deps: WebhookDeps,
) {
  if (input.scope === 'all' && caller.role !== 'admin')
    throw new AppError('FORBIDDEN', 'Only administrators may receive events about every account');
  await assertUrlAllowed(input.url, deps);
  if ((await deps.endpoints.countByOwner(caller.sub)) >= deps.maxEndpointsPerAccount)
    throw new AppError('CONFLICT', `At most ${deps.maxEndpointsPerAccount} webhook endpoints per account`);
  const now = deps.clock.now();
  const secret = newEndpointSecret();
  const endpoint: WebhookEndpoint = {
    id: `ep_${randomUUID().replace(/-/g, '')}`,
    ownerId: caller.sub,
    url: input.url,
    description: input.description ?? '',
    events: [...new Set(input.events)],
    scope: input.scope ?? 'own',
    secrets: [{ secret, createdAt: now, expiresAt: null }],
    enabled: true,
    disabledReason: null,
    consecutiveFailures: 0,
    circuitOpenUntil: null,
    failingSince: null,
    createdAt: now,
    updatedAt: now,
  };
  await deps.endpoints.insert(endpoint);
  // the secret is shown at creation and rotation only
  return { ...toPublicEndpoint(endpoint), secret };
}

export async function listWebhookEndpoints(caller: Caller, page: number, limit: number, deps: WebhookDeps) {
  const filter = caller.role === 'admin' ? {} : { ownerId: caller.sub };
  const { items, total } = await deps.endpoints.list(filter, page, limit);
  return {
    webhooks: items.map(toPublicEndpoint),
    pagination: { page, limit, total, totalPages: Math.ceil(total / limit) },
  };
}

export async function updateWebhookEndpoint(
  caller: Caller,
  id: string,
  input: {
    url?: string | undefined;
    events?: EventName[] | undefined;
    description?: string | undefined;
    enabled?: boolean | undefined;
    scope?: EndpointScope | undefined;
  },
  deps: WebhookDeps,
) {
  await endpointFor(caller, id, deps);
  if (input.scope === 'all' && caller.role !== 'admin')
    throw new AppError('FORBIDDEN', 'Only administrators may receive events about every account');
  if (input.url !== undefined) await assertUrlAllowed(input.url, deps);
  const set: Partial<WebhookEndpoint> = { updatedAt: deps.clock.now() };
  if (input.url !== undefined) set.url = input.url;
  if (input.events !== undefined) set.events = [...new Set(input.events)];
  if (input.description !== undefined) set.description = input.description;
  if (input.scope !== undefined) set.scope = input.scope;
  if (input.enabled !== undefined) {
    set.enabled = input.enabled;
    set.disabledReason = input.enabled ? null : 'by_owner';
    // re-enabling starts with a closed circuit and a fresh failure window
    if (input.enabled)
      Object.assign(set, { consecutiveFailures: 0, circuitOpenUntil: null, failingSince: null });
  }
  const updated = await deps.endpoints.update(id, set);
  if (!updated) throw new AppError('NOT_FOUND', 'Webhook endpoint not found');
  return toPublicEndpoint(updated);
}

export async function deleteWebhookEndpoint(caller: Caller, id: string, deps: WebhookDeps) {
  await endpointFor(caller, id, deps);
  await deps.endpoints.remove(id);
  return { id, deleted: true };
}

/** A new current secret; the previous one keeps signing for ROTATION_OVERLAP_MS. */
export async function rotateWebhookSecret(caller: Caller, id: string, deps: WebhookDeps) {
  const e = await endpointFor(caller, id, deps);
  const now = deps.clock.now();
  const overlapUntil = new Date(now.getTime() + ROTATION_OVERLAP_MS);
  const secret = newEndpointSecret();
  const kept = e.secrets
    .filter((s) => s.expiresAt === null || s.expiresAt > now)
    .map((s) => ({
      ...s,
      expiresAt: s.expiresAt && s.expiresAt < overlapUntil ? s.expiresAt : overlapUntil,
    }));
  await deps.endpoints.update(id, {
    secrets: [{ secret, createdAt: now, expiresAt: null }, ...kept],
    updatedAt: now,
  });
  return { id, secret, previousSecretExpiresAt: overlapUntil.toISOString() };
}

export async function listWebhookDeliveries(
  caller: Caller,
  id: string,
  q: { status?: DeliveryStatus | undefined; page: number; limit: number },
  deps: WebhookDeps,
) {
  await endpointFor(caller, id, deps);
  const { items, total } = await deps.deliveries.list({ endpointId: id, status: q.status }, q.page, q.limit);
  return {
    deliveries: items.map(toPublicDelivery),
    pagination: { page: q.page, limit: q.limit, total, totalPages: Math.ceil(total / q.limit) },
  };
}

async function deliveryFor(caller: Caller, endpointId: string, deliveryId: string, deps: WebhookDeps) {
  await endpointFor(caller, endpointId, deps);
  const d = await deps.deliveries.get(deliveryId);
  if (!d || d.endpointId !== endpointId) throw new AppError('NOT_FOUND', 'Delivery not found');
  return d;
}

export async function getWebhookDelivery(
  caller: Caller,
  endpointId: string,
  deliveryId: string,
  deps: WebhookDeps,
) {
  const d = await deliveryFor(caller, endpointId, deliveryId, deps);
  const attempts = await deps.deliveries.attemptsOf(d.id, 50);
  return {
    ...toPublicDelivery(d),
    payload: JSON.parse(d.body) as unknown,
    attemptLog: attempts.map(toPublicAttempt),
  };
}

/** Sends a finished (dead-lettered or delivered) delivery again, same webhook-id and bytes, fresh schedule. */
export async function replayWebhookDelivery(
  caller: Caller,
  endpointId: string,
  deliveryId: string,
  deps: WebhookDeps,
) {
  await deliveryFor(caller, endpointId, deliveryId, deps);
  const replayed = await deps.deliveries.replay(deliveryId, deps.clock.now());
  if (!replayed)
    throw new AppError('CONFLICT', 'Delivery is still pending; it will be attempted as scheduled');
  deps.kick();
  return toPublicDelivery(replayed);
}

/** Replays every dead-lettered delivery of an endpoint (after fixing or re-enabling it). */
export async function replayFailedDeliveries(caller: Caller, endpointId: string, deps: WebhookDeps) {
  await endpointFor(caller, endpointId, deps);
  const replayed = await deps.deliveries.replayFailed(endpointId, deps.clock.now());
  deps.kick();
  return { replayed };
}

export async function sendTestWebhook(caller: Caller, endpointId: string, deps: WebhookDeps) {
  const e = await endpointFor(caller, endpointId, deps);
  const event = {
    id: randomUUID(),
    event: TEST_EVENT_NAME,
    timestamp: deps.clock.now().toISOString(),
    data: { endpointId: e.id, message: 'Test event from Lingua' },
  };
  const { delivery } = await queueDelivery(e, event, deps);
  deps.kick();
  return toPublicDelivery(delivery);
}
