import net from 'node:net';
import { AppError } from '@lingua/errors';
import { currentRequestContext, runWithRequestContext, type RequestContext } from '@lingua/logger';
import { loadPackage } from '@lingua/proto';
import { silentLogger, waitFor } from '@lingua/testing';
import { devCallSigner, devTrustedCallers } from './call-identity';
import { currentCaller } from './call-metadata';
import { createGrpcClient } from './create-grpc-client';
import { createGrpcServer, type GrpcServer } from './create-grpc-server';

const { IdentityService } = loadPackage().lingua.identity.v1;

const user = (user_id: string) => ({
  user_id,
  email: `${user_id}@example.com`,
  username: user_id,
  role: 'user',
  subscription_status: 'free',
  created_at: '2025-01-01T00:00:00.000Z',
});

// What the handlers saw, keyed by the user id or email the test sent.
const seen = new Map<string, { ctx: RequestContext | undefined; caller: string | undefined }>();
const invocations = new Map<string, number>();
const count = (key: string) => {
  const n = (invocations.get(key) ?? 0) + 1;
  invocations.set(key, n);
  return n;
};

/** Resolves after ms, or as soon as the caller gives up, so no timer outlives the test. */
const waitOrCancel = (ms: number, call: { once(event: 'cancelled', fn: () => void): unknown }) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    call.once('cancelled', () => {
      clearTimeout(timer);
      resolve();
    });
  });

let server: GrpcServer;
let address: string;

beforeAll(async () => {
  server = createGrpcServer({
    logger: silentLogger(),
    serviceName: 'identity',
    callers: devTrustedCallers(['ai']),
  });
  server.addService(
    IdentityService.service,
    {
      GetDevices: () => ({ devices: [] }),
      RemoveDevice: () => ({ removed: false }),
      GetUserLanguages: () => ({ found: false }),
      async GetUser(request, call) {
        const id = request.user_id;
        const n = count(id);
        seen.set(id, { ctx: currentRequestContext(), caller: currentCaller() });
        if (id.startsWith('slow')) await waitOrCancel(2000, call);
        if (id === 'missing') throw new AppError('NOT_FOUND', 'User not found');
        if (id === 'invalid')
          throw new AppError('VALIDATION_ERROR', 'Validation failed', {
            details: { email: ['Ungültige Adresse'] },
          });
        if (id === 'boom') throw new Error('connection string mongodb://admin:hunter2@db');
        if (id.startsWith('flaky') && n === 1) throw new AppError('SERVICE_UNAVAILABLE', 'warming up');
        if (id === 'down') throw new AppError('SERVICE_UNAVAILABLE', 'still down');
        return { user: user(id) };
      },
      ResolveUser(request) {
        const key = request.email ?? request.user_id ?? '';
        if (count(key) === 1 && key.startsWith('flaky'))
          throw new AppError('SERVICE_UNAVAILABLE', 'warming up');
        return { user: user(key) };
      },
    },
    // the service's other methods are not these tests' subject: no caller may call them
    { GetUser: ['ai'], ResolveUser: ['ai'], GetDevices: [], RemoveDevice: [], GetUserLanguages: [] },
  );
  address = `127.0.0.1:${await server.start(0)}`;
});

afterAll(() => server.stop(1000));

function identityClient(options: { defaultDeadlineMs?: number; address?: string } = {}) {
  return createGrpcClient(IdentityService, options.address ?? address, {
    signer: devCallSigner('ai'),
    idempotentMethods: ['GetUser'],
    ...(options.defaultDeadlineMs !== undefined && { defaultDeadlineMs: options.defaultDeadlineMs }),
  });
}

let client: ReturnType<typeof identityClient>;
beforeAll(() => {
  client = identityClient();
});
afterAll(() => client.close());

async function rejection(promise: Promise<unknown>): Promise<AppError> {
  try {
    await promise;
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    return err as AppError;
  }
  throw new Error('expected the call to fail');
}

