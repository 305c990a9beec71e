import { loadGatewayConfig } from '../../../gateway/src/config';
import { type RunningGateway, startGateway } from '../../../gateway/src/server';
import { TestClock } from '@lingua/testing';
import { SUPPORTED_PAIRS } from '../src/domain/language/supported-languages';
import {
  type AiUnderTest,
  call,
  readLanguageData,
  startAi,
  startEntitlementsStandIn,
  tokenFor,
} from './support';

// The AI routes as the apps reach them: through the real gateway (edge auth, rate limits, proxy).
let ai: AiUnderTest;
let gateway: RunningGateway;
let entitlements: Awaited<ReturnType<typeof startEntitlementsStandIn>>;

beforeAll(async () => {
  entitlements = await startEntitlementsStandIn();
  // the gateway verifies tokens on the wall clock, so the service's clock starts at the real time
  ai = await startAi({ SUBSCRIPTIONS_ADDR: entitlements.address }, { clock: new TestClock(new Date()) });
  gateway = await startGateway(
    loadGatewayConfig({
      NODE_ENV: 'test',
      LOG_LEVEL: 'silent',
      GATEWAY_PORT: '0',
      SHUTDOWN_GRACE_MS: '1000', // as isolatedServiceEnv: a stop does not wait out idle keep-alive connections
      AI_HTTP_URL: ai.service.httpUrl,
    }),
    { logger: ai.service.deps.logger },
  );
  await readLanguageData(ai.config);
}, 180_000);

afterAll(async () => {
  await gateway?.stop();
  await ai?.stop();
  await entitlements?.stop();
});

