export { createLogger, REDACTED_PATHS } from './logger';
export type { Logger } from './logger';
export {
  requestContext,
  runWithRequestContext,
  currentRequestContext,
  remainingMs,
  budgetMs,
  throwIfAbandoned,
} from './request-context';
export type { RequestContext } from './request-context';
