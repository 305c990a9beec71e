export { registry, metricsText, METRICS_CONTENT_TYPE } from './registry';
export * from './catalogue';
export { methodLabel, statusClass, grpcCodeLabel, GRPC_CODE_NAMES } from './labels';
export { instrumentHttp, captureRouteTemplates, routeTemplateOf, UNMATCHED_ROUTE } from './http-metrics';
export { FastGauge, FastHistogram } from './fast-metrics';
export type { HistogramSeries } from './fast-metrics';
export { startMetricsServer } from './metrics-server';
export type { RunningMetricsServer } from './metrics-server';
export {
  registerConsumerLag,
  registerShedder,
  registerOutbox,
  registerStreamUsage,
  registerWebhookState,
} from './sources';
export type { ConsumerLag, StreamUsage, WebhookState } from './sources';
export { secondsSince } from './timer';
