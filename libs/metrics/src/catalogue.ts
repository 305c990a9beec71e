import { Counter, Gauge, Histogram } from 'prom-client';
import { FastGauge, FastHistogram } from './fast-metrics';
import { registry } from './registry';
import {
  type ConsumerLag,
  consumerLagSources,
  outboxSources,
  shedderSources,
  type StreamUsage,
  streamUsageSources,
  type WebhookState,
  webhookStateSources,
} from './sources';

/*
 * Every metric family of the system, in one place, so names stay consistent and the operations
 * guide (docs/operations/metrics.md) has one list to follow. Conventions (prometheus.io naming):
 * `lingua_` namespace, base units (`_seconds`, `_bytes`), counters end in `_total`, and labels take
 * values from small fixed sets only: route templates (never paths or ids), event names (never
 * subjects, which carry a per-deployment prefix), status classes, outcomes.
 *
 * The `service` label names the deployable that emitted the series. Prometheus would put it on the
 * target, but several services can share one process (the in-process test stack), and a label
 * named here survives any scrape configuration (annotations, ServiceMonitors, static configs).
 */

const registers = [registry];

/** Latency buckets (seconds) around the spec's 200 ms target and our 50-100 ms norms. */
export const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.2, 0.3, 0.5, 1, 2.5, 5, 10];
/** Background work (event handlers, webhook attempts, provider calls) is slower and wider. */
export const WORK_BUCKETS = [0.005, 0.025, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

// ---- HTTP server (every process) -----------------------------------------------------------------
/** Requests and their duration, from one observation per request (fast-metrics.ts: no per-request hashing). */
export const httpServer = new FastHistogram(registry, {
  name: 'lingua_http_server_request_duration_seconds',
  help: 'Time from the request reaching the server to the response being written, by route template, method and status class.',
  labelNames: ['service', 'route', 'method', 'status_class'],
  buckets: LATENCY_BUCKETS,
  counter: {
    name: 'lingua_http_server_requests_total',
    help: 'HTTP requests answered, by route template, method and status class.',
  },
});
export const httpInFlight = new FastGauge(registry, {
  name: 'lingua_http_server_requests_in_flight',
  help: 'HTTP requests being handled now.',
  labelNames: ['service'],
});

// ---- gRPC server (services) ------------------------------------------------------------------------
export const grpcHandled = new Counter({
  name: 'lingua_grpc_server_handled_total',
  help: 'Unary gRPC calls completed, by method and status code.',
  labelNames: ['service', 'grpc_service', 'grpc_method', 'grpc_code'] as const,
  registers,
});
export const grpcDuration = new Histogram({
  name: 'lingua_grpc_server_handling_seconds',
  help: 'Time a unary gRPC call took from receipt to response.',
  labelNames: ['service', 'grpc_service', 'grpc_method'] as const,
  buckets: LATENCY_BUCKETS,
  registers,
});
export const grpcInFlight = new Gauge({
  name: 'lingua_grpc_server_calls_in_flight',
  help: 'Unary gRPC calls being handled now.',
  labelNames: ['service'] as const,
  registers,
});

// ---- gateway ---------------------------------------------------------------------------------------
export const upstreamDuration = new FastHistogram(registry, {
  name: 'lingua_gateway_upstream_request_duration_seconds',
  help: 'Time from sending a request to a service to its response headers, by service and status class.',
  labelNames: ['upstream', 'status_class'],
  buckets: LATENCY_BUCKETS,
});
export const upstreamErrors = new Counter({
  name: 'lingua_gateway_upstream_errors_total',
  help: 'Requests to a service that got no response (timeout, refused, reset), by service and reason.',
  labelNames: ['upstream', 'reason'] as const,
  registers,
});
export const upstreamRetries = new Counter({
  name: 'lingua_gateway_upstream_retries_total',
  help: 'Requests sent to a service a second time after their connection failed (idempotent or refused), by service.',
  labelNames: ['upstream'] as const,
  registers,
});
export const rateLimited = new Counter({
  name: 'lingua_gateway_rate_limited_total',
  help: 'Requests refused with 429 by the rate limiter, by plan.',
  labelNames: ['plan'] as const,
  registers,
});
export const admittedOnCredit = new Counter({
  name: 'lingua_gateway_admitted_on_credit_total',
  help: 'Requests admitted before Redis counted them (the caller had plenty of budget left; the point is taken behind the request).',
  registers,
});
export const authFailures = new Counter({
  name: 'lingua_gateway_auth_failures_total',
  help: 'Requests refused at the edge by authentication or authorisation, by error code.',
  labelNames: ['code'] as const,
  registers,
});

// ---- load shedding (every process) -----------------------------------------------------------------
export const shedRequests = new Counter({
  name: 'lingua_http_server_requests_shed_total',
  help: 'Requests refused with 503 by the adaptive concurrency limit before any work.',
  labelNames: ['service'] as const,
  registers,
  // the shedder keeps its own running count (no extra work per shed request); copied at scrape
  collect() {
    this.reset();
    for (const s of shedderSources) this.inc(s.labels, s.read().shed);
  },
});
export const concurrencyLimit = new Gauge({
  name: 'lingua_http_server_concurrency_limit',
  help: 'Current adaptive concurrency limit (requests in flight allowed).',
  labelNames: ['service'] as const,
  registers,
  collect() {
    this.reset();
    for (const s of shedderSources) this.set(s.labels, s.read().limit);
  },
});

/**
 * One round of consumer-info requests shared by the two lag gauges of a scrape (prom-client collects
 * families concurrently); a consumer whose info fails is left out rather than failing the scrape.
 */
let lagRound: Promise<[Record<string, string>, ConsumerLag][]> | undefined;
function readLag(): Promise<[Record<string, string>, ConsumerLag][]> {
  lagRound ??= Promise.all(
    [...consumerLagSources].map(async (s) => {
      try {
        return [[s.labels, await s.read()] as [Record<string, string>, ConsumerLag]];
      } catch {
        return [];
      }
    }),
  )
    .then((rows) => rows.flat())
    .finally(() => setImmediate(() => (lagRound = undefined)));
  return lagRound;
}

// ---- events (services) -----------------------------------------------------------------------------
export const eventsPublished = new Counter({
  name: 'lingua_events_published_total',
  help: 'Events published to JetStream, by event name and outcome (ok, duplicate, error).',
  labelNames: ['service', 'event', 'outcome'] as const,
  registers,
});
export const eventsConsumed = new Counter({
  name: 'lingua_events_consumed_total',
  help: 'Event deliveries handled by a durable consumer, by outcome (acked, skipped, retried, dead_lettered).',
  labelNames: ['service', 'consumer', 'event', 'outcome'] as const,
  registers,
});
export const eventsRedelivered = new Counter({
  name: 'lingua_events_redelivered_total',
  help: 'Deliveries that were not the first for their message (a retry or an expired ack wait).',
  labelNames: ['service', 'consumer', 'event'] as const,
  registers,
});
export const eventsDeadLettered = new Counter({
  name: 'lingua_events_dead_lettered_total',
  help: 'Events copied to the dead-letter stream and terminated.',
  labelNames: ['service', 'consumer', 'event'] as const,
  registers,
});
export const eventHandlerDuration = new Histogram({
  name: 'lingua_events_handler_duration_seconds',
  help: 'Time an event handler took, successful or not.',
  labelNames: ['service', 'consumer', 'event'] as const,
  buckets: WORK_BUCKETS,
  registers,
});
export const consumerPending = new Gauge({
  name: 'lingua_events_consumer_pending_messages',
  help: 'Messages in the stream not yet delivered to the durable consumer (JetStream num_pending), read at scrape.',
  labelNames: ['service', 'consumer'] as const,
  registers,
  async collect() {
    this.reset();
    for (const [labels, lag] of await readLag()) this.set(labels, lag.pending);
  },
});
export const consumerAckPending = new Gauge({
  name: 'lingua_events_consumer_ack_pending_messages',
  help: 'Messages delivered to the durable consumer and not yet acknowledged (JetStream num_ack_pending).',
  labelNames: ['service', 'consumer'] as const,
  registers,
  async collect() {
    this.reset();
    for (const [labels, lag] of await readLag()) this.set(labels, lag.ackPending);
  },
});
/** One round of stream-info requests per scrape, shared by the stream gauges; one per stream name. */
let streamRound: Promise<[Record<string, string>, StreamUsage][]> | undefined;
function readStreams(): Promise<[Record<string, string>, StreamUsage][]> {
  streamRound ??= (async () => {
    const byStream = new Map<string, { labels: Record<string, string>; read: () => Promise<StreamUsage> }>();
    for (const s of streamUsageSources) byStream.set(`${s.labels.service}|${s.labels.stream}`, s);
    const rows = await Promise.all(
      [...byStream.values()].map(async (s) => {
        try {
          return [[s.labels, await s.read()] as [Record<string, string>, StreamUsage]];
        } catch {
          return [];
        }
      }),
    );
    return rows.flat();
  })().finally(() => setImmediate(() => (streamRound = undefined)));
  return streamRound;
}
const streamGauge = (name: string, help: string, pick: (u: StreamUsage) => number) =>
  new Gauge({
    name,
    help,
    labelNames: ['service', 'stream', 'kind'] as const,
    registers,
    async collect() {
      this.reset();
      for (const [labels, usage] of await readStreams()) this.set(labels, pick(usage));
    },
  });
export const streamMessages = streamGauge(
  'lingua_events_stream_messages',
  'Messages in a JetStream stream (kind: events, dead_letter), read at scrape.',
  (u) => u.messages,
);
export const streamBytes = streamGauge(
  'lingua_events_stream_bytes',
  'Bytes stored in a JetStream stream, read at scrape.',
  (u) => u.bytes,
);
export const streamMaxMessages = streamGauge(
  'lingua_events_stream_max_messages',
  "A stream's message limit (-1: none); beyond it the oldest messages are discarded.",
  (u) => u.maxMessages,
);
export const streamMaxBytes = streamGauge(
  'lingua_events_stream_max_bytes',
  "A stream's size limit in bytes (-1: none); beyond it the oldest messages are discarded.",
  (u) => u.maxBytes,
);
export const outboxOldestAge = new Gauge({
  name: 'lingua_outbox_oldest_pending_age_seconds',
  help: 'Age of the oldest staged event the outbox relay last saw unpublished; 0 when none is known.',
  labelNames: ['service'] as const,
  registers,
  collect() {
    this.reset();
    for (const s of outboxSources) this.set(s.labels, s.read() ?? 0);
  },
});

// ---- webhooks (notifications) ------------------------------------------------------------------------
export const webhookDeliveries = new Counter({
  name: 'lingua_webhook_deliveries_total',
  help: 'Webhook POSTs sent, by outcome (delivered: 2xx; http_error: any other status; network_error: no answer).',
  labelNames: ['outcome'] as const,
  registers,
});
export const webhookAttemptDuration = new Histogram({
  name: 'lingua_webhook_attempt_duration_seconds',
  help: 'Time one webhook POST took, by outcome.',
  labelNames: ['outcome'] as const,
  buckets: WORK_BUCKETS,
  registers,
});
/** Both webhook gauges come from one read of the owner's counts per scrape. */
let webhookRound: Promise<WebhookState | undefined> | undefined;
function readWebhookState(): Promise<WebhookState | undefined> {
  webhookRound ??= Promise.all([...webhookStateSources].map((s) => s.read().catch(() => undefined)))
    .then((states) => {
      const known = states.filter((s): s is WebhookState => s !== undefined);
      if (known.length === 0) return undefined;
      return {
        circuitsOpen: Math.max(...known.map((s) => s.circuitsOpen)),
        retriesQueued: Math.max(...known.map((s) => s.retriesQueued)),
      };
    })
    .finally(() => setImmediate(() => (webhookRound = undefined)));
  return webhookRound;
}
export const webhookCircuitsOpen = new Gauge({
  name: 'lingua_webhook_circuits_open',
  help: 'Webhook endpoints whose circuit is open now (deliveries paused after repeated failures).',
  registers,
  async collect() {
    const state = await readWebhookState();
    if (state) this.set(state.circuitsOpen);
  },
});
export const webhookRetriesQueued = new Gauge({
  name: 'lingua_webhook_retries_queued',
  help: 'Webhook deliveries pending a later attempt after a failed one.',
  registers,
  async collect() {
    const state = await readWebhookState();
    if (state) this.set(state.retriesQueued);
  },
});

// ---- study reminders and push (flashcards decides, notifications says: ADR 0028) -------------------
export const remindersEligible = new Counter({
  name: 'lingua_reminders_eligible_total',
  help: 'Study reminders that fell due for a user who had not studied enough that day (announced to be sent).',
  registers,
});
export const remindersSkipped = new Counter({
  name: 'lingua_reminders_skipped_total',
  help: 'Study reminders not sent, by reason (late: not out within an hour of its time; goal_met; already_reminded: that local day; no_account; no_channel).',
  labelNames: ['reason'] as const,
  registers,
});
export const remindersSent = new Counter({
  name: 'lingua_reminders_sent_total',
  help: 'Study reminders said, by channel (push, email, or in_app alone); in-app always.',
  labelNames: ['channel'] as const,
  registers,
});
export const remindersFailed = new Counter({
  name: 'lingua_reminders_failed_total',
  help: 'Study reminders whose push or e-mail failed after every retry (the in-app one stays), by channel.',
  labelNames: ['channel'] as const,
  registers,
});
export const pushRequests = new Counter({
  name: 'lingua_push_requests_total',
  help: 'Messages handed to a push provider, by provider (apns, fcm, sink) and final outcome (sent, unregistered, invalid, retry, failed).',
  labelNames: ['provider', 'outcome'] as const,
  registers,
});
export const pushDuration = new Histogram({
  name: 'lingua_push_duration_seconds',
  help: 'Time from handing a message to a push provider to its final outcome (retries included), by provider.',
  labelNames: ['provider'] as const,
  buckets: WORK_BUCKETS,
  registers,
});

// ---- identity ---------------------------------------------------------------------------------------
export const logins = new Counter({
  name: 'lingua_identity_logins_total',
  help: 'Password sign-in attempts, by outcome (success, invalid_credentials, locked, error).',
  labelNames: ['outcome'] as const,
  registers,
});
export const lockouts = new Counter({
  name: 'lingua_identity_lockouts_total',
  help: 'Accounts locked after repeated failed sign-ins.',
  registers,
});

export const passwordHashDuration = new Histogram({
  name: 'lingua_identity_password_hash_duration_seconds',
  help: 'Time a bcrypt hash or comparison took, waiting for a libuv pool thread included (the queue shows as growth over the cost alone).',
  labelNames: ['operation'] as const,
  buckets: [0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1, 1.5, 2.5, 5],
  registers,
});

// ---- ai --------------------------------------------------------------------------------------------
export const aiProviderCalls = new Counter({
  name: 'lingua_ai_provider_calls_total',
  help: 'Calls to the AI provider, by provider, operation and outcome (ok, error).',
  labelNames: ['provider', 'operation', 'outcome'] as const,
  registers,
});
export const aiProviderDuration = new Histogram({
  name: 'lingua_ai_provider_call_duration_seconds',
  help: 'Time a call to the AI provider took.',
  labelNames: ['provider', 'operation'] as const,
  buckets: WORK_BUCKETS,
  registers,
});

export const aiCacheLookups = new Counter({
  name: 'lingua_ai_cache_lookups_total',
  help: 'Analysis-cache look-ups, by result (hit, miss); the hit ratio is hit / all.',
  labelNames: ['result'] as const,
  registers,
});
export const aiQuotaRejections = new Counter({
  name: 'lingua_ai_quota_rejections_total',
  help: 'AI requests refused because the caller spent their quota, by feature.',
  labelNames: ['feature'] as const,
  registers,
});

// ---- subscriptions ------------------------------------------------------------------------------------
export const receiptVerifications = new Counter({
  name: 'lingua_subscriptions_verifications_total',
  help: 'Store receipt or transaction verifications, by store and outcome (valid, invalid, error).',
  labelNames: ['store', 'outcome'] as const,
  registers,
});
