import { AckPolicy, DeliverPolicy, type JsMsg } from '@nats-io/jetstream';
import { headers as natsHeaders } from '@nats-io/nats-core';
import {
  type AnyDomainEvent,
  type EventName,
  isFromTheFuture,
  MAX_EVENT_CLOCK_SKEW_MS,
  parseEvent,
} from '@lingua/contracts';
import { type Logger, runWithRequestContext } from '@lingua/logger';
import {
  eventHandlerDuration,
  eventsConsumed,
  eventsDeadLettered,
  eventsRedelivered,
  registerConsumerLag,
  secondsSince,
} from '@lingua/metrics';
import { extractTraceContext, SpanKind, withSpan } from '@lingua/telemetry';
import type { NatsHandle } from './nats-connection';
import type { ProcessedEvents } from './processed-events';
import { deadLetterSubjectFor, type EventBusConfig, subjectFor } from './streams';

export type EventHandler = (
  event: AnyDomainEvent,
  meta: { deliveryCount: number; subject: string },
) => Promise<void>;

export interface ConsumerOptions {
  /** Durable name: survives restarts; several replicas with the same name share the work. */
  durable: string;
  /** Event names to receive (one filter subject each: NATS 2.9 allows one per consumer, so more means `>` + local filter). */
  events: EventName[] | '*';
  handler: EventHandler;
  logger: Logger;
  /** Attempts before the message goes to the dead-letter stream. */
  maxAttempts?: number;
  /** Delay before retry n (last value repeats). */
  backoffMs?: number[];
  /** How long the server waits for an ack before redelivering (a crashed handler). */
  ackWaitMs?: number;
  processed?: ProcessedEvents;
  /**
   * Messages handled at the same time (default 1: one after the other, in stream order). More is
   * only for handlers that neither depend on the order of events nor on one event's work being
   * finished before the next starts; each message is still acked only after its own handler.
   */
  concurrency?: number;
  /**
   * True (or true for an event) when the handler is idempotent per event id on its own: the
   * processed-event record is then neither read nor written for it (two database round trips).
   */
  idempotent?: boolean | ((event: AnyDomainEvent) => boolean);
  /**
   * With concurrency: events with the same key (e.g. the user they are about) are still handled one
   * after the other, in stream order, within this process. No key: no ordering.
   */
  orderingKey?: (event: AnyDomainEvent) => string | undefined;
  /** The owning service, for the metrics' `service` label. */
  service?: string;
  /**
   * How far ahead of this process's clock an event's timestamp may be (default 5 minutes). A later
   * one is refused before the handler sees it: dead-lettered, counted, never retried.
   */
  maxClockSkewMs?: number;
  /** The clock the timestamps are checked against (tests). */
  now?: () => Date;
}

export interface RunningConsumer {
  stop(): Promise<void>;
}

const ns = (ms: number) => ms * 1_000_000;

async function ensureConsumer(nats: NatsHandle, cfg: EventBusConfig, opts: ConsumerOptions) {
  const filter =
    opts.events !== '*' && opts.events.length === 1 ? subjectFor(cfg, opts.events[0]!) : subjectFor(cfg, '>');
  const config = {
    durable_name: opts.durable,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    filter_subject: filter,
    ack_wait: ns(opts.ackWaitMs ?? 30_000),
    // we dead-letter ourselves after maxAttempts; the server must keep redelivering until then
    max_deliver: -1,
  };
  try {
    await nats.jsm.consumers.info(cfg.streamName, opts.durable);
  } catch (err) {
    if (!/not found/i.test(String((err as Error).message))) throw err;
    await nats.jsm.consumers.add(cfg.streamName, config).catch((addErr: Error) => {
      if (!/already (in use|exists)/i.test(addErr.message)) throw addErr;
    });
    return;
  }
  // An existing durable keeps its position; a changed filter or ack wait is applied where the server
  // allows it (NATS 2.9 refuses some edits), and a refusal must not stop the service from booting.
  await nats.jsm.consumers
    .update(cfg.streamName, opts.durable, { ack_wait: config.ack_wait, filter_subject: filter })
    .catch((err: Error) => opts.logger.warn({ err, durable: opts.durable }, 'consumer config not updated'));
}

/**
 * A durable pull consumer: the event is validated (a timestamp further ahead than clock skew
 * explains is refused like a malformed message), handled once (processed-event record, unless the
 * handler is idempotent on its own), acked; up to `concurrency` messages are handled at a time;
 * a failure is retried after a back-off; after maxAttempts, or at once for a malformed message,
 * it is copied to the dead-letter stream with the reason, and terminated.
 */
