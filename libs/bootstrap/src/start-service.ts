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
  PROCESSED_EVENTS_COLLECTION,
  type RunningConsumer,
  startDurableConsumer,
} from '@lingua/events';
import { createGrpcServer, type GrpcServer, type TrustedCallers } from '@lingua/grpc';
import { HealthRegistry } from '@lingua/health';
import type { RequestListener } from 'node:http';
import { setTimeout as delay } from 'node:timers/promises';
import {
  adaptiveShedder,
  bootingListener,
  createApp,
  finishApp,
  type RunningHttpServer,
  startHttpServer,
} from '@lingua/http';
import { createLogger, type Logger } from '@lingua/logger';
import {
  captureRouteTemplates,
  instrumentHttp,
  registerShedder,
  type RunningMetricsServer,
  startMetricsServer,
  UNMATCHED_ROUTE,
} from '@lingua/metrics';
import {
  buildIndexes,
  connectMongo,
  type IndexSpec,
  type MongoHandle,
  type ShardDeclaration,
  shardKeyFields,
} from '@lingua/mongo';
import { connectRedis, type RedisHandle } from '@lingua/redis';
import { healthRoutes } from './health-routes';
import type { ServiceEnv } from './service-env';
import { untilAvailable } from './until-available';

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
  /**
   * Every index of the service's database, from its one list (`data-access/indexes.ts`): built and
   * awaited at start; one that cannot be built keeps the service not-ready and is named in the log.
   */
  indexes?(config: C): IndexSpec[];
  /**
   * Brings existing data to what the indexes and code expect (a backfill), run at start before the
   * indexes are built, retried like a dependency until it succeeds. Must be idempotent: every
   * replica runs it at every start.
   */
  migrate?(db: mongo.Db, logger: Logger): Promise<void>;
  /** Redis is connected (and checked for readiness) only by services that use it. */
  useRedis?: boolean;
  /** Routes behind the gateway; health routes and the error mapper are added around them. */
  http?(app: Express, deps: ServiceDeps<C>): void;
  grpc?(server: GrpcServer, deps: ServiceDeps<C>): void;
  /** Public keys of the gRPC callers (config's grpcCallers, see grpcCallersEnv): required with `grpc`. */
  grpcCallers?: TrustedCallers;
  consumers?(deps: ServiceDeps<C>): ConsumerDefinition[];
  /** Collections whose documents carry staged events (see @lingua/events stageEvents). */
  outboxCollections?(deps: ServiceDeps<C>): mongo.Collection<mongo.Document>[];
  /**
   * How the service's collections are sharded (`data-access/indexes.ts`, ADR 0030): the outbox relay
   * carries each document's shard key in its reads and writes, so they stay targeted.
   */
  shardKeys?: readonly ShardDeclaration[];
  /** Background workers started last and stopped first (before consumers and connections). */
  workers?(deps: ServiceDeps<C>): BackgroundWorker[];
  logger?: Logger;
  /** Share of requests given the full access log (createApp's accessLogSampleRate); default 1. */
  accessLogSampleRate?: number;
  /** Aborting it while the service waits for its dependencies ends the start (SIGTERM at boot). */
  signal?: AbortSignal;
  /** Back-off between attempts to reach a dependency at start (tests shorten it). */
  retry?: { firstDelayMs?: number; maxDelayMs?: number };
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
 * Boots a service the one way all services boot. HTTP listens at once (live 200, ready 503 while
 * starting); then the connections, each retried with back-off until it answers, the event stream,
 * the outbox relay, the service's routes (swapped in for the booting answers), gRPC and consumers.
 * stop() undoes it in reverse order, letting in-flight work finish.
 */
