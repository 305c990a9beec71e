export { mongoUrl, natsUrl, redisUrl, uniqueName, silentLogger } from './infrastructure';
export { waitFor } from './wait-for';
export { TestClock } from './test-clock';
export { startNatsServer } from './nats-server';
export { startFerretDb, ferretDbBinary } from './ferretdb-server';
export { freePort, waitForPort, startRestartableProcess } from './restartable-process';
export { isolatedServiceEnv } from './service-env';
