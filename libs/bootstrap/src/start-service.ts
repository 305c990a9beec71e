import express, { type Express } from 'express';
import type { mongo } from 'mongoose';
import {
  connectNats,
  type ConsumerOptions,
  createEventPublisher,
  ensureStreams,
  type EventBusConfig,
  eventBusConfig,
  type EventPublisher,
  mongoProcessedEvents,
  type NatsHandle,
  OutboxRelay,
  type RunningConsumer,
  startDurableConsumer,
} from '@lingua/events';
import { createGrpcServer, type GrpcServer } from '@lingua/grpc';
import { HealthRegistry } from '@lingua/health';
import { adaptiveShedder, createApp, finishApp, startHttpServer } from '@lingua/http';
import { createLogger, type Logger } from '@lingua/logger';
import {
  captureRouteTemplates,
  instrumentHttp,
  registerShedder,
  startMetricsServer,
  UNMATCHED_ROUTE,
} from '@lingua/metrics';
import { connectMongo, type MongoHandle } from '@lingua/mongo';
import { connectRedis, type RedisHandle } from '@lingua/redis';
import { healthRoutes } from './health-routes';
import type { ServiceEnv } from './service-env';

export interface ServiceDeps<C extends ServiceEnv = ServiceEnv> {
  config: C;
  logger: Logger;
  mongo: MongoHandle;
  nats: NatsHandle;
  redis: RedisHandle | undefined;
  bus: EventBusConfig;
  publisher: EventPublisher;
  /** Call kick() after a write that staged events, so they go out at once. */
  outbox: OutboxRelay;
  health: HealthRegistry;
}

/** A durable consumer as a service declares it; the logger and processed-event store are supplied. */
export type ConsumerDefinition = Omit<ConsumerOptions, 'logger' | 'processed'>;

export interface ServiceDefinition<C extends ServiceEnv = ServiceEnv> {
  config: C;
  /** Redis is connected (and checked for readiness) only by services that use it. */
  useRedis?: boolean;
  /** Routes behind the gateway; health routes and the error mapper are added around them. */
  http?(app: Express, deps: ServiceDeps<C>): void;
  grpc?(server: GrpcServer, deps: ServiceDeps<C>): void;
  consumers?(deps: ServiceDeps<C>): ConsumerDefinition[];
  /** Collections whose documents carry staged events (see @lingua/events stageEvents). */
  outboxCollections?(deps: ServiceDeps<C>): mongo.Collection<mongo.Document>[];
  /** Background workers started last and stopped first (before consumers and connections). */
  workers?(deps: ServiceDeps<C>): BackgroundWorker[];
  logger?: Logger;
  /** Share of requests given the full access log (createApp's accessLogSampleRate); default 1. */
  accessLogSampleRate?: number;
}

/** A background loop a service runs besides its servers and consumers (e.g. a delivery worker). */
export interface BackgroundWorker {
  stop(): Promise<void>;
}

export interface RunningService<C extends ServiceEnv = ServiceEnv> {
  httpPort: number;
  httpUrl: string;
  grpcPort: number | undefined;
  grpcAddress: string | undefined;
  /** Where Prometheus scrapes this service (`<SERVICE>_METRICS_PORT`). */
  metricsPort: number;
  metricsUrl: string;
  deps: ServiceDeps<C>;
  stop(): Promise<void>;
}

/**
 * Boots a service the one way all services boot: connections first (failing fast), then the event
 * stream, outbox relay, HTTP and gRPC servers and consumers; stop() undoes it in reverse order,
 * letting in-flight work finish.
 */
