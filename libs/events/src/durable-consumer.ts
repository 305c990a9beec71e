import { AckPolicy, DeliverPolicy, type JsMsg } from '@nats-io/jetstream';
import { headers as natsHeaders } from '@nats-io/nats-core';
import {
  type AnyDomainEvent,
  EVENT_NAMES,
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
  registerStreamUsage,
  secondsSince,
} from '@lingua/metrics';
import { extractTraceContext, SpanKind, withSpan } from '@lingua/telemetry';
import type { NatsHandle } from './nats-connection';
import type { ProcessedEvents } from './processed-events';
import { classifyFailure, type FailureKind, isFromANewerProducer } from './failures';
import {
  deadLetterStreamFor,
  deadLetterSubjectFor,
  type EventBusConfig,
  streamFor,
  subjectFor,
} from './streams';

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
  /**
   * Deterministic failures (see classifyFailure) before the message goes to the dead-letter stream,
   * counted by this consumer, not by the server's delivery count. Infrastructure failures are never
   * counted: they are retried until the dependency is back.
   */
  maxAttempts?: number;
  /**
   * Delay before retry n; past the list, the last value doubles at each retry up to maxBackoffMs.
   * Paced by the server's delivery count, so the pace survives restarts and moves between replicas.
   */
  backoffMs?: number[];
  /** The longest delay between two retries of an event (default 60 s). */
  maxBackoffMs?: number;
  /**
   * How long an event this build cannot read because a newer producer wrote it (an unknown event
   * name or enum value, as during a rolling deploy) is retried before it is dead-lettered (default
   * 1 hour after it entered the stream).
   */
  unknownEventRetryMs?: number;
  /**
   * Validates a message into an event (default @lingua/contracts parseEvent, this build's schemas);
   * tests stand in a newer build's schemas with it.
   */
  parse?: (raw: unknown) => AnyDomainEvent;
  /** Overrides the classification of a handler's failure (default classifyFailure). */
  classifyFailure?: (err: unknown) => FailureKind;
  /**
   * How long the server waits for an ack before redelivering (a crashed handler). A message being
   * handled or waiting for a slot in this process is kept alive (`working()`) every third of it.
   */
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

/** Set by `npm run events:replay` on a re-published dead letter: the one durable that is to handle it. */
export const REPLAY_FOR_HEADER = 'x-replay-for';

/** Default schedule: 1 s, 5 s, 30 s, then 60 s (maxBackoffMs) for as long as the failure lasts. */
export const DEFAULT_BACKOFF_MS = [1_000, 5_000, 30_000];

/**
 * The delay before the retry that follows delivery `n` (1-based): the schedule, then its last value
 * doubled per further delivery, never above `maxMs`.
 */
export function retryDelayMs(n: number, schedule: number[] = DEFAULT_BACKOFF_MS, maxMs = 60_000): number {
  const list = schedule.length > 0 ? schedule : DEFAULT_BACKOFF_MS;
  const i = Math.max(0, n - 1);
  const base = i < list.length ? list[i]! : list[list.length - 1]! * 2 ** Math.min(30, i - list.length + 1);
  return Math.min(maxMs, base);
}

export interface RunningConsumer {
  stop(): Promise<void>;
}

const ns = (ms: number) => ms * 1_000_000;

/**
 * The one stream a consumer reads: the activity stream when all its events are there, else the main
 * stream (and `*` means every event of the main stream). Events of both in one consumer are refused.
 */
export function consumerStreamFor(cfg: EventBusConfig, events: EventName[] | '*'): string {
  if (events === '*') return cfg.streamName;
  const streams = new Set(events.map((e) => streamFor(cfg, e)));
  if (streams.size > 1)
    throw new Error(`a consumer reads one stream: ${events.join(', ')} are in ${[...streams].join(' and ')}`);
  return [...streams][0] ?? cfg.streamName;
}

