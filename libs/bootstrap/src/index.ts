export { serviceEnv, DEV_JWT_SECRET, DEV_EMAIL_LINK_KEY, emailLinkKeyEnv } from './service-env';
export type { ServiceEnv } from './service-env';
export { grpcCallersEnv, grpcSigningKeyEnv } from './grpc-call-env';
export { startService } from './start-service';
export type {
  ServiceDefinition,
  ServiceDeps,
  RunningService,
  ConsumerDefinition,
  BackgroundWorker,
} from './start-service';
export { runMain } from './run-main';
export { periodicTask } from './periodic-task';
export type { PeriodicTask } from './periodic-task';