describe('createGrpcClient with createGrpcServer', () => {
  it('When a client calls inside a request context, Then the handler runs in the same request and correlation ids', async () => {
    const response = await runWithRequestContext(
      { requestId: 'req-1', correlationId: 'corr-1', userId: 'user-42' },
      () => client.call('GetUser', { user_id: 'ctx' }),
    );
    expect(response.user).toMatchObject({ user_id: 'ctx', email: 'ctx@example.com' });
    expect(seen.get('ctx')).toEqual({
      ctx: expect.objectContaining({ requestId: 'req-1', correlationId: 'corr-1', userId: 'user-42' }),
      caller: 'ai', // proven by its signature, not just said
    });
  });

  it('When a client calls outside any request context, Then the handler still gets a fresh request id', async () => {
    await client.unary('GetUser')({ user_id: 'no-ctx' });
    const ctx = seen.get('no-ctx')?.ctx;
    expect(ctx?.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(ctx?.correlationId).toBe(ctx?.requestId);
  });

  it('When the handler is slower than the deadline, Then the call fails cleanly at its deadline with UPSTREAM_TIMEOUT', async () => {
    const started = Date.now();
    const err = await rejection(client.call('GetUser', { user_id: 'slow' }, { deadlineMs: 200 }));
    const elapsed = Date.now() - started;
    expect(err.code).toBe('UPSTREAM_TIMEOUT');
    expect(err.status).toBe(504);
    expect(elapsed).toBeGreaterThanOrEqual(150);
    expect(elapsed).toBeLessThan(1500);
    // a deadline is never retried, even for an idempotent method
    expect(invocations.get('slow')).toBe(1);
  });

  it('When the request being served has less time left than the default, Then the call gets only that, and the server sees the deadline and the cancellation', async () => {
    const started = Date.now();
    const err = await rejection(
      runWithRequestContext(
        { requestId: 'r-deadline', correlationId: 'r-deadline', deadline: started + 250 },
        () => client.call('GetUser', { user_id: 'slow-deadline' }),
      ),
    );
    expect(err.status).toBe(504);
    expect(Date.now() - started).toBeLessThan(1_500);
    const ctx = seen.get('slow-deadline')?.ctx;
    expect(ctx?.deadline).toBeGreaterThan(started);
    expect(ctx?.deadline).toBeLessThanOrEqual(started + 300);
    await waitFor(() => expect(ctx?.signal?.aborted).toBe(true));
  });

  it('When the request being served is abandoned mid-call, Then the call is cancelled at once and the server is told', async () => {
    const controller = new AbortController();
    const pending = rejection(
      runWithRequestContext(
        { requestId: 'r-abandon', correlationId: 'r-abandon', signal: controller.signal },
        () => client.call('GetUser', { user_id: 'slow-abandoned' }),
      ),
    );
    await waitFor(() => expect(seen.get('slow-abandoned')).toBeDefined());
    const abandonedAt = Date.now();
    controller.abort(new AppError('REQUEST_ABANDONED', 'gone'));
    await pending;
    expect(Date.now() - abandonedAt).toBeLessThan(1_000);
    await waitFor(() => expect(seen.get('slow-abandoned')?.ctx?.signal?.aborted).toBe(true));
    expect(invocations.get('slow-abandoned')).toBe(1);
  });

  it('When the handler throws AppError NOT_FOUND, Then the client gets AppError NOT_FOUND with status 404 and its message', async () => {
    const err = await rejection(client.call('GetUser', { user_id: 'missing' }));
    expect(err).toMatchObject({ code: 'NOT_FOUND', status: 404, message: 'User not found' });
  });

  it('When the AppError has details, Then they arrive intact, non-ASCII text included', async () => {
    const err = await rejection(client.call('GetUser', { user_id: 'invalid' }));
    expect(err).toMatchObject({
      code: 'VALIDATION_ERROR',
      status: 400,
      details: { email: ['Ungültige Adresse'] },
    });
  });

  it('When the handler throws a plain Error, Then the client gets INTERNAL_ERROR and the message does not leak', async () => {
    const err = await rejection(client.call('GetUser', { user_id: 'boom' }));
    expect(err).toMatchObject({ code: 'INTERNAL_ERROR', status: 500, message: 'Internal server error' });
    expect(JSON.stringify({ message: err.message, details: err.details })).not.toMatch(/hunter2|mongodb/);
  });

  it('When an idempotent method gets UNAVAILABLE once, Then it is retried and succeeds', async () => {
    const response = await client.call('GetUser', { user_id: 'flaky-get' });
    expect(response.user?.user_id).toBe('flaky-get');
    expect(invocations.get('flaky-get')).toBe(2);
  });

  it('When an idempotent method stays UNAVAILABLE, Then it is tried three times and fails with SERVICE_UNAVAILABLE', async () => {
    const err = await rejection(client.call('GetUser', { user_id: 'down' }));
    expect(err.code).toBe('SERVICE_UNAVAILABLE');
    expect(invocations.get('down')).toBe(3);
  });

  it('When a method not listed as idempotent gets UNAVAILABLE, Then it is not retried', async () => {
    const err = await rejection(client.call('ResolveUser', { email: 'flaky-resolve' }));
    expect(err).toMatchObject({ code: 'SERVICE_UNAVAILABLE', status: 503, message: 'warming up' });
    expect(invocations.get('flaky-resolve')).toBe(1);
  });

  it('When nothing listens at the address, Then the call fails with SERVICE_UNAVAILABLE within its deadline', async () => {
    const port = await freePort();
    const offline = identityClient({ address: `127.0.0.1:${port}`, defaultDeadlineMs: 500 });
    try {
      const started = Date.now();
      const err = await rejection(offline.call('GetUser', { user_id: 'x' }));
      expect(['SERVICE_UNAVAILABLE', 'UPSTREAM_TIMEOUT']).toContain(err.code);
      expect(Date.now() - started).toBeLessThan(1500);
    } finally {
      offline.close();
    }
  });
});

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}