export async function startService<C extends ServiceEnv>(
  def: ServiceDefinition<C>,
): Promise<RunningService<C>> {
  const { config } = def;
  const logger = def.logger ?? createLogger(config.service, { level: config.LOG_LEVEL });
  const stack: (() => Promise<unknown>)[] = [];
  // HTTP listens first but is stopped where its routes sit in the stack (before the connections it
  // uses); until then, closing it is the last step
  let http: RunningHttpServer | undefined;
  let httpStacked = false;
  // the metrics port opens with the API and closes last, so the last scrape sees the drain
  let metrics: RunningMetricsServer | undefined;
  let unregisterShedder: (() => void) | undefined;
  let stopping = false;
  let stopped: Promise<void> | undefined;
  const stopAll = async () => {
    for (const undo of stack.reverse())
      await undo().catch((err) => logger.warn({ err }, 'shutdown step failed'));
    if (http && !httpStacked) await http.close(0);
    await metrics?.close();
    unregisterShedder?.();
  };
  let waitingFor = 'database';
  let listener: RequestListener = bootingListener(config.service, () => waitingFor);
  const retry = { logger, signal: def.signal, ...def.retry };
  try {
    // request metrics are labelled by express's route templates, never by paths
    captureRouteTemplates(express.request);
    const shedder = config.loadShed && adaptiveShedder(config.loadShed);
    if (shedder) unregisterShedder = registerShedder(config.service, () => shedder.stats);
    const server = await startHttpServer((req, res) => listener(req, res), {
      port: config.httpPort,
      host: config.HOST,
      ...(shedder && { shedder }),
      instrument: (inner) =>
        instrumentHttp(config.service, inner, (_req, _res, route) => route ?? UNMATCHED_ROUTE),
    });
    http = server;
    metrics = await startMetricsServer({ port: config.metricsPort, host: config.HOST });

    const mongoHandle = await untilAvailable(
      'database',
      () =>
        connectMongo(config.MONGO_URL, config.mongoDb, {
          logger,
          production: config.NODE_ENV === 'production',
        }),
      retry,
    );
    stack.push(() => mongoHandle.close());
    waitingFor = 'nats';
    const nats = await untilAvailable(
      'nats',
      () => connectNats(config.natsServers, { name: config.service }),
      retry,
    );
    stack.push(() => nats.close());
    waitingFor = 'redis';
    const redis = def.useRedis
      ? await untilAvailable('redis', () => connectRedis(config.redis, { name: config.service }), retry)
      : undefined;
    if (redis) stack.push(() => redis.close());

    const bus = eventBusConfig({
      streamName: config.EVENTS_STREAM,
      subjectPrefix: config.EVENTS_SUBJECT_PREFIX,
      ...config.eventStreams,
    });
    waitingFor = 'event streams';
    await untilAvailable(
      'event streams',
      () =>
        ensureStreams(nats.jsm, bus, {
          // least privilege (ADR 0019): changed limits are the operator's NATS user's to apply
          onUpdateRefused: (stream, err) =>
            logger.warn({ err, stream }, 'event stream limits differ from this config; not updated'),
        }),
      retry,
    );
    const publisher = createEventPublisher(nats, bus, config.service);
    const indexSpecs = [
      ...(def.indexes?.(config) ?? []),
      // handled event ids are forgotten once no redelivery or re-published copy can come any more
      ...(def.consumers
        ? [
            {
              collection: PROCESSED_EVENTS_COLLECTION,
              key: { at: 1 as const },
              expireAfterSeconds: config.processedEventsTtlSeconds,
            },
          ]
        : []),
    ];
    if (def.migrate) {
      waitingFor = 'migrations';
      await untilAvailable('migrations', () => def.migrate!(mongoHandle.connection.db!, logger), retry);
    }
    waitingFor = 'indexes';
    const indexes = await buildIndexes(mongoHandle.connection.db!, indexSpecs, { logger });
    stack.push(async () => indexes.stop());
    const health = new HealthRegistry()
      // not ready from the moment a stop begins, so the Service sends new requests elsewhere
      .register({
        name: 'shutdown',
        check: async () => {
          if (stopping) throw new Error('shutting down');
        },
      })
      .register({ name: 'indexes', check: () => indexes.check() })
      // without its database a replica answers nothing: out of rotation, callers are refused at once
      // instead of waiting for the driver until their deadline (docs/adr/0034)
      .register({ name: 'database', check: () => mongoHandle.ping() })
      // Shared by every replica and not needed by every request: reported (status "degraded"), never
      // a reason to leave rotation. All replicas would leave at once and come back only after the
      // probes passed again, seconds after the dependency did (docs/adr/0034).
      .register({ name: 'nats', optional: true, check: () => nats.ping() });
    if (redis) health.register({ name: 'redis', optional: true, check: () => redis.ping() });

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
      shardKeys: shardKeyFields(def.shardKeys ?? []),
      logger,
      service: config.service,
    });
    deps.outbox.start();
    stack.push(() => deps.outbox.stop());

    const app = createApp({
      logger,
      trustProxy: config.trustProxy,
      deadline: {
        defaultMs: config.REQUEST_DEADLINE_MS,
        maxMs: Math.max(config.REQUEST_DEADLINE_MS, 60_000),
      },
      ...(def.accessLogSampleRate !== undefined && { accessLogSampleRate: def.accessLogSampleRate }),
    });
    app.use(healthRoutes(config.service, health));
    def.http?.(app, deps);
    finishApp(app, logger);
    listener = app;

    let grpcPort: number | undefined;
    let grpc: GrpcServer | undefined;
    if (def.grpc) {
      if (!def.grpcCallers) throw new Error(`${config.service}: a gRPC server needs grpcCallers`);
      grpc = createGrpcServer({
        logger,
        serviceName: config.service,
        reflection: config.grpcReflection,
        callers: def.grpcCallers,
      });
      def.grpc(grpc, deps);
      grpcPort = await grpc.start(config.grpcPort, config.HOST);
    }
    // both drains at once, so stopping takes SHUTDOWN_GRACE_MS at most, not twice that
    stack.push(() =>
      Promise.all([server.close(config.SHUTDOWN_GRACE_MS), grpc?.stop(config.SHUTDOWN_GRACE_MS)]),
    );
    httpStacked = true;

    const processed = mongoProcessedEvents(mongoHandle.connection);
    for (const c of def.consumers?.(deps) ?? []) {
      const options: ConsumerOptions = {
        backoffMs: config.eventRetryBackoffMs,
        ...c,
        logger,
        processed,
        service: config.service,
      };
      // a JetStream cluster still electing its leaders answers "temporarily unavailable": wait, as
      // for the streams, instead of exiting (seen when a 3-node cluster and the services started together)
      const running: RunningConsumer = await untilAvailable(
        `event consumer ${c.durable}`,
        () => startDurableConsumer(nats, bus, options),
        retry,
      );
      stack.push(() => running.stop());
    }
    for (const worker of def.workers?.(deps) ?? []) stack.push(() => worker.stop());

    logger.info(
      { http: server.url, grpc: grpcPort && `${config.HOST}:${grpcPort}`, metrics: metrics.url },
      `${config.service} service started`,
    );
    return {
      httpPort: server.port,
      httpUrl: server.url,
      grpcPort,
      grpcAddress: grpcPort === undefined ? undefined : `${config.HOST}:${grpcPort}`,
      metricsPort: metrics.port,
      metricsUrl: metrics.url,
      deps,
      /**
       * Graceful: not ready and `Connection: close` at once, still serving for DRAIN_DELAY_MS (the
       * time load balancers take to notice), then servers, consumers and connections in order.
       */
      stop() {
        stopped ??= (async () => {
          stopping = true;
          server.drain();
          if (config.DRAIN_DELAY_MS > 0) await delay(config.DRAIN_DELAY_MS);
          await stopAll();
        })();
        return stopped;
      },
    };
  } catch (err) {
    await stopAll();
    throw err;
  }
}