async function ensureConsumer(nats: NatsHandle, cfg: EventBusConfig, opts: ConsumerOptions, stream: string) {
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
    await nats.jsm.consumers.info(stream, opts.durable);
  } catch (err) {
    if (!/not found/i.test(String((err as Error).message))) throw err;
    await nats.jsm.consumers.add(stream, config).catch((addErr: Error) => {
      if (!/already (in use|exists)/i.test(addErr.message)) throw addErr;
    });
    return;
  }
  // An existing durable keeps its position; a changed filter or ack wait is applied where the server
  // allows it (NATS 2.9 refuses some edits), and a refusal must not stop the service from booting.
  await nats.jsm.consumers
    .update(stream, opts.durable, { ack_wait: config.ack_wait, filter_subject: filter })
    .catch((err: Error) => opts.logger.warn({ err, durable: opts.durable }, 'consumer config not updated'));
}

/**
 * A durable pull consumer: the event is validated (a timestamp further ahead than clock skew
 * explains is refused like a malformed message), handled once (processed-event record, unless the
 * handler is idempotent on its own), acked; up to `concurrency` messages are handled at a time.
 *
 * Failures (docs/adr/0021-event-retry-and-dead-letters.md): an infrastructure failure (database,
 * Redis, network, timeout, or anything not known to be deterministic, the processed-event lookup
 * included) is retried with capped back-off for as long as it lasts and never dead-lettered; a
 * deterministic one (PermanentEventError, a validation error) is counted by this consumer and
 * dead-lettered after maxAttempts; a malformed message at once; an event from a newer producer
 * (unknown name or enum value) is retried for unknownEventRetryMs, then dead-lettered. Every message
 * taken from the server is kept alive until it is settled, so waiting for a slot never expires it.
 */
