import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { type RunningService, startService } from '@lingua/bootstrap';
import { httpCall, isolatedServiceEnv, uniqueName } from '@lingua/testing';
import { loadGatewayConfig } from '../../gateway/src/config';
import { type RunningGateway, startGateway } from '../../gateway/src/server';
import { loadServiceConfig } from '../../services/flashcards/src/config';
import { defineFlashcardsService } from '../../services/flashcards/src/start';

// The development setting (spec, Authentication 13): Group B answers anonymous callers as the one
// fixed dev user, through the gateway, when FLASHCARDS_DEV_ANONYMOUS_USER is on (`npm start` turns it
// on); without it anonymous Group B is 401; production refuses the flag at start-up.

const ROOT = path.resolve(__dirname, '../..');

interface Edge {
  flashcards: RunningService;
  gateway: RunningGateway;
}

/** The real flashcards service behind the real gateway (the other services are not needed here). */
async function edgeWith(env: Record<string, string>): Promise<Edge> {
  const flashcards = await startService(defineFlashcardsService(loadServiceConfig(env)));
  const gateway = await startGateway(
    loadGatewayConfig({
      ...env,
      GATEWAY_PORT: '0',
      FLASHCARDS_HTTP_URL: flashcards.httpUrl,
      RATE_LIMIT_PREFIX: uniqueName('rl'),
    }),
    { logger: flashcards.deps.logger },
  );
  return { flashcards, gateway };
}

async function stopEdge(edge: Edge | undefined) {
  if (!edge) return;
  await edge.gateway.stop();
  await edge.flashcards.deps.mongo.connection.dropDatabase().catch(() => undefined);
  await edge.flashcards.stop();
}

describe('Group B for anonymous callers in the development setting', () => {
  let dev: Edge | undefined;
  let plain: Edge | undefined;

  beforeAll(async () => {
    dev = await edgeWith(isolatedServiceEnv({ FLASHCARDS_DEV_ANONYMOUS_USER: 'true' }));
    plain = await edgeWith(isolatedServiceEnv());
  }, 60_000);

  afterAll(async () => {
    await stopEdge(dev);
    await stopEdge(plain);
  });

  it('When the flag is on, Then an anonymous Group B call through the gateway acts as the dev user', async () => {
    const url = dev!.gateway.url;
    const card = { word: 'anon', translation: 'anon-translation', definition: 'definition of anon' };
    const created = await httpCall(url, 'POST', '/api/flashcards', { body: card });
    expect(created.status).toBe(200);
    const list = await httpCall(url, 'GET', '/api/flashcards');
    expect(list.status).toBe(200);
    expect(list.body.data.flashcards.map((c: { word: string }) => c.word)).toEqual(['anon']);
    expect((await httpCall(url, 'GET', '/api/study/completed-tests')).status).toBe(200);
    // Group C keeps requiring a token, even in the development setting
    expect((await httpCall(url, 'GET', '/api/flashcard-sets')).status).toBe(401);
  });

  it('When the flag is off, Then an anonymous Group B call through the gateway is 401', async () => {
    const res = await httpCall(plain!.gateway.url, 'GET', '/api/flashcards');
    expect(res.status).toBe(401);
  });

  it('When `npm start` launches the stack, Then it is the development setting unless production or told otherwise', () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { developmentEnv } = require(path.join(ROOT, 'deploy/local/start-stack.js')) as {
      developmentEnv(env: Record<string, string | undefined>): Record<string, string>;
    };
    expect(developmentEnv({})).toEqual({ FLASHCARDS_DEV_ANONYMOUS_USER: 'true' });
    expect(developmentEnv({ NODE_ENV: 'production' })).toEqual({});
    expect(developmentEnv({ FLASHCARDS_DEV_ANONYMOUS_USER: 'false' })).toEqual({});
  });

  it('When production is started with the flag, Then flashcards exits 1 naming the variable', () => {
    const run = spawnSync(process.execPath, [path.join(ROOT, 'services/flashcards/dist/main.js')], {
      env: {
        ...process.env,
        NODE_ENV: 'production',
        FLASHCARDS_ASSERTION_KEY: 'k'.repeat(40),
        FLASHCARDS_DEV_ANONYMOUS_USER: 'true',
      },
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/FLASHCARDS_DEV_ANONYMOUS_USER: must not be true when NODE_ENV=production/);
  });
});
