import { freePort, isolatedServiceEnv } from '@lingua/testing';

// The launcher is plain CommonJS (it runs before anything is built), so it is required as is.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { startStack } = require('../../deploy/local/start-stack.js') as {
  startStack(o: {
    env: Record<string, string>;
    infra: boolean;
    quiet: boolean;
  }): Promise<{ url: string; stop(): Promise<void> }>;
};

// The whole stack as `npm start` runs it: five services and the gateway as separate processes
// from their built dist/, on free ports, against the infrastructure npm test started.
let stack: { url: string; stop(): Promise<void> };

beforeAll(async () => {
  const env = isolatedServiceEnv({ LOG_LEVEL: 'warn', GATEWAY_PORT: String(await freePort()) });
  for (const svc of ['IDENTITY', 'FLASHCARDS', 'SUBSCRIPTIONS', 'AI', 'NOTIFICATIONS']) {
    env[`${svc}_HTTP_PORT`] = String(await freePort());
    env[`${svc}_GRPC_PORT`] = String(await freePort());
    env[`${svc}_HTTP_URL`] = `http://127.0.0.1:${env[`${svc}_HTTP_PORT`]}`;
  }
  stack = await startStack({ env, infra: false, quiet: true });
}, 120_000);

afterAll(() => stack?.stop());

describe('the whole stack', () => {
  it('When booted, Then the gateway reports every part healthy in the spec formats', async () => {
    const health = await (await fetch(`${stack.url}/health`)).json();
    expect(health).toMatchObject({
      status: 'healthy',
      version: '0.1.0',
      checks: { database: 'healthy', redis: 'healthy', external_apis: 'healthy' },
    });
    expect(new Date(health.timestamp).toISOString()).toBe(health.timestamp);

    expect(await (await fetch(`${stack.url}/api/health`)).json()).toMatchObject({
      Status: 'Healthy',
      Version: '0.1.0',
      Service: 'lingua-api',
    });
    const detailed = await (await fetch(`${stack.url}/api/health/detailed`)).json();
    expect(detailed).toMatchObject({
      Status: 'Healthy',
      Environment: 'test',
      Database: 'Healthy',
      Cache: 'Healthy',
    });
    expect(Object.keys(detailed.Services).sort()).toEqual([
      'ai',
      'flashcards',
      'identity',
      'notifications',
      'subscriptions',
    ]);
    expect(detailed.Memory.RssMb).toBeGreaterThan(0);
  });

  it('When a path of each group is called, Then the gateway routes it to its service and keeps the request id', async () => {
    for (const [path, code] of [
      ['/api/v1/auth/unknown', 'NOT_FOUND'], // Group A auth envelope, from identity
      ['/api/flashcard-sets/unknown/x', 'RES001'], // Group C envelope, from flashcards
    ] as const) {
      const res = await fetch(`${stack.url}${path}`, { headers: { 'x-request-id': 'e2e-1' } });
      expect(res.status).toBe(404);
      expect(res.headers.get('x-request-id')).toBe('e2e-1');
      expect(await res.json()).toMatchObject({ success: false, error: { code } });
    }
    const groupB = await fetch(`${stack.url}/api/flashcards/00000000-0000-0000-0000-000000000000/nothing`);
    expect(await groupB.json()).toEqual({
      success: false,
      error: 'No route for GET /api/flashcards/00000000-0000-0000-0000-000000000000/nothing',
    });
  });
});