describe('AI through the gateway', () => {
  it('When a signed-in user uses each AI feature via the gateway, Then each answers in the Group C envelope', async () => {
    const { headers } = tokenFor(ai);
    const g = gateway.url;

    const text = await call(g, 'POST', '/api/ai/analyze-text', {
      headers,
      body: { text: 'The cat sat on the mat.' },
    });
    expect(text.status).toBe(200);
    expect(text.body).toMatchObject({
      success: true,
      data: { wordCount: 6, difficulty: 'beginner' },
      meta: { requestId: expect.any(String) },
    });

    const gen = await call(g, 'POST', '/api/ai/generate', {
      headers,
      body: { mode: 'text', input: 'Rivers carve deep canyons over millions of years.', count: 5 },
    });
    expect(gen.status).toBe(200);
    expect(gen.body.data.cards.length).toBeGreaterThan(0);

    const quota = await call(g, 'GET', '/api/ai/quota', { headers });
    expect(quota.body.data).toMatchObject({ used: 1, limit: 50, isPremium: false });

    const sentence = await call(g, 'POST', '/api/ai/analyze-sentence', {
      headers,
      body: { sentence: `they was late ${Date.now()}` },
    });
    expect(sentence.status).toBe(200);

    const lookup = await call(g, 'POST', '/api/ai/lookup', { headers, body: { word: 'canyon' } });
    expect(lookup.body.data).toMatchObject({ lemma: 'canyon', quota: { used: 1, limit: 5 } });

    const described = await call(g, 'POST', '/api/ai/images/description', {
      headers,
      body: { word: 'canyon' },
    });
    const image = await call(g, 'POST', '/api/ai/images', {
      headers,
      body: { description: described.body.data.description },
    });
    expect(image.status).toBe(201);
    const file = await call(g, 'GET', image.body.data.url, { headers });
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('image/png');
    expect((file.body as Buffer).subarray(1, 4).toString('latin1')).toBe('PNG');
  });

  // a short text per source language; every supported pair, both modes, through the real gateway
  const TEXTS: Record<string, [string, string]> = {
    en: ['The dog sleeps in the house.', 'dog'],
    de: ['Der Hund schläft im Haus.', 'Hund'],
    fr: ['Le chien dort dans la maison.', 'chien'],
    es: ['El perro duerme en la casa.', 'perro'],
    it: ['Il cane dorme nella casa.', 'cane'],
    pt: ['O cão dorme na casa.', 'cão'],
    nl: ['De hond slaapt in het huis.', 'hond'],
    ru: ['Собака спит в доме.', 'собака'],
  };
  const DOG: Record<string, string> = {
    de: 'Hund',
    fr: 'chien',
    es: 'perro',
    it: 'cane',
    pt: 'cão',
    nl: 'hond',
    ru: 'собака',
    en: 'dog',
  };
  it.each(SUPPORTED_PAIRS.map(([from, to]) => [from, to]))(
    'When cards are generated %s → %s via the gateway, Then text and theme mode both return translated cards',
    async (from, to) => {
      const { headers } = tokenFor(ai);
      const [text, word] = TEXTS[from]!;
      const fromText = await call(gateway.url, 'POST', '/api/ai/generate', {
        headers,
        body: { mode: 'text', input: text, sourceLanguage: from, targetLanguage: to, count: 5 },
      });
      expect(fromText.status).toBe(200);
      expect(fromText.body.data.cards.find((c: { word: string }) => c.word === word)).toMatchObject({
        translation: from === 'en' ? DOG[to] : 'dog',
      });
      const theme = await call(gateway.url, 'POST', '/api/ai/generate', {
        headers,
        body: { mode: 'theme', input: 'food', sourceLanguage: from, targetLanguage: to, count: 10 },
      });
      expect(theme.status).toBe(200);
      expect(theme.body.data.cards).toHaveLength(10);
      for (const card of theme.body.data.cards) expect(card.translation).toEqual(expect.any(String));
    },
  );

  /** A look-up through the gateway by a new user (each has a window of 5): the answer's data. */
  const lookUp = async (body: Record<string, string>) => {
    const res = await call(gateway.url, 'POST', '/api/ai/lookup', { headers: tokenFor(ai).headers, body });
    expect(res.status).toBe(200);
    return res.body.data;
  };

  // inflected words reduce to their dictionary form (Apertium's analysers; for German full-form lists, then Hunspell's affix rules)
  it.each([
    ['de', 'spielten', 'spielen'],
    ['de', 'Kinder', 'Kind'],
    ['de', 'ging', 'gehen'],
    ['de', 'Nächte', 'Nacht'],
    ['es', 'comieron', 'comer'],
    ['fr', 'mangeaient', 'manger'],
    ['it', 'dormivano', 'dormire'],
    ['it', 'bambini', 'bambino'],
    ['pt', 'comeram', 'comer'],
    ['nl', 'speelden', 'spelen'],
  ])(
    'When a %s look-up asks for the inflected "%s" via the gateway, Then it finds "%s" and its English translation',
    async (language, word, lemma) => {
      expect(await lookUp({ word, language })).toMatchObject({ lemma, translation: expect.any(String) });
    },
  );

  // issue 41's wrong senses: each translation agrees with the card's class and definition
  it.each([
    ['band', 'banda', 'noun'],
    ['running', 'correr', 'verb'],
    ['tent', 'tienda de campaña', 'noun'],
  ])(
    'When "%s" is looked up in Spanish via the gateway, Then it is "%s" (%s), not another sense',
    async (word, translation, partOfSpeech) => {
      expect(await lookUp({ word, targetLanguage: 'es' })).toMatchObject({ translation, partOfSpeech });
    },
  );

  // a verb's translation is a verb: the reverse dictionary's marks (fra-eng, deu-eng) or, where the
  // reverse dictionary has none (por-eng), the target language's analyser tell a noun from a verb
  it.each([
    ['sleep', 'de', 'schlafen'],
    ['sleep', 'fr', 'dormir'],
    ['drink', 'fr', 'boire'],
    ['help', 'pt', 'ajudar'],
  ])(
    'When the verb "%s" is looked up in %s via the gateway, Then its translation is the verb "%s", not a noun',
    async (word, targetLanguage, translation) => {
      expect(await lookUp({ word, targetLanguage })).toMatchObject({ partOfSpeech: 'verb', translation });
    },
  );

  // FreeDict spa-eng has 4 000 headwords: Apertium's English–Spanish pair, read backwards, has these
  it.each([
    ['feliz', 'happy', 'adjective'],
    ['jardín', 'garden', 'noun'],
    ['aquí', 'here', 'adverb'],
  ])(
    'When the Spanish "%s" is looked up in English via the gateway, Then it is "%s" (%s)',
    async (word, translation, partOfSpeech) => {
      expect(await lookUp({ word, language: 'es' })).toMatchObject({
        lemma: word,
        translation,
        partOfSpeech,
      });
    },
  );

  // a word that is its own dictionary form and a form of another word is looked up as itself
  it.each([
    ['море', 'ru', 'sea'],
    ['ложка', 'ru', 'spoon'],
    ['verliezen', 'nl', 'lose'],
  ])(
    'When "%s" (%s), also a form of another word, is looked up in English via the gateway, Then it is itself: "%s"',
    async (word, language, translation) => {
      expect(await lookUp({ word, language })).toMatchObject({ lemma: word, translation });
    },
  );

  // the analysers give a feminine noun its masculine as lemma (hija → hijo, son): the noun the
  // dictionary lists with a meaning of its own is translated as written
  it.each([
    ['hija', 'es', 'daughter'],
    ['figlia', 'it', 'daughter'],
    ['filha', 'pt', 'daughter'],
    ['hermana', 'es', 'sister'],
  ])(
    'When the noun "%s" (%s) is looked up in English via the gateway, Then it is "%s", not its masculine',
    async (word, language, translation) => {
      expect(await lookUp({ word, language })).toMatchObject({ lemma: word, translation });
    },
  );

  // ita-eng has 4 000 headwords and nld-eng lacks "schrijven": two other languages' dictionaries
  // that agree translate the word, and the answer says so
  it.each([
    ['nave', 'it', 'ship', 'Portuguese, Dutch'],
    ['schrijven', 'nl', 'write', 'Italian, Spanish'],
  ])(
    'When "%s" (%s), in no dictionary of the pair, is looked up in English via the gateway, Then it is "%s" through %s, said in notes',
    async (word, language, translation, through) => {
      const data = await lookUp({ word, language });
      expect(data).toMatchObject({ translation });
      expect(data.notes).toEqual([expect.stringContaining(`(through ${through})`)]);
    },
  );

  it('When Spanish cards are generated from a camping text via the gateway, Then "pitch" is not "pez", "frozen" is an adjective and "tent" keeps its spaces', async () => {
    const { headers } = tokenFor(ai);
    const res = await call(gateway.url, 'POST', '/api/ai/generate', {
      headers,
      body: {
        mode: 'text',
        input: 'We put up the tent on a flat pitch near the frozen lake.',
        sourceLanguage: 'en',
        targetLanguage: 'es',
        count: 10,
      },
    });
    expect(res.status).toBe(200);
    const cards = res.body.data.cards as Array<{ word: string; translation: string; partOfSpeech: string }>;
    const card = (word: string) => cards.find((c) => c.word === word);
    expect(card('pitch')?.translation).toEqual(expect.any(String));
    expect(card('pitch')?.translation).not.toBe('pez');
    // the adjective is translated by the Spanish participle used as an adjective, not the verb "helar"
    expect(card('frozen')).toMatchObject({ partOfSpeech: 'adjective', translation: 'congelado' });
    expect(card('tent')).toMatchObject({ translation: 'tienda de campaña' });
  });

  it.each([
    ['собака', 'dog'],
    ['книгу', 'book'],
    ['воду', 'water'],
  ])(
    'When the Russian "%s" is looked up in English via the gateway, Then it is "%s"',
    async (word, translation) => {
      const res = await call(gateway.url, 'POST', '/api/ai/lookup', {
        headers: tokenFor(ai).headers,
        body: { word, language: 'ru', targetLanguage: 'en' },
      });
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({ translation });
    },
  );

  it("When a French sentence with aujourd'hui is analysed via the gateway, Then the word is one token and no spelling is corrected", async () => {
    const { headers } = tokenFor(ai);
    const res = await call(gateway.url, 'POST', '/api/ai/analyze-sentence', {
      headers,
      body: { sentence: `Il fait très froid aujourd'hui, ${Date.now()}.`, language: 'fr' },
    });
    expect(res.status).toBe(200);
    expect(res.body.data.tokens).toEqual(
      expect.arrayContaining([expect.objectContaining({ text: "aujourd'hui" })]),
    );
    expect(res.body.data.corrections).toEqual([]);
  });

  it('When cards are generated from a Spanish text of inflected words, Then each card is the dictionary form, once', async () => {
    const { headers } = tokenFor(ai);
    const res = await call(gateway.url, 'POST', '/api/ai/generate', {
      headers,
      body: {
        mode: 'text',
        input: 'Los niños comieron manzanas. El niño come una manzana y bebe agua.',
        sourceLanguage: 'es',
        count: 5,
      },
    });
    expect(res.status).toBe(200);
    const words = (res.body.data.cards as Array<{ word: string }>).map((c) => c.word);
    expect(words).toEqual(expect.arrayContaining(['niño', 'comer', 'manzana']));
    expect(words).not.toEqual(expect.arrayContaining(['comieron']));
    expect(new Set(words).size).toBe(words.length);
  });

  it('When a free user exceeds the look-up window via the gateway, Then the 429 RATE002 envelope and Retry-After reach the client', async () => {
    const { headers } = tokenFor(ai);
    for (let i = 0; i < 5; i++)
      expect(
        (await call(gateway.url, 'POST', '/api/ai/lookup', { headers, body: { word: 'tree' } })).status,
      ).toBe(200);
    const over = await call(gateway.url, 'POST', '/api/ai/lookup', { headers, body: { word: 'tree' } });
    expect(over.status).toBe(429);
    expect(over.body).toMatchObject({ success: false, error: { code: 'RATE002', details: { limit: 5 } } });
    expect(Number(over.headers.get('retry-after'))).toBe(3 * 3600);
  });

  it('When there is no token, Then the gateway and the service answer 401', async () => {
    const res = await call(gateway.url, 'GET', '/api/ai/quota');
    expect(res.status).toBe(401);
  });
});
