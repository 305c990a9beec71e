import { type AnyDomainEvent, PUBLIC_EVENT_NAMES } from '@lingua/contracts';
import type { Clock } from '@lingua/auth';
import {
  type DeliveryStore,
  type EndpointStore,
  isHealthy,
  mayReceive,
  type OwnerRoles,
  type WebhookDelivery,
  type WebhookEndpoint,
} from './webhook';
import { webhookBody } from './webhook-signature';

type Deps = { endpoints: EndpointStore; deliveries: DeliveryStore; clock: Clock; owners: OwnerRoles };

/** The user an event is about; null when none (a guest's subscription). */
export function subjectUserOf(event: AnyDomainEvent): string | null {
  const data = event.data as { userId?: string | null };
  return data.userId ?? null;
}

export interface QueuedDelivery {
  delivery: WebhookDelivery;
  endpoint: WebhookEndpoint;
  /** false when this (endpoint, event) delivery already existed: nothing new to send. */
  created: boolean;
}

/**
 * Only events at most FIRST_SEND_WINDOW_MS old (or early, for clock skew) take the hot path; older
 * ones (a replay) take the queue. Either way the (endpoint, event) delivery document is the claim: a
 * duplicate of the event finds it stored and sends nothing.
 */
export const FIRST_SEND_WINDOW_MS = 5 * 60_000;

/** A healthy endpoint and a recent event: the first attempt may be sent before the delivery is stored. */
export function maySendFirst(endpoint: WebhookEndpoint, event: { timestamp: string }, now: Date): boolean {
  const age = now.getTime() - Date.parse(event.timestamp);
  return isHealthy(endpoint) && Math.abs(age) < FIRST_SEND_WINDOW_MS;
}

/**
 * Sends the first attempt of a new delivery at once, before storing it: 'sent' (stored in its
 * resulting state), 'exists' (this (endpoint, event) delivery was stored before: nothing to do), or
 * 'queue' (not taken now: queue it the usual way).
 */
export type SendFirst = (
  delivery: WebhookDelivery,
  endpoint: WebhookEndpoint,
) => Promise<'sent' | 'exists' | 'queue'>;

type EventLike = { id: string; event: string; timestamp: string; data: unknown };

/** The delivery of an event to an endpoint, not yet attempted; the body is fixed here. */
export function newDelivery(endpoint: WebhookEndpoint, event: EventLike, now: Date): WebhookDelivery {
  const current = endpoint.secrets[0]!.secret;
  return {
    id: `${endpoint.id}:${event.id}`,
    endpointId: endpoint.id,
    ownerId: endpoint.ownerId,
    eventId: event.id,
    eventName: event.event,
    body: webhookBody(event.id, event, current),
    status: 'pending',
    attempts: 0,
    nextAttemptAt: now,
    lastAttempt: null,
    replays: 0,
    createdAt: now,
    updatedAt: now,
    completedAt: null,
    version: 0,
  };
}

/** Queues one delivery of the event to one endpoint; the (endpoint, event) id makes it happen once. */
export async function queueDelivery(
  endpoint: WebhookEndpoint,
  event: EventLike,
  deps: Omit<Deps, 'owners'>,
): Promise<QueuedDelivery> {
  const delivery = newDelivery(endpoint, event, deps.clock.now());
  const created = await deps.deliveries.createIfAbsent(delivery);
  return { delivery, endpoint, created };
}

/**
 * A public domain event → one delivery per subscribed endpoint; returns the newly queued ones. On
 * the event's first delivery, a healthy endpoint's first attempt is sent at once (`sendFirst`); a
 * redelivered event (something failed before), an old event and unhealthy endpoints take the queue,
 * where the circuit breaker and retries live.
 */
export async function fanOutEvent(
  event: AnyDomainEvent,
  deps: Deps & { sendFirst?: SendFirst | undefined },
  firstDelivery = false,
): Promise<QueuedDelivery[]> {
  if (!PUBLIC_EVENT_NAMES.includes(event.event)) return [];
  const endpoints = await deps.endpoints.subscribers(event.event, subjectUserOf(event));
  const queued = await Promise.all(
    endpoints.map(async (endpoint) => {
      const now = deps.clock.now();
      if (!(await mayReceive(endpoint, { ...deps, now }))) return null;
      if (firstDelivery && deps.sendFirst && maySendFirst(endpoint, event, now)) {
        const outcome = await deps.sendFirst(newDelivery(endpoint, event, now), endpoint);
        if (outcome !== 'queue') return null;
      }
      return queueDelivery(endpoint, event, deps);
    }),
  );
  return queued.filter((q): q is QueuedDelivery => q !== null && q.created);
}
