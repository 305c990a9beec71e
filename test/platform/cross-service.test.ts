import { randomUUID } from 'node:crypto';
import type { RunningService } from '@lingua/bootstrap';
import { startService } from '@lingua/bootstrap';
import { makeEvent } from '@lingua/contracts';
import { AppError } from '@lingua/errors';
import { stageEvents } from '@lingua/events';
import { createGrpcClient, devCallSigner } from '@lingua/grpc';
import { runWithRequestContext } from '@lingua/logger';
import { loadPackage } from '@lingua/proto';
import { installInMemoryTracing, SpanKind, withSpan } from '@lingua/telemetry';
import { isolatedServiceEnv, waitFor } from '@lingua/testing';
import { loadGatewayConfig } from '../../gateway/src/config';
import { type RunningGateway, startGateway } from '../../gateway/src/server';
import { loadServiceConfig as identityConfig } from '../../services/identity/src/config';
import { userModel } from '../../services/identity/src/data-access/user.model';
import { defineIdentityService } from '../../services/identity/src/start';
import { loadServiceConfig as notificationsConfig } from '../../services/notifications/src/config';
import { notificationRepository } from '../../services/notifications/src/data-access/notification.repository';
import { defineNotificationsService } from '../../services/notifications/src/start';

// Real identity and notifications services, and the real gateway, in this process, on free ports,
// over the real FerretDB, NATS and Redis. Identity gets one extra test route that registers a user
// the way the identity issue will: the document and its user.created event in one write.
const tracing = installInMemoryTracing();
let identity: RunningService;
let notifications: RunningService;
let gateway: RunningGateway;

beforeAll(async () => {
  const env = isolatedServiceEnv();
  const identityDef = defineIdentityService(identityConfig(env));
  identity = await startService({
    ...identityDef,
    http: (app, deps) =>
      app.post('/api/v1/auth/test-register', async (_req, res) => {
        const id = randomUUID();
        const event = makeEvent('user.created', {
          userId: id,
          email: `${id}@example.com`,
          username: `u${id.slice(0, 8)}`,
          authProvider: 'password',
        });
        await userModel(deps.mongo.connection).create({
          _id: id,
          email: event.data.email,
          username: event.data.username,
          ...stageEvents(event).fields,
        });
        deps.outbox.kick();
        res.status(201).json({ userId: id });
      }),
  });
  notifications = await startService(defineNotificationsService(notificationsConfig(env)));
  gateway = await startGateway(
    loadGatewayConfig({
      ...env,
      GATEWAY_PORT: '0',
      IDENTITY_HTTP_URL: identity.httpUrl,
      NOTIFICATIONS_HTTP_URL: notifications.httpUrl,
    }),
    { logger: identity.deps.logger },
  );
});

afterAll(async () => {
  await gateway?.stop();
  await notifications?.stop();
  await identity?.stop();
  await identity?.deps.mongo.connection.dropDatabase().catch(() => undefined);
  await tracing.shutdown();
});

describe('across services', () => {
  it('When a request through the gateway writes and emits an event, Then one trace spans gateway, service and consumer', async () => {
    const res = await fetch(`${gateway.url}/api/v1/auth/test-register`, {
      method: 'POST',
      headers: { 'x-request-id': 'req-trace-1' },
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('x-request-id')).toBe('req-trace-1');
    const { userId } = (await res.json()) as { userId: string };

    // the consumer in the other service created the welcome notification
    const repo = notificationRepository(notifications.deps.mongo.connection);
    await waitFor(async () =>
      expect(await repo.listForUser(userId)).toEqual([expect.objectContaining({ type: 'welcome', userId })]),
    );

    const prefix = identity.deps.bus.subjectPrefix;
    // the consumer span ends just after the handler's write, so poll for it
    await waitFor(() => {
      const spans = tracing.exporter.getFinishedSpans();
      const gatewaySpan = spans.find(
        (s) => s.name === 'POST /api/v1/auth/test-register' && !s.parentSpanContext,
      );
      expect(gatewaySpan).toBeDefined();
      const traceId = gatewaySpan!.spanContext().traceId;
      const inTrace = spans
        .filter((s) => s.spanContext().traceId === traceId)
        .map((s) => `${s.kind}:${s.name}`);
      // SERVER (1) at the gateway and in identity, PRODUCER (3) publish, CONSUMER (4) in notifications
      expect(inTrace.sort()).toEqual([
        '1:POST /api/v1/auth/test-register',
        '1:POST /api/v1/auth/test-register',
        `3:${prefix}.user.created publish`,
        `4:${prefix}.user.created process`,
      ]);
    });
  });

  it('When one service calls another over gRPC, Then the trace and request context travel, errors keep their code, and a deadline fails cleanly', async () => {
    const id = randomUUID();
    await userModel(identity.deps.mongo.connection).create({
      _id: id,
      email: `${id}@example.com`,
      username: `g${id.slice(0, 8)}`,
    });
    // no service calls IdentityService yet: only an operator may
    const client = createGrpcClient(loadPackage().lingua.identity.v1.IdentityService, identity.grpcAddress!, {
      signer: devCallSigner('operator'),
    });
    try {
      const reply = await runWithRequestContext(
        { requestId: 'req-grpc-1', correlationId: 'corr-grpc-1' },
        () => withSpan('caller', { kind: SpanKind.INTERNAL }, () => client.call('GetUser', { user_id: id })),
      );
      expect(reply.user).toMatchObject({
        user_id: id,
        email: `${id}@example.com`,
        role: 'user',
        subscription_status: 'inactive',
      });
      // the callee's server span continues the caller's trace (request ids travel the same way: see @lingua/grpc tests)
      await waitFor(() => {
        const spans = tracing.exporter.getFinishedSpans();
        const caller = spans.find((s) => s.name === 'caller')!;
        const server = spans.find(
          (s) => s.kind === SpanKind.SERVER && s.spanContext().traceId === caller.spanContext().traceId,
        );
        expect(server?.name).toMatch(/GetUser/);
        expect(server?.parentSpanContext?.spanId).toBe(caller.spanContext().spanId);
      });

      await expect(client.call('GetUser', { user_id: 'missing' })).rejects.toMatchObject({
        code: 'NOT_FOUND',
        status: 404,
      });
      const started = Date.now();
      const late = await client.call('GetUser', { user_id: id }, { deadlineMs: 1 }).catch((e: unknown) => e);
      expect(late).toBeInstanceOf(AppError);
      expect((late as AppError).code).toBe('UPSTREAM_TIMEOUT');
      expect(Date.now() - started).toBeLessThan(1_000);
    } finally {
      client.close();
    }
  });
});
