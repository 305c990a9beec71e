export { capturedLogger, mongoUrl, natsUrl, redisUrl, uniqueName, silentLogger } from './infrastructure';
export { waitFor } from './wait-for';
export { TestClock } from './test-clock';
export { startNatsServer } from './nats-server';
export { startFerretDb, ferretDbBinary, documentDbUrl } from './ferretdb-server';
export {
  freePort,
  freePortRun,
  ephemeralRange,
  waitForPort,
  startRestartableProcess,
  startPrivateRedis,
} from './restartable-process';
export { isolatedServiceEnv } from './service-env';
export { httpCall } from './http-call';
export type { HttpReply, HttpCallOptions } from './http-call';
export { assertionHeaders, forwardedByGateway, signTestCaller, signTestToken } from './test-token';
export type { AssertionTarget, TestToken } from './test-token';
export { nginxBinary, startNginxIngress } from './nginx-server';
export { startTcpProxy } from './tcp-proxy';
export type { TcpProxy } from './tcp-proxy';
