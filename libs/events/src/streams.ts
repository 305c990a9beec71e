import { type JetStreamManager, RetentionPolicy, StorageType } from '@nats-io/jetstream';
import type { EventName } from '@lingua/contracts';

export interface EventBusConfig {
  /** Stream holding every domain event. */
  streamName: string;
  /** Subjects are `<prefix>.<event name>`; the stream captures `<prefix>.>`. */
  subjectPrefix: string;
  /** Window in which a repeated Nats-Msg-Id is dropped by the server. */
  duplicateWindowMs: number;
  /** Events older than this are removed from the stream. */
  maxAgeMs: number;
  /**
   * Dead letters older than this are removed (default 365 days): long enough for an incident to be
   * explained and the letters replayed (`npm run events:replay`), whatever the events' own retention.
   */
  deadLetterMaxAgeMs: number;
  /** Size limit of each stream in bytes; the oldest events go first beyond it. -1: no limit. */
  maxBytes: number;
  /** Copies of each stream in a JetStream cluster (1 on a single server; 3 in production). */
  replicas: number;
}

export function eventBusConfig(overrides: Partial<EventBusConfig> = {}): EventBusConfig {
  return {
    streamName: 'EVENTS',
    subjectPrefix: 'events',
    duplicateWindowMs: 2 * 60_000,
    maxAgeMs: 7 * 24 * 3600_000,
    deadLetterMaxAgeMs: 365 * 24 * 3600_000,
    maxBytes: -1,
    replicas: 1,
    ...overrides,
  };
}

/**
 * Events kept in a stream of their own, `<stream>_ACTIVITY` (subjects `<prefix>_activity.<name>`):
 * frequent learning activity must not fill a size-limited stream and push the account and
 * subscription events (user.deleted, subscription.*) out of it before their consumers read them.
 */
export const ACTIVITY_EVENTS: ReadonlySet<EventName> = new Set<EventName>(['card.reviewed']);
export const activityStreamFor = (cfg: EventBusConfig) => `${cfg.streamName}_ACTIVITY`;
/** The stream an event is published to. */
export const streamFor = (cfg: EventBusConfig, event: EventName) =>
  ACTIVITY_EVENTS.has(event) ? activityStreamFor(cfg) : cfg.streamName;
/** An event's subject; `>` is every event of the main stream. */
export const subjectFor = (cfg: EventBusConfig, event: EventName | '>') =>
  event !== '>' && ACTIVITY_EVENTS.has(event)
    ? `${cfg.subjectPrefix}_activity.${event}`
    : `${cfg.subjectPrefix}.${event}`;
export const deadLetterSubjectFor = (cfg: EventBusConfig, durable: string) =>
  `${cfg.subjectPrefix}_dlq.${durable}`;
/** The stream holding every consumer's dead letters, `<stream>_DLQ`. */
export const deadLetterStreamFor = (cfg: EventBusConfig) => `${cfg.streamName}_DLQ`;

const ms = (n: number) => n * 1_000_000; // JetStream durations are nanoseconds

/**
 * Creates the event stream, the activity stream and the dead-letter stream, or updates them to the configured limits
 * (max age, max bytes, replicas); safe to call from every replica at every boot (the streams are
 * owned by code, not by deploy files, so every service must be given the same limits).
 *
 * A stream that already has this configuration is left alone (no update request). Under least
 * privilege (docs/adr/0019) a service may read and create its streams but not update them: an
 * update it is refused is reported through `onUpdateRefused` and the boot goes on with the stream as
 * it is; the operator's NATS user applies changed limits.
 */
export async function ensureStreams(
  jsm: JetStreamManager,
  cfg: EventBusConfig,
  options: { onUpdateRefused?: (stream: string, err: Error) => void } = {},
): Promise<void> {
  const streams = [
    {
      name: cfg.streamName,
      subjects: [`${cfg.subjectPrefix}.>`],
      duplicate_window: ms(cfg.duplicateWindowMs),
      max_age: ms(cfg.maxAgeMs),
    },
    {
      name: activityStreamFor(cfg),
      subjects: [`${cfg.subjectPrefix}_activity.>`],
      duplicate_window: ms(cfg.duplicateWindowMs),
      max_age: ms(cfg.maxAgeMs),
    },
    {
      name: deadLetterStreamFor(cfg),
      subjects: [`${cfg.subjectPrefix}_dlq.>`],
      duplicate_window: ms(cfg.duplicateWindowMs),
      max_age: ms(cfg.deadLetterMaxAgeMs),
    },
  ];
  for (const s of streams) {
    const config = {
      ...s,
      retention: RetentionPolicy.Limits,
      storage: StorageType.File,
      max_bytes: cfg.maxBytes,
      num_replicas: cfg.replicas,
    };
    let current: Record<string, unknown> | undefined;
    try {
      current = (await jsm.streams.info(s.name)).config as unknown as Record<string, unknown>;
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    if (current) {
      if (sameConfig(current, config)) continue;
      try {
        await jsm.streams.update(s.name, config);
      } catch (err) {
        if (!options.onUpdateRefused) throw err;
        options.onUpdateRefused(s.name, err as Error);
      }
      continue;
    }
    try {
      await jsm.streams.add(config);
    } catch (addErr) {
      // another replica created it between our info and add
      if (!/already in use|already exists/i.test(String((addErr as Error).message))) throw addErr;
    }
  }
}

/** Whether the stream already has every setting this code gives it. */
function sameConfig(current: Record<string, unknown>, wanted: Record<string, unknown>): boolean {
  return Object.entries(wanted).every(([k, v]) => JSON.stringify(current[k]) === JSON.stringify(v));
}

function isNotFound(err: unknown): boolean {
  return /not found/i.test(String((err as Error)?.message));
}
