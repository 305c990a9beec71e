export { connectNats, natsCredentials } from './nats-connection';
export type { NatsHandle } from './nats-connection';
export {
  ACTIVITY_EVENTS,
  activityStreamFor,
  ensureStreams,
  eventBusConfig,
  streamFor,
  subjectFor,
  deadLetterStreamFor,
  deadLetterSubjectFor,
} from './streams';
export type { EventBusConfig } from './streams';
export { createEventPublisher } from './publisher';
export type { EventPublisher, PublishOptions } from './publisher';
export {
  consumerStreamFor,
  DEFAULT_BACKOFF_MS,
  REPLAY_FOR_HEADER,
  retryDelayMs,
  startDurableConsumer,
} from './durable-consumer';
export type { ConsumerOptions, RunningConsumer, EventHandler } from './durable-consumer';
export { mongoProcessedEvents, PROCESSED_EVENTS_COLLECTION } from './processed-events';
export type { ProcessedEvents } from './processed-events';
export { outboxFields, stageEvents, OutboxRelay } from './outbox';
export type { OutboxEntry, OutboxRelayOptions, OutboxHint } from './outbox';
export { classifyFailure, isFromANewerProducer, PermanentEventError } from './failures';
export type { FailureKind } from './failures';
