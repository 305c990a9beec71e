export { HealthRegistry } from './health-registry';
export type { HealthCheck, HealthReport, CheckResult, CheckStatus } from './health-registry';
