import { callerKeyEnv } from '@lingua/grpc';
import type { RunningService } from '@lingua/bootstrap';
import type { TestClock } from '@lingua/testing';
import { loadServiceConfig, parseServiceConfig } from '../src/config';
import { call, sampleCard, startFlashcards, stopFlashcards, tokenFor } from './support';

let service: RunningService;
let clock: TestClock;

beforeAll(async () => {
  ({ service, clock } = await startFlashcards({ FLASHCARDS_DEV_ANONYMOUS_USER: 'true' }));
});
afterAll(() => stopFlashcards(service));

describe('development mode: anonymous Group B callers', () => {
  it('When dev mode is on and no token is sent, Then Group B acts as the one fixed test user', async () => {
    const created = await call(service, 'POST', '/api/flashcards', { body: sampleCard('anon') });
    expect(created.status).toBe(200);
    const list = await call(service, 'GET', '/api/flashcards');
    expect(list.body.data.flashcards.map((c: { word: string }) => c.word)).toEqual(['anon']);
    // the card is the dev user's, not visible to a real user
    const real = await call(service, 'GET', '/api/flashcards', { headers: tokenFor(service, clock).auth });
    expect(real.body.data.count).toBe(0);
    // a caller, when sent, still decides who it is, and a bad one is still refused
    for (const headers of [{ authorization: 'Bearer nope' }, { 'x-lingua-assertion': 'v1.nope.nope' }])
      expect((await call(service, 'GET', '/api/flashcards', { headers })).status).toBe(401);
  });

  it('When dev mode is on, Then Group C still requires a token', async () => {
    const res = await call(service, 'GET', '/api/flashcard-sets');
    expect(res.status).toBe(401);
    expect(res.body.error).toMatchObject({ code: 'AUTH003' });
  });

  it('When NODE_ENV is production, Then the dev flag is refused, naming the variable', () => {
    const production = {
      NODE_ENV: 'production',
      FLASHCARDS_ASSERTION_KEY: 'x'.repeat(40),
      // production requires its gRPC callers' public keys (docs/adr/0018)
      ...callerKeyEnv(),
    };
    expect(() => parseServiceConfig({ ...production, FLASHCARDS_DEV_ANONYMOUS_USER: 'true' })).toThrow(
      /FLASHCARDS_DEV_ANONYMOUS_USER: must not be true when NODE_ENV=production/,
    );
    expect(parseServiceConfig(production).devAnonymousUser).toBe(false);
    expect(
      loadServiceConfig({ NODE_ENV: 'development', FLASHCARDS_DEV_ANONYMOUS_USER: 'true' }).devAnonymousUser,
    ).toBe(true);
    expect(loadServiceConfig({ NODE_ENV: 'development' }).devAnonymousUser).toBe(false);
  });
});
