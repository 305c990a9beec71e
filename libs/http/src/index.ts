export { accessLog, accessLogger, DEFAULT_QUIET_PATHS } from './access-log';
export type { AccessLogOptions } from './access-log';
export { createApp, finishApp, DEFAULT_DEADLINE } from './create-app';
export type { CreateAppOptions } from './create-app';
export { envelopeStyleFor, API_VERSION } from './envelope-style';
export type { EnvelopeStyle } from './envelope-style';
export {
  successBody,
  successText,
  errorBody,
  errorBodyForPath,
  sendSuccess,
  sendSuccessJson,
} from './envelopes';
export { toAppError, errorHandler, notFoundHandler, isDependencyOutage } from './error-handler';
export { requestIdMiddleware, REQUEST_ID_HEADER, CORRELATION_ID_HEADER } from './request-id';
export { startHttpServer } from './start-http-server';
export { bootingListener } from './booting-listener';
export { clientAddressFor, trustProxyEnv } from './trust-proxy';
export type { TrustProxy } from './trust-proxy';
export type { RunningHttpServer } from './start-http-server';
export { inServerSpan, tracingMiddleware } from './tracing-middleware';
export {
  deadlineMiddleware,
  DEADLINE_HEADER,
  deadlineExceeded,
  requestBudgetMs,
  wasAbandoned,
} from './deadline';
export type { DeadlineOptions } from './deadline';
export { adaptiveShedder, createLoadShedder, sheddingListener, answerShed, priorityOf } from './load-shedder';
export type { LoadShedder, LoadShedderOptions, Priority } from './load-shedder';
export { ignoreClientGone, sendImmutableFile } from './stream-out';
export {
  LANGUAGES,
  CATALOGUES,
  negotiateLanguage,
  currentLanguage,
  translate,
  formatPrice,
  localiseZodMessages,
} from './i18n';
export type { Language, MessageKey } from './i18n';