export async function startService<C extends ServiceEnv>(
  def: ServiceDefinition<C>,
): Promise<RunningService<C>> {
  const { config } = def;
  const logger = def.logger ?? createLogger(config.service, { level: config.LOG_LEVEL });
  const stack: (() => Promise<unknown>)[] = [];
  const stopAll = async () => {
    for (const undo of stack.reverse())
      await undo().catch((err) => logger.warn({ err }, 'shutdown step failed'));
  };
  try {
    const mongoHandle = await connectMongo(config.MONGO_URL, config.mongoDb);
    stack.push(() => mongoHandle.close());
    const nats = await connectNats(config.NATS_URL, { name: config.service });
    stack.push(() => nats.close());
    const redis = def.useRedis ? await connectRedis(config.REDIS_URL, { name: config.service }) : undefined;
    if (redis) stack.push(() => redis.close());

    const bus = eventBusConfig({
      streamName: config.EVENTS_STREAM,
      subjectPrefix: config.EVENTS_SUBJECT_PREFIX,
    });
    await ensureStreams(nats.jsm, bus);
    const publisher = createEventPublisher(nats, bus, config.service);
    const health = new HealthRegistry()
      .register({ name: 'database', check: () => mongoHandle.ping() })
      .register({ name: 'nats', check: () => nats.ping() });
    if (redis) health.register({ name: 'redis', check: () => redis.ping() });

    const deps = {
      config,
      logger,
      mongo: mongoHandle,
      nats,
      redis,
      bus,
      publisher,
      health,
    } as ServiceDeps<C>;
    deps.outbox = new OutboxRelay({
      publisher,
      collections: def.outboxCollections?.(deps) ?? [],
      logger,
      service: config.service,
    });
    deps.outbox.start();
    stack.push(() => deps.outbox.stop());

    const app = createApp({
      logger,
      deadline: {
        defaultMs: config.REQUEST_DEADLINE_MS,
        maxMs: Math.max(config.REQUEST_DEADLINE_MS, 60_000),
      },
      ...(def.accessLogSampleRate !== undefined && { accessLogSampleRate: def.accessLogSampleRate }),
    });
    app.use(healthRoutes(config.service, health));
    def.http?.(app, deps);
    finishApp(app, logger);
    // request metrics are labelled by express's route templates, never by paths
    captureRouteTemplates(express.request);
    const shedder = config.loadShed && adaptiveShedder(config.loadShed);
    if (shedder) {
      const unregister = registerShedder(config.service, () => shedder.stats);
      stack.push(async () => unregister());
    }
    const http = await startHttpServer(app, {
      port: config.httpPort,
      host: config.HOST,
      ...(shedder && { shedder }),
      instrument: (listener) =>
        instrumentHttp(config.service, listener, (_req, _res, route) => route ?? UNMATCHED_ROUTE),
    });
    stack.push(() => http.close(config.SHUTDOWN_GRACE_MS));
    // the metrics port opens with the API and closes after it, so the last scrape sees the drain
    const metrics = await startMetricsServer({ port: config.metricsPort, host: config.HOST });
    stack.splice(stack.length - 1, 0, () => metrics.close());

    let grpcPort: number | undefined;
    if (def.grpc) {
      const server = createGrpcServer({ logger, serviceName: config.service });
      def.grpc(server, deps);
      grpcPort = await server.start(config.grpcPort, config.HOST);
      stack.push(() => server.stop(config.SHUTDOWN_GRACE_MS));
    }

    const processed = mongoProcessedEvents(mongoHandle.connection);
    for (const c of def.consumers?.(deps) ?? []) {
      const options: ConsumerOptions = { ...c, logger, processed, service: config.service };
      const running: RunningConsumer = await startDurableConsumer(nats, bus, options);
      stack.push(() => running.stop());
    }
    for (const worker of def.workers?.(deps) ?? []) stack.push(() => worker.stop());

    logger.info(
      { http: http.url, grpc: grpcPort && `${config.HOST}:${grpcPort}`, metrics: metrics.url },
      `${config.service} service started`,
    );
    return {
      httpPort: http.port,
      httpUrl: http.url,
      grpcPort,
      grpcAddress: grpcPort === undefined ? undefined : `${config.HOST}:${grpcPort}`,
      metricsPort: metrics.port,
      metricsUrl: metrics.url,
      deps,
      stop: stopAll,
    };
  } catch (err) {
    await stopAll();
    throw err;
  }
}
