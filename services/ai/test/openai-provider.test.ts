import { imageModel } from '../src/data-access/image.model';
import { encodePng } from '../src/domain/providers/png-encoder';
import { chatReply, errorReply, startOpenAiStandIn } from './openai-stand-in';
import { type AiUnderTest, call, startAi, startEntitlementsStandIn, tokenFor } from './support';

// The service with AI_PROVIDER=openai against a loopback OpenAI-compatible stand-in: real client
// code (the official openai package), real HTTP, real timeouts and retries.
let ai: AiUnderTest;
let openai: Awaited<ReturnType<typeof startOpenAiStandIn>>;
let entitlements: Awaited<ReturnType<typeof startEntitlementsStandIn>>;
let url: string;

beforeAll(async () => {
  openai = await startOpenAiStandIn();
  entitlements = await startEntitlementsStandIn();
  ai = await startAi({
    AI_PROVIDER: 'openai',
    OPENAI_BASE_URL: openai.baseUrl,
    OPENAI_API_KEY: 'sk-test-key',
    OPENAI_MODEL: 'test-model',
    AI_PROVIDER_TIMEOUT_MS: '1000',
    AI_PROVIDER_MAX_RETRIES: '2',
    SUBSCRIPTIONS_ADDR: entitlements.address,
  });
  url = ai.service.httpUrl;
});

afterAll(async () => {
  await ai?.stop();
  await openai?.stop();
  await entitlements?.stop();
});

beforeEach(() => openai.reset());

const card = (word: string) => ({
  word,
  translation: `${word}-es`,
  partOfSpeech: 'noun',
  pronunciation: null,
  definition: `the meaning of ${word}`,
  example: `A ${word} here.`,
  exampleTranslation: `Un ${word} aquí.`,
  synonyms: ['other'],
  difficulty: 'beginner',
  confidence: 0.8,
});
const generateBody = {
  mode: 'theme',
  input: 'kitchen',
  count: 5,
  targetLanguage: 'es',
  includeSynonyms: true,
};
const quotaUsed = async (headers: Record<string, string>) =>
  (await call(url, 'GET', '/api/ai/quota', { headers })).body.data.used as number;

describe('openai provider: card generation', () => {
  it('When the model answers valid JSON, Then its cards and token usage are returned, asked for in JSON mode', async () => {
    openai.reply(chatReply({ cards: ['pan', 'pot', 'fork', 'knife', 'spoon'].map(card) }));
    const user = tokenFor(ai);
    const res = await call(url, 'POST', '/api/ai/generate', { headers: user.headers, body: generateBody });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      provider: 'openai',
      usage: { promptTokens: 120, completionTokens: 80, totalTokens: 200 },
      unavailable: [],
    });
    expect(res.body.data.cards).toHaveLength(5);
    expect(res.body.data.cards[0]).toEqual(card('pan'));

    expect(openai.requests).toHaveLength(1);
    const sent = openai.requests[0]!;
    expect(sent.path).toBe('/v1/chat/completions');
    expect(sent.headers.authorization).toBe('Bearer sk-test-key');
    expect(sent.body).toMatchObject({ model: 'test-model', response_format: { type: 'json_object' } });
    expect(sent.body.messages[1].content).toContain('Theme: kitchen');
    expect(await quotaUsed(user.headers)).toBe(1);
  });

  it('When the provider answers 429 then 500, Then the call is retried and succeeds', async () => {
    openai.reply(
      errorReply(429),
      errorReply(500),
      chatReply({ cards: ['a1', 'b1', 'c1', 'd1', 'e1'].map(card) }),
    );
    const res = await call(url, 'POST', '/api/ai/generate', {
      headers: tokenFor(ai).headers,
      body: generateBody,
    });
    expect(res.status).toBe(200);
    expect(openai.requests).toHaveLength(3);
  });

  it('When the provider keeps failing with 503, Then the answer is 502 SRV002 after the retries, and no quota is used', async () => {
    openai.reply(errorReply(503), errorReply(503), errorReply(503));
    const user = tokenFor(ai);
    const res = await call(url, 'POST', '/api/ai/generate', { headers: user.headers, body: generateBody });
    expect(res.status).toBe(502);
    expect(res.body.error.code).toBe('SRV002');
    expect(openai.requests).toHaveLength(3); // 1 + AI_PROVIDER_MAX_RETRIES
    expect(await quotaUsed(user.headers)).toBe(0);
  });

  it('When the provider does not answer in time, Then the answer is 503 SRV002 (no hang), and no quota is used', async () => {
    openai.reply('hang', 'hang', 'hang');
    const user = tokenFor(ai);
    const res = await call(url, 'POST', '/api/ai/generate', { headers: user.headers, body: generateBody });
    expect(res.status).toBe(503);
    expect(res.body.error).toMatchObject({ code: 'SRV002' });
    expect(await quotaUsed(user.headers)).toBe(0);
  });

  it.each([
    ['text that is not JSON', 'Sure! Here are your cards: pan, pot'],
    ['JSON of the wrong shape', { cards: [{ word: 'pan', confidence: 3 }] }],
    ['JSON with no cards', { words: [] }],
  ])(
    'When the model returns %s, Then the answer is 502 SRV002 and no quota is used',
    async (_case, content) => {
      openai.reply(chatReply(content));
      const user = tokenFor(ai);
      const res = await call(url, 'POST', '/api/ai/generate', { headers: user.headers, body: generateBody });
      expect(res.status).toBe(502);
      expect(res.body.error.code).toBe('SRV002');
      expect(JSON.stringify(res.body)).not.toContain('Sure!'); // model output never leaks into errors
      expect(await quotaUsed(user.headers)).toBe(0);
    },
  );
});

