import { type AnyDomainEvent, PUBLIC_EVENT_NAMES } from '@lingua/contracts';
import type { Clock } from '@lingua/auth';
import type { DeliveryStore, EndpointStore, WebhookDelivery, WebhookEndpoint } from './webhook';
import { webhookBody } from './webhook-signature';

type Deps = { endpoints: EndpointStore; deliveries: DeliveryStore; clock: Clock };

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

/** Queues one delivery of the event to one endpoint; the (endpoint, event) id makes it happen once. */
export async function queueDelivery(
  endpoint: WebhookEndpoint,
  event: { id: string; event: string; timestamp: string; data: unknown },
  deps: Deps,
): Promise<QueuedDelivery> {
  const now = deps.clock.now();
  const id = `${endpoint.id}:${event.id}`;
  const current = endpoint.secrets[0]!.secret;
  const delivery: WebhookDelivery = {
    id,
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
  const created = await deps.deliveries.createIfAbsent(delivery);
  return { delivery, endpoint, created };
}

/** A public domain event → one pending delivery per subscribed endpoint; returns the new ones. */
export async function fanOutEvent(event: AnyDomainEvent, deps: Deps): Promise<QueuedDelivery[]> {
  if (!PUBLIC_EVENT_NAMES.includes(event.event)) return [];
  const endpoints = await deps.endpoints.subscribers(event.event, subjectUserOf(event));
  const queued = await Promise.all(endpoints.map((endpoint) => queueDelivery(endpoint, event, deps)));
  return queued.filter((q) => q.created);
}