export async function startDurableConsumer(
  nats: NatsHandle,
  cfg: EventBusConfig,
  opts: ConsumerOptions,
): Promise<RunningConsumer> {
  const stream = consumerStreamFor(cfg, opts.events);
  await ensureConsumer(nats, cfg, opts, stream);
  const maxAttempts = opts.maxAttempts ?? 5;
  const backoff = opts.backoffMs ?? DEFAULT_BACKOFF_MS;
  const maxBackoffMs = opts.maxBackoffMs ?? 60_000;
  const delayAfter = (n: number) => retryDelayMs(n, backoff, maxBackoffMs);
  const unknownEventRetryMs = opts.unknownEventRetryMs ?? 3600_000;
  const classify = opts.classifyFailure ?? classifyFailure;
  const ackWaitMs = opts.ackWaitMs ?? 30_000;
  const wanted = opts.events === '*' ? undefined : new Set<string>(opts.events);
  const known = new Set<string>(Object.values(EVENT_NAMES));
  const concurrency = Math.max(1, opts.concurrency ?? 1);
  const idempotent = opts.idempotent ?? false;
  const recordsProcessed = (event: AnyDomainEvent) =>
    opts.processed && !(typeof idempotent === 'function' ? idempotent(event) : idempotent);
  const consumer = await nats.js.consumers.get(stream, opts.durable);
  // the client pulls ahead of the handlers; what it holds is kept alive below, so this only sizes a pull
  const messages = await consumer.consume({ max_messages: Math.max(16, concurrency * 2) });
  const service = opts.service ?? 'unknown';
  const consumerLabels = { service, consumer: opts.durable };
  // lag is asked of the server at scrape time, never per message
  const unregisterLag = registerConsumerLag(service, opts.durable, async () => {
    const info = await nats.jsm.consumers.info(stream, opts.durable);
    return { pending: info.num_pending, ackPending: info.num_ack_pending };
  });
  // the stream it reads and the dead letters, for the alerts before a stream discards and on dead letters
  const usage = (stream: string) => async () => {
    const { config, state } = await nats.jsm.streams.info(stream);
    return {
      messages: state.messages,
      bytes: state.bytes,
      maxMessages: config.max_msgs,
      maxBytes: config.max_bytes,
    };
  };
  const unregisterStreams = [
    registerStreamUsage(service, stream, 'events', usage(stream)),
    registerStreamUsage(service, deadLetterStreamFor(cfg), 'dead_letter', usage(deadLetterStreamFor(cfg))),
  ];
  const eventLabel = (event: AnyDomainEvent | Error) => (event instanceof Error ? 'malformed' : event.event);
  const counted = (event: AnyDomainEvent | Error, outcome: string) =>
    eventsConsumed.inc({ ...consumerLabels, event: eventLabel(event), outcome });
  const skewMs = opts.maxClockSkewMs ?? MAX_EVENT_CLOCK_SKEW_MS;
  const now = opts.now ?? (() => new Date());

  // Messages taken from the server and not yet acked, nak'd or terminated: while one waits for a
  // slot, for its ordering key or for a slow handler, the server is told it is being worked on, so
  // it is never redelivered (and its delivery count never grows) just for waiting.
  const unsettled = new Set<JsMsg>();
  const keepAlive = setInterval(
    () => {
      for (const msg of unsettled) tell(msg, () => msg.working());
    },
    Math.max(250, Math.floor(ackWaitMs / 3)),
  );
  keepAlive.unref();
  // an ack or a keep-alive on a closed connection throws: the server redelivers after the ack wait
  const tell = (msg: JsMsg, send: () => void) => {
    try {
      send();
    } catch (err) {
      opts.logger.warn({ err, seq: msg.seq }, 'event consumer could not reach the server');
    }
  };
  const settle = (msg: JsMsg, how: 'ack' | 'nak' | 'term', arg?: number | string) => {
    unsettled.delete(msg);
    if (how !== 'nak') failures.delete(msg.seq); // done with: its count goes too
    if (how === 'ack') tell(msg, () => msg.ack());
    else if (how === 'nak') tell(msg, () => msg.nak(arg as number | undefined));
    else tell(msg, () => msg.term(arg as string | undefined));
  };
  // Deterministic failures per stream sequence, counted here (not by the server's delivery count,
  // which also counts outages and expired ack waits). Bounded: the oldest entry goes first.
  const failures = new Map<number, number>();
  const countFailure = (seq: number) => {
    const n = (failures.get(seq) ?? 0) + 1;
    failures.delete(seq);
    failures.set(seq, n);
    if (failures.size > 10_000) failures.delete(failures.keys().next().value!);
    return n;
  };

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
    h.set('x-original-stream', stream);
    h.set('x-original-seq', String(msg.seq));
    h.set('x-consumer', opts.durable);
    h.set('x-delivery-count', String(msg.info.deliveryCount));
    h.set('x-failed-attempts', String(failures.get(msg.seq) ?? 1));
    await nats.js.publish(deadLetterSubjectFor(cfg, opts.durable), msg.data, {
      headers: h,
      msgID: `${opts.durable}:${stream}:${msg.seq}`,
    });
    settle(msg, 'term', reason);
    eventsDeadLettered.inc({ ...consumerLabels, event: eventLabel(event) });
    counted(event, outcome);
    opts.logger.error({ subject: msg.subject, seq: msg.seq, reason }, 'event dead-lettered');
  };

  const parse = (msg: JsMsg): AnyDomainEvent | Error => {
    try {
      return (opts.parse ?? parseEvent)(msg.json());
    } catch (err) {
      return err as Error;
    }
  };
  /** The event name the envelope claims, read without validating anything else. */
  const claimedName = (msg: JsMsg): string | undefined => {
    try {
      const name = (msg.json() as { event?: unknown })?.event;
      return typeof name === 'string' ? name : undefined;
    } catch {
      return undefined;
    }
  };

  /** A failure of the handler, the processed-event record or the bus: retried, or dead-lettered. */
  const failed = async (msg: JsMsg, event: AnyDomainEvent | Error, err: unknown) => {
    const name = event instanceof Error ? undefined : event.event;
    const kind = classify(err);
    const retryInMs = delayAfter(msg.info.deliveryCount);
    if (kind === 'deterministic') {
      const attempt = countFailure(msg.seq);
      if (attempt >= maxAttempts) return deadLetter(msg, (err as Error)?.message ?? String(err), event);
      counted(event, 'failed');
      opts.logger.warn(
        { err, event: name, seq: msg.seq, attempt, maxAttempts, retryInMs },
        'event handler failed; will retry, then dead-letter',
      );
    } else {
      counted(event, 'retried');
      opts.logger.warn(
        { err, event: name, seq: msg.seq, deliveryCount: msg.info.deliveryCount, retryInMs },
        'event not handled (infrastructure); will retry until it succeeds',
      );
    }
    settle(msg, 'nak', retryInMs);
  };

  const handle = async (msg: JsMsg, event: AnyDomainEvent | Error) => {
    if (msg.info.redelivered) eventsRedelivered.inc({ ...consumerLabels, event: eventLabel(event) });
    // a dead letter replayed (events:replay) is for the consumer that dead-lettered it; the others
    // handled the original already
    const replayFor = msg.headers?.get(REPLAY_FOR_HEADER);
    if (replayFor && replayFor !== opts.durable) return settle(msg, 'ack');
    if (event instanceof Error) {
      // an event this build does not know yet: the newer consumer rolling out will handle it
      const name = claimedName(msg);
      if (name !== undefined && known.has(name) && wanted && !wanted.has(name)) return settle(msg, 'ack');
      if (isFromANewerProducer(event)) {
        const ageMs = now().getTime() - msg.info.timestampNanos / 1e6;
        if (ageMs < unknownEventRetryMs) {
          counted(event, 'deferred');
          const retryInMs = delayAfter(msg.info.deliveryCount);
          opts.logger.warn(
            { event: name, seq: msg.seq, retryInMs, reason: event.message },
            'event from a newer producer (unknown name or value); will retry',
          );
          return settle(msg, 'nak', retryInMs);
        }
        return deadLetter(
          msg,
          `unknown event name or value after ${unknownEventRetryMs} ms: ${event.message}`,
          event,
        );
      }
      return deadLetter(msg, `malformed event: ${event.message}`, event);
    }
    if (wanted && !wanted.has(event.event)) return settle(msg, 'ack');
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
      return settle(msg, 'ack');
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
          } catch (err) {
            timed();
            return failed(msg, event, err);
          }
          if (bookkeeping) await opts.processed!.add(opts.durable, event.id);
          settle(msg, 'ack');
          counted(event, 'acked');
        },
      ),
    );
  };

  const inFlight = new Set<Promise<void>>();
  // taken from the server, waiting for a slot (kept alive meanwhile)
  const waiting: JsMsg[] = [];
  // the last task of each ordering key: the next event with that key starts after it
  const tails = new Map<string, Promise<void>>();
  const start = (msg: JsMsg) => {
    const event = parse(msg);
    const key = event instanceof Error ? undefined : opts.orderingKey?.(event);
    const run = () =>
      handle(msg, event).catch((err) =>
        // the processed-event record, the dead-letter publish: the same retry as a handler's failure
        failed(msg, event, err).catch((inner) => {
          opts.logger.error({ err: inner, subject: msg.subject }, 'event consumer failure');
          settle(msg, 'nak', delayAfter(msg.info.deliveryCount));
        }),
      );
    const previous = key === undefined ? undefined : tails.get(key);
    const task: Promise<void> = (previous ? previous.then(run) : run()).finally(() => {
      inFlight.delete(task);
      if (key !== undefined && tails.get(key) === task) tails.delete(key);
      fill();
    });
    if (key !== undefined) tails.set(key, task);
    inFlight.add(task);
  };
  let closing = false;
  const fill = () => {
    while (!closing && inFlight.size < concurrency && waiting.length > 0) start(waiting.shift()!);
  };
  const loop = (async () => {
    // never blocks on the handlers: the client's buffer is drained at once into `waiting`, where
    // every message is kept alive (a client-side buffer would let them reach the ack wait)
    for await (const msg of messages) {
      unsettled.add(msg);
      waiting.push(msg);
      fill();
    }
  })();

  return {
    async stop() {
      unregisterLag();
      for (const unregister of unregisterStreams) unregister();
      await messages.close();
      await loop.catch(() => undefined);
      closing = true;
      // not started: handed back at once, for another replica (or the next start) to take
      for (const msg of waiting.splice(0)) settle(msg, 'nak');
      await Promise.allSettled(inFlight); // the messages already taken finish (and are acked)
      clearInterval(keepAlive);
    },
  };
}
