import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AiUnderTest, call, startAi, startEntitlementsStandIn, tokenFor } from './support';

// The local provider on a machine without the Debian language packages: the service starts, says what
// is missing (readiness, optional checks) and answers with fields unavailable, never a 5xx.
let ai: AiUnderTest;
let entitlements: Awaited<ReturnType<typeof startEntitlementsStandIn>>;
let empty: string;

beforeAll(async () => {
  empty = mkdtempSync(join(tmpdir(), 'ai-no-data-'));
  entitlements = await startEntitlementsStandIn();
  ai = await startAi({
    SUBSCRIPTIONS_ADDR: entitlements.address,
    AI_WORDNET_DIR: join(empty, 'wordnet'),
    AI_DICTD_DIR: join(empty, 'dictd'),
  });
});

afterAll(async () => {
  await ai?.stop();
  await entitlements?.stop();
  rmSync(empty, { recursive: true, force: true });
});

describe('local provider without language data', () => {
  it('When the packages are missing, Then the service is ready and readiness names each missing part', async () => {
    const res = await call(ai.service.httpUrl, 'GET', '/health/ready');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ ready: true, status: 'degraded' });
    expect(res.body.checks['language_data:wordnet']).toMatchObject({
      status: 'down',
      error: expect.stringContaining('wordnet-base'),
    });
    expect(res.body.checks['language_data:en-de']).toMatchObject({
      status: 'down',
      error: expect.stringContaining('dict-freedict-eng-deu'),
    });
  });

  it('When cards are asked with a translation, Then they come without it, listed unavailable with the reason', async () => {
    const res = await call(ai.service.httpUrl, 'POST', '/api/ai/generate', {
      headers: tokenFor(ai).headers,
      body: { mode: 'text', input: 'The dog sleeps in the house.', targetLanguage: 'de', count: 5 },
    });
    expect(res.status).toBe(200);
    const { cards, unavailable, notes } = res.body.data;
    expect(cards.length).toBeGreaterThan(0);
    for (const card of cards) expect(card).toMatchObject({ translation: null, definition: null });
    expect(unavailable).toEqual(expect.arrayContaining(['translation', 'definition']));
    expect(notes).toEqual(
      expect.arrayContaining([expect.stringContaining('No English–German dictionary is installed')]),
    );
  });

  it('When a theme is asked, Then no cards come (nothing charged) and the note says WordNet is missing', async () => {
    const user = tokenFor(ai);
    const res = await call(ai.service.httpUrl, 'POST', '/api/ai/generate', {
      headers: user.headers,
      body: { mode: 'theme', input: 'food' },
    });
    expect(res.status).toBe(200);
    expect(res.body.data.cards).toEqual([]);
    expect(res.body.data.notes).toEqual([expect.stringContaining('WordNet is not installed')]);
    expect(
      (await call(ai.service.httpUrl, 'GET', '/api/ai/quota', { headers: user.headers })).body.data.used,
    ).toBe(0);
  });

  it('When a word is looked up, Then definition and translation are unavailable, the rest still comes', async () => {
    const res = await call(ai.service.httpUrl, 'POST', '/api/ai/lookup', {
      headers: tokenFor(ai).headers,
      body: { word: 'houses', targetLanguage: 'fr' },
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      lemma: 'house',
      cefrLevel: 'A1',
      definition: null,
      translation: null,
      unavailable: ['translation', 'definition'],
    });
  });
});