describe('openai provider: sentence analysis, look-up, images', () => {
  it('When the same sentence is analysed twice, Then the model is asked once (the second is a cache hit)', async () => {
    const sentence = `She go to work by bus ${Date.now()}.`;
    openai.reply(
      chatReply({
        corrected: sentence.replace('go', 'goes'),
        corrections: [
          { type: 'agreement', original: 'She go', suggestion: 'She goes', message: 'agreement' },
        ],
        highValueWords: [],
      }),
    );
    const headers = tokenFor(ai).headers;
    const first = await call(url, 'POST', '/api/ai/analyze-sentence', { headers, body: { sentence } });
    const second = await call(url, 'POST', '/api/ai/analyze-sentence', { headers, body: { sentence } });
    expect(first.body.data).toMatchObject({
      cached: false,
      provider: 'openai',
      corrected: expect.stringContaining('goes'),
    });
    expect(second.body.data).toMatchObject({ cached: true, corrected: first.body.data.corrected });
    expect(openai.requests).toHaveLength(1);
  });

  it('When a look-up fails at the provider, Then it is not counted against the window', async () => {
    openai.reply(chatReply('not json'));
    const user = tokenFor(ai);
    expect(
      (await call(url, 'POST', '/api/ai/lookup', { headers: user.headers, body: { word: 'bank' } })).status,
    ).toBe(502);
    openai.reply(
      chatReply({
        lemma: 'bank',
        partOfSpeech: 'noun',
        pronunciation: '/bæŋk/',
        cefrLevel: 'A2',
        definition: 'a place that keeps money',
        translation: 'banco',
        examples: ['I went to the bank.'],
      }),
    );
    const ok = await call(url, 'POST', '/api/ai/lookup', {
      headers: user.headers,
      body: { word: 'bank', targetLanguage: 'es' },
    });
    expect(ok.status).toBe(200);
    expect(ok.body.data).toMatchObject({
      translation: 'banco',
      definition: 'a place that keeps money',
      quota: { used: 1, remaining: 4 },
    });
  });

  it('When an image is described and rendered by the provider, Then the returned PNG is stored and served', async () => {
    const png = encodePng(new Uint8Array(4 * 4 * 4).fill(200), 4, 4);
    openai.reply(chatReply({ description: 'A red apple on a wooden table.' }), {
      status: 200,
      body: { created: 1, data: [{ b64_json: png.toString('base64') }] },
    });
    const headers = tokenFor(ai).headers;
    const described = await call(url, 'POST', '/api/ai/images/description', {
      headers,
      body: { word: 'apple' },
    });
    expect(described.body.data).toMatchObject({
      description: 'A red apple on a wooden table.',
      source: 'model',
    });
    const created = await call(url, 'POST', '/api/ai/images', {
      headers,
      body: { description: described.body.data.description },
    });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({
      contentType: 'image/png',
      width: 4,
      height: 4,
      provider: 'openai',
    });
    expect(openai.requests[1]).toMatchObject({
      path: '/v1/images/generations',
      body: { prompt: 'A red apple on a wooden table.', response_format: 'b64_json' },
    });
    const file = await call(url, 'GET', created.body.data.url, { headers });
    expect(file.body).toEqual(png);
  });

  it('When the image provider returns something that is not an image, Then it is 502 and nothing is stored', async () => {
    const images = imageModel(ai.service.deps.mongo.connection);
    const before = await images.countDocuments();
    openai.reply({
      status: 200,
      body: { created: 1, data: [{ b64_json: Buffer.from('<html>').toString('base64') }] },
    });
    const res = await call(url, 'POST', '/api/ai/images', {
      headers: tokenFor(ai).headers,
      body: { description: 'x' },
    });
    expect(res.status).toBe(502);
    expect(res.body.error.code).toBe('SRV002');
    expect(await images.countDocuments()).toBe(before);
  });
});
