export { EVENT_NAMES, PUBLIC_EVENT_NAMES } from './event-names';
export type { EventName } from './event-names';
export {
  EVENT_DATA_SCHEMAS,
  EventEnvelope,
  makeEvent,
  parseEvent,
  EVENT_SCHEMA_VERSION,
  MAX_EVENT_CLOCK_SKEW_MS,
  isFromTheFuture,
} from './event-envelope';
export type { EventData, DomainEvent, AnyDomainEvent } from './event-envelope';
export { sealAccountMail, openAccountMail } from './sealed-mail';
export type { AccountMail } from './sealed-mail';
