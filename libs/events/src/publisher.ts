import { headers as natsHeaders } from '@nats-io/nats-core';
import type { AnyDomainEvent, DomainEvent } from '@lingua/contracts';
import { currentRequestContext } from '@lingua/logger';
import { eventsPublished } from '@lingua/metrics';
import { extractTraceContext, injectTraceContext, SpanKind, withSpan } from '@lingua/telemetry';
import type { NatsHandle } from './nats-connection';
import { type EventBusConfig, subjectFor } from './streams';

export interface PublishOptions {
  /** Headers captured when the event was staged (trace and request ids of the original request). */
  carriedHeaders?: Record<string, string>;
}

export interface EventPublisher {
  /** Publishes and waits for the stream's ack; `duplicate` is true when the id was seen before. */
  publish(
    event: AnyDomainEvent | DomainEvent,
    options?: PublishOptions,
  ): Promise<{ seq: number; duplicate: boolean }>;
}

/** Headers that let the consumer continue the trace and the logging context of the producer. */
export function currentCarrierHeaders(): Record<string, string> {
  const carried: Record<string, string> = {};
  injectTraceContext((k, v) => (carried[k] = v));
  const ctx = currentRequestContext();
  if (ctx) {
    carried['x-request-id'] = ctx.requestId;
    carried['x-correlation-id'] = ctx.correlationId;
  }
  return carried;
}

/** `service` labels the published-events counter (the event name, not the subject, is the other label). */
export function createEventPublisher(
  nats: NatsHandle,
  cfg: EventBusConfig,
  service = 'unknown',
): EventPublisher {
  return {
    async publish(event, options = {}) {
      const subject = subjectFor(cfg, event.event);
      const carried = options.carriedHeaders ?? currentCarrierHeaders();
      const parent = extractTraceContext({ get: (k) => carried[k], keys: () => Object.keys(carried) });
      const attributes = {
        'messaging.system': 'nats',
        'messaging.destination.name': subject,
        'messaging.message.id': event.id,
      };
      return withSpan(`${subject} publish`, { kind: SpanKind.PRODUCER, parent, attributes }, async () => {
        const outgoing = { ...carried };
        injectTraceContext((k, v) => (outgoing[k] = v)); // the producer span becomes the consumer's parent
        const h = natsHeaders();
        for (const [k, v] of Object.entries(outgoing)) h.set(k, v);
        // msgID becomes Nats-Msg-Id: the server drops a repeat within the duplicate window
        const ack = await nats.js
          .publish(subject, JSON.stringify(event), { msgID: event.id, headers: h })
          .catch((err: unknown) => {
            eventsPublished.inc({ service, event: event.event, outcome: 'error' });
            throw err;
          });
        eventsPublished.inc({ service, event: event.event, outcome: ack.duplicate ? 'duplicate' : 'ok' });
        return { seq: ack.seq, duplicate: ack.duplicate };
      });
    },
  };
}