export async function startDurableConsumer(
  nats: NatsHandle,
  cfg: EventBusConfig,
  opts: ConsumerOptions,
): Promise<RunningConsumer> {
  await ensureConsumer(nats, cfg, opts);
  const maxAttempts = opts.maxAttempts ?? 5;
  const backoff = opts.backoffMs ?? [1_000, 5_000, 30_000, 120_000];
  const wanted = opts.events === '*' ? undefined : new Set<string>(opts.events);
  const concurrency = Math.max(1, opts.concurrency ?? 1);
  const idempotent = opts.idempotent ?? false;
  const recordsProcessed = (event: AnyDomainEvent) =>
    opts.processed && !(typeof idempotent === 'function' ? idempotent(event) : idempotent);
  const consumer = await nats.js.consumers.get(cfg.streamName, opts.durable);
  // enough buffered for every slot to be refilled at once
  const messages = await consumer.consume({ max_messages: Math.max(16, concurrency * 2) });
  const service = opts.service ?? 'unknown';
  const consumerLabels = { service, consumer: opts.durable };
  // lag is asked of the server at scrape time, never per message
  const unregisterLag = registerConsumerLag(service, opts.durable, async () => {
    const info = await nats.jsm.consumers.info(cfg.streamName, opts.durable);
    return { pending: info.num_pending, ackPending: info.num_ack_pending };
  });
  const eventLabel = (event: AnyDomainEvent | Error) => (event instanceof Error ? 'malformed' : event.event);
  const counted = (event: AnyDomainEvent | Error, outcome: string) =>
    eventsConsumed.inc({ ...consumerLabels, event: eventLabel(event), outcome });
  const skewMs = opts.maxClockSkewMs ?? MAX_EVENT_CLOCK_SKEW_MS;
  const now = opts.now ?? (() => new Date());

  const deadLetter = async (
    msg: JsMsg,
    reason: string,
    event: AnyDomainEvent | Error,
    outcome = 'dead_lettered',
  ) => {
    const h = natsHeaders();
    msg.headers?.keys().forEach((k) => h.set(k, msg.headers!.get(k)));
    h.set('x-dead-letter-reason', reason.replace(/\s+/g, ' ').slice(0, 500)); // header values are single-line
    h.set('x-original-subject', msg.subject);
    h.set('x-delivery-count', String(msg.info.deliveryCount));
    await nats.js.publish(deadLetterSubjectFor(cfg, opts.durable), msg.data, {
      headers: h,
      msgID: `${opts.durable}:${msg.seq}`,
    });
    msg.term(reason);
    eventsDeadLettered.inc({ ...consumerLabels, event: eventLabel(event) });
    counted(event, outcome);
    opts.logger.error({ subject: msg.subject, seq: msg.seq, reason }, 'event dead-lettered');
  };

  const parse = (msg: JsMsg): AnyDomainEvent | Error => {
    try {
      return parseEvent(msg.json());
    } catch (err) {
      return err as Error;
    }
  };

  const handle = async (msg: JsMsg, event: AnyDomainEvent | Error) => {
    if (msg.info.redelivered) eventsRedelivered.inc({ ...consumerLabels, event: eventLabel(event) });
    if (event instanceof Error) return deadLetter(msg, `malformed event: ${event.message}`, event);
    if (wanted && !wanted.has(event.event)) return msg.ack();
    // Best Practice: refused here, once for every consumer. Dead-lettered (not dropped): the copy,
    // with its headers and subject, is the evidence of a forged publisher or a clock gone wrong,
    // and can be replayed once explained; terminated, so it is never retried.
    if (isFromTheFuture(event, now(), skewMs))
      return deadLetter(
        msg,
        `event timestamp ${event.timestamp} is more than ${skewMs} ms ahead of this consumer's clock`,
        event,
        'refused_future_timestamp',
      );
    const bookkeeping = recordsProcessed(event);
    if (bookkeeping && (await opts.processed!.has(opts.durable, event.id))) {
      counted(event, 'skipped');
      return msg.ack();
    }
    const get = (k: string) => msg.headers?.get(k) || undefined;
    const parent = extractTraceContext({ get, keys: () => msg.headers?.keys() ?? [] });
    const ctx = {
      requestId: get('x-request-id') ?? event.id,
      correlationId: get('x-correlation-id') ?? event.id,
    };
    await runWithRequestContext(ctx, () =>
      withSpan(
        `${msg.subject} process`,
        {
          kind: SpanKind.CONSUMER,
          parent,
          attributes: {
            'messaging.system': 'nats',
            'messaging.consumer.group.name': opts.durable,
            'messaging.message.id': event.id,
          },
        },
        async () => {
          const started = process.hrtime.bigint();
          const timed = () =>
            eventHandlerDuration.observe({ ...consumerLabels, event: event.event }, secondsSince(started));
          try {
            await opts.handler(event, { deliveryCount: msg.info.deliveryCount, subject: msg.subject });
            timed();
            if (bookkeeping) await opts.processed!.add(opts.durable, event.id);
            msg.ack();
            counted(event, 'acked');
          } catch (err) {
            timed();
            const attempt = msg.info.deliveryCount;
            if (attempt >= maxAttempts) return deadLetter(msg, (err as Error).message, event);
            counted(event, 'retried');
            const delay = backoff[Math.min(attempt - 1, backoff.length - 1)]!;
            opts.logger.warn(
              { err, event: event.event, id: event.id, attempt, retryInMs: delay },
              'event handler failed; will retry',
            );
            msg.nak(delay);
          }
        },
      ),
    );
  };

  const inFlight = new Set<Promise<void>>();
  // the last task of each ordering key: the next event with that key starts after it
  const tails = new Map<string, Promise<void>>();
  const loop = (async () => {
    for await (const msg of messages) {
      const event = parse(msg);
      const key = event instanceof Error ? undefined : opts.orderingKey?.(event);
      const run = () =>
        handle(msg, event).catch((err) => {
          opts.logger.error({ err, subject: msg.subject }, 'event consumer failure');
          msg.nak(backoff[0]);
        });
      const previous = key === undefined ? undefined : tails.get(key);
      const task: Promise<void> = (previous ? previous.then(run) : run()).finally(() => {
        inFlight.delete(task);
        if (key !== undefined && tails.get(key) === task) tails.delete(key);
      });
      if (key !== undefined) tails.set(key, task);
      inFlight.add(task);
      if (inFlight.size >= concurrency) await Promise.race(inFlight);
    }
  })();

  return {
    async stop() {
      unregisterLag();
      await messages.close();
      await loop.catch(() => undefined);
      await Promise.allSettled(inFlight); // the messages already taken finish (and are acked)
    },
  };
}
