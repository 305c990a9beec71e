import { uniqueName } from './infrastructure';

/**
 * Environment for running services in-process in a test: free ports, an isolated event stream
 * and database names of their own, quiet logs. Pass it to a service's loadServiceConfig().
 */
export function isolatedServiceEnv(overrides: Record<string, string> = {}): Record<string, string> {
  const tag = uniqueName('t');
  const env: Record<string, string> = {
    NODE_ENV: 'test',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    EVENTS_STREAM: tag.toUpperCase(),
    EVENTS_SUBJECT_PREFIX: tag.toLowerCase(),
    SHUTDOWN_GRACE_MS: '1000',
    GATEWAY_METRICS_PORT: '0',
    // the gateway's budgets per test: every test calls from 127.0.0.1, and the sign-up and sign-in
    // budgets per address would otherwise be shared by every test file of the run
    RATE_LIMIT_PREFIX: `${tag}-rl`,
    // the gateway's kept Idempotency-Key answers, removed with the test's other keys
    IDEMPOTENCY_PREFIX: `${tag}-idem`,
    // a stack started by start-stack.js runs its services at the gateway's priority in tests: on a
    // machine busy with other work (CI, two busy loops) niced services miss their deadlines (504)
    LINGUA_BACKEND_NICE: '0',
    // the AI's language data is read on first use: a test stack that never asks the AI would
    // otherwise spend a core for seconds reading it in the background, slowing what the test calls
    AI_PRELOAD_LANGUAGE_DATA: 'false',
  };
  for (const svc of ['IDENTITY', 'FLASHCARDS', 'SUBSCRIPTIONS', 'AI', 'NOTIFICATIONS']) {
    env[`${svc}_HTTP_PORT`] = '0';
    env[`${svc}_GRPC_PORT`] = '0';
    env[`${svc}_METRICS_PORT`] = '0';
    env[`${svc}_MONGO_DB`] = `${tag}_${svc.toLowerCase()}`;
  }
  for (const key of ['MONGO_URL', 'NATS_URL', 'REDIS_URL'])
    if (process.env[key]) env[key] = process.env[key]!;
  return { ...env, ...overrides };
}
