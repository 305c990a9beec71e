/**
 * Values read when Prometheus scrapes rather than counted on the hot path: consumer lag (a JetStream
 * request per consumer), the load shedder's counters, the outbox's oldest staged event. Each owner
 * registers a reader and removes it when it stops.
 */

export interface ConsumerLag {
  pending: number;
  ackPending: number;
}

interface Source<T> {
  labels: Record<string, string>;
  read: () => T;
}

export const consumerLagSources = new Set<Source<Promise<ConsumerLag>>>();
export const shedderSources = new Set<Source<{ shed: number; limit: number }>>();
export const outboxSources = new Set<Source<number | undefined>>();

function add<T>(set: Set<Source<T>>, source: Source<T>): () => void {
  set.add(source);
  return () => void set.delete(source);
}

/** Consumer lag read at scrape (e.g. from `jsm.consumers.info`); returns the unregister function. */
export const registerConsumerLag = (
  service: string,
  consumer: string,
  read: () => Promise<ConsumerLag>,
): (() => void) => add(consumerLagSources, { labels: { service, consumer }, read });

/** A load shedder's running count of shed requests and its current limit. */
export const registerShedder = (service: string, read: () => { shed: number; limit: number }): (() => void) =>
  add(shedderSources, { labels: { service }, read });

/** The outbox relay's oldest unpublished event, as its age in seconds (undefined: none known). */
export const registerOutbox = (service: string, read: () => number | undefined): (() => void) =>
  add(outboxSources, { labels: { service }, read });

/** A JetStream stream's fill and limits (-1: no limit), from stream info. */
export interface StreamUsage {
  messages: number;
  bytes: number;
  maxMessages: number;
  maxBytes: number;
}

export const streamUsageSources = new Set<Source<Promise<StreamUsage>>>();

/**
 * A stream read at scrape (`kind`: events or dead_letter); every consumer registers the streams it
 * uses, so several sources may name one stream: they read the same values.
 */
export const registerStreamUsage = (
  service: string,
  stream: string,
  kind: 'events' | 'dead_letter',
  read: () => Promise<StreamUsage>,
): (() => void) => add(streamUsageSources, { labels: { service, stream, kind }, read });

export interface WebhookState {
  circuitsOpen: number;
  retriesQueued: number;
}

export const webhookStateSources = new Set<Source<Promise<WebhookState>>>();

/** Webhook endpoints with an open circuit and deliveries waiting for a retry (database counts). */
export const registerWebhookState = (read: () => Promise<WebhookState>): (() => void) =>
  add(webhookStateSources, { labels: {}, read });
