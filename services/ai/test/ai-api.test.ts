import { createGrpcClient, devCallSigner } from '@lingua/grpc';
import { loadPackage } from '@lingua/proto';
import { type AiUnderTest, call, startAi, startEntitlementsStandIn, tokenFor } from './support';

// The real service in-process over the real Redis, FerretDB and NATS, with the local provider and a
// loopback stand-in for the subscriptions service's EntitlementsService.
let ai: AiUnderTest;
let entitlements: Awaited<ReturnType<typeof startEntitlementsStandIn>>;
let url: string;
const HOUR = 3_600_000;

beforeAll(async () => {
  entitlements = await startEntitlementsStandIn();
  ai = await startAi({ SUBSCRIPTIONS_ADDR: entitlements.address, AI_ENTITLEMENT_CACHE_MS: '60000' });
  url = ai.service.httpUrl;
});

afterAll(async () => {
  await ai?.stop();
  await entitlements?.stop();
});

const TEXT =
  'The expedition crossed the glacier at dawn. Exhausted climbers pitched their tents beside a frozen lake, ' +
  'while the guide studied the treacherous ridge ahead. Avalanches had buried the old trail, so the team ' +
  'negotiated a narrow ledge. By evening, everyone celebrated the spectacular summit.';

describe('POST /api/ai/generate', () => {
  it('When a user generates cards from a text, Then every card has the spec fields and usage is counted', async () => {
    const user = tokenFor(ai);
    const res = await call(url, 'POST', '/api/ai/generate', {
      headers: user.headers,
      body: {
        mode: 'text',
        input: TEXT,
        difficulty: 'intermediate',
        count: 5,
        includeExamples: true,
        includeSynonyms: true,
      },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, meta: { requestId: expect.any(String) } });
    const { cards, usage, unavailable, provider } = res.body.data;
    expect(provider).toBe('local');
    expect(cards).toHaveLength(5);
    for (const card of cards) {
      expect(Object.keys(card).sort()).toEqual(
        [
          'confidence',
          'definition',
          'difficulty',
          'example',
          'exampleTranslation',
          'partOfSpeech',
          'pronunciation',
          'synonyms',
          'translation',
          'word',
        ].sort(),
      );
      expect(card.confidence).toBeGreaterThanOrEqual(0);
      expect(card.confidence).toBeLessThanOrEqual(1);
      expect(['beginner', 'intermediate', 'advanced']).toContain(card.difficulty);
      expect(TEXT).toContain(card.example.slice(0, 20)); // no translation asked: examples are the text's own
      expect(card.translation).toBeNull(); // no targetLanguage, no translation
      expect(card.definition).toEqual(expect.any(String)); // WordNet (wordnet-base)
    }
    expect(unavailable).not.toContain('translation');
    expect(unavailable).not.toContain('definition');
    // "tents" in the text becomes the dictionary form, with its CMU pronunciation
    expect(cards.find((c: { word: string }) => c.word === 'tent')).toMatchObject({
      partOfSpeech: 'noun',
      pronunciation: '/tˈɛnt/',
      difficulty: 'intermediate',
      definition: expect.stringContaining('portable shelter'),
    });
    expect(usage.promptTokens).toBeGreaterThan(30);
    expect(usage.totalTokens).toBe(usage.promptTokens + usage.completionTokens);
  });

  it.each([
    ['count below 5', { mode: 'text', input: 'hello world', count: 4 }, 'count'],
    ['count above 20', { mode: 'text', input: 'hello world', count: 21 }, 'count'],
    ['count not an integer', { mode: 'text', input: 'hello world', count: 7.5 }, 'count'],
    ['an unknown mode', { mode: 'poem', input: 'hello world' }, 'mode'],
    ['no input', { mode: 'text' }, 'input'],
    ['a huge input', { mode: 'text', input: 'word '.repeat(2_000) }, 'input'],
    ['an input of the wrong type', { mode: 'text', input: { $gt: '' } }, 'input'],
    ['a bad difficulty', { mode: 'text', input: 'hi', difficulty: 'expert' }, 'difficulty'],
  ])('When the body has %s, Then it is 400 VAL001 naming the field', async (_case, body, field) => {
    const res = await call(url, 'POST', '/api/ai/generate', { headers: tokenFor(ai).headers, body });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'VAL001', details: { [field]: expect.any(Array) } });
  });

  it('When the body is not JSON, Then it is 400, not 500', async () => {
    const res = await call(url, 'POST', '/api/ai/generate', {
      headers: tokenFor(ai).headers,
      body: '{"mode":',
    });
    expect(res.status).toBe(400);
    expect(res.body.success).toBe(false);
  });

  it('When there is no token, Then it is 401', async () => {
    const res = await call(url, 'POST', '/api/ai/generate', { body: { mode: 'text', input: TEXT } });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('AUTH003');
  });

  it('When the text has no content words, Then no cards come back and no quota is used', async () => {
    const user = tokenFor(ai);
    const res = await call(url, 'POST', '/api/ai/generate', {
      headers: user.headers,
      body: { mode: 'text', input: 'and the of it' },
    });
    expect(res.status).toBe(200);
    expect(res.body.data.cards).toEqual([]);
    expect((await call(url, 'GET', '/api/ai/quota', { headers: user.headers })).body.data.used).toBe(0);
  });

  it('When a user generates cards from an English text for German, Then translations and dictionary examples come from FreeDict', async () => {
    const res = await call(url, 'POST', '/api/ai/generate', {
      headers: tokenFor(ai).headers,
      body: { mode: 'text', input: 'The dog sleeps in the house.', targetLanguage: 'de', count: 5 },
    });
    expect(res.status).toBe(200);
    const { cards } = res.body.data;
    expect(cards.find((c: { word: string }) => c.word === 'house')).toMatchObject({
      translation: 'Haus',
      definition: expect.stringContaining('dwelling'),
      // a dictionary example and its printed translation, never a made-up one
      example: 'build a house',
      exampleTranslation: 'ein Haus bauen',
    });
    expect(cards.find((c: { word: string }) => c.word === 'dog')).toMatchObject({ translation: 'Hund' });
  });

  it('When a theme is asked offline, Then N cards on the topic come from WordNet, in the requested language, and it is charged once', async () => {
    const user = tokenFor(ai);
    const res = await call(url, 'POST', '/api/ai/generate', {
      headers: user.headers,
      body: { mode: 'theme', input: 'food', difficulty: 'beginner', count: 8, targetLanguage: 'es' },
    });
    expect(res.status).toBe(200);
    const { cards } = res.body.data;
    expect(cards).toHaveLength(8);
    for (const card of cards) {
      expect(card.definition).toEqual(expect.any(String));
      expect(card.translation).toEqual(expect.any(String)); // words with a translation come first
    }
    const words = cards.map((c: { word: string }) => c.word);
    expect(words).toEqual(expect.arrayContaining(['coffee']));
    expect(cards.find((c: { word: string }) => c.word === 'coffee').translation).toBe('café');
    const quota = await call(url, 'GET', '/api/ai/quota', { headers: user.headers });
    expect(quota.body.data.used).toBe(1);
  });

  it('When the theme is "health" (nothing under it in WordNet), Then its opposite illness gives the cards, in Russian', async () => {
    const res = await call(url, 'POST', '/api/ai/generate', {
      headers: tokenFor(ai).headers,
      body: { mode: 'theme', input: 'health', difficulty: 'beginner', count: 10, targetLanguage: 'ru' },
    });
    expect(res.status).toBe(200);
    const { cards } = res.body.data;
    expect(cards).toHaveLength(10);
    for (const card of cards) expect(card.definition).toEqual(expect.any(String));
    expect(cards.find((c: { word: string }) => c.word === 'disease')).toMatchObject({
      translation: 'болезнь',
    });
  });

  it('When a theme is unknown to WordNet, Then no cards come back with a note, and no quota is used', async () => {
    const user = tokenFor(ai);
    const res = await call(url, 'POST', '/api/ai/generate', {
      headers: user.headers,
      body: { mode: 'theme', input: 'qwzxv blorft' },
    });
    expect(res.status).toBe(200);
    expect(res.body.data.cards).toEqual([]);
    expect(res.body.data.notes).toEqual([expect.stringContaining('not a theme WordNet knows')]);
    expect((await call(url, 'GET', '/api/ai/quota', { headers: user.headers })).body.data.used).toBe(0);
  });

  it('When a German text is given, Then its words are found in the German–English dictionary and translated into English', async () => {
    const res = await call(url, 'POST', '/api/ai/generate', {
      headers: tokenFor(ai).headers,
      body: { mode: 'text', input: 'Der Hund schläft im Haus.', sourceLanguage: 'de', count: 5 },
    });
    expect(res.status).toBe(200);
    const haus = res.body.data.cards.find((c: { word: string }) => c.word === 'Haus');
    expect(haus).toMatchObject({ translation: 'house', partOfSpeech: 'noun' });
  });

  it.each([
    [{ sourceLanguage: 'en', targetLanguage: 'zh' }, 'targetLanguage', 'en-de'],
    [{ sourceLanguage: 'de', targetLanguage: 'fr' }, 'targetLanguage', 'de-en'],
    [{ sourceLanguage: 'ru', targetLanguage: 'de' }, 'targetLanguage', 'ru-en'],
    [{ sourceLanguage: 'xx' }, 'sourceLanguage', 'en'],
  ])(
    'When an unsupported language pair %j is asked, Then it is 400 VAL001 naming the field and the supported choice, and no quota is used',
    async (languages, field, oneSupported) => {
      const user = tokenFor(ai);
      const res = await call(url, 'POST', '/api/ai/generate', {
        headers: user.headers,
        body: { mode: 'text', input: 'The dog sleeps.', ...languages },
      });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({
        code: 'VAL001',
        details: {
          [field]: [expect.any(String)],
          reason: 'unsupported_language',
          supported: expect.arrayContaining([oneSupported]),
        },
      });
      expect((await call(url, 'GET', '/api/ai/quota', { headers: user.headers })).body.data.used).toBe(0);
    },
  );
});

describe('generation quota', () => {
  it('When a free user has generated 50 times today, Then the 51st is 429 RATE002 until midnight UTC, and the next day is fresh', async () => {
    const user = tokenFor(ai);
    const body = { mode: 'text', input: 'Cats sleep.', count: 5 };
    for (let i = 0; i < 50; i++) {
      const ok = await call(url, 'POST', '/api/ai/generate', { headers: user.headers, body });
      expect(ok.status).toBe(200);
    }
    const over = await call(url, 'POST', '/api/ai/generate', { headers: user.headers, body });
    expect(over.status).toBe(429);
    expect(over.body.error).toMatchObject({
      code: 'RATE002',
      details: { limit: 50, resetAt: '2026-03-11T00:00:00.000Z' },
    });
    expect(Number(over.headers.get('retry-after'))).toBe(14 * 3600);

    const quota = await call(url, 'GET', '/api/ai/quota', { headers: user.headers });
    expect(quota.status).toBe(200);
    expect(quota.body.data).toMatchObject({
      used: 50,
      limit: 50,
      resetAt: '2026-03-11T00:00:00.000Z',
      isPremium: false,
    });

    ai.clock.advance(14 * HOUR); // midnight UTC
    const fresh = tokenFor(ai, { sub: user.sub });
    expect((await call(url, 'POST', '/api/ai/generate', { headers: fresh.headers, body })).status).toBe(200);
    const next = await call(url, 'GET', '/api/ai/quota', { headers: fresh.headers });
    expect(next.body.data).toMatchObject({ used: 1, limit: 50, resetAt: '2026-03-12T00:00:00.000Z' });
  });

  it('When the user is premium (per the subscriptions service), Then the limit is unlimited and the answer is cached', async () => {
    const user = tokenFor(ai);
    entitlements.premium.add(user.sub);
    const before = entitlements.state.calls;
    const quota = await call(url, 'GET', '/api/ai/quota', { headers: user.headers });
    expect(quota.body.data).toMatchObject({ used: 0, limit: -1, isPremium: true, lookups: { limit: -1 } });
    await call(url, 'GET', '/api/ai/quota', { headers: user.headers });
    expect(entitlements.state.calls).toBe(before + 1); // second answer came from the cache
  });
});

describe('POST /api/ai/analyze-text', () => {
  it('When a text is analysed, Then difficulty, counts, readability and suggested words come back', async () => {
    const res = await call(url, 'POST', '/api/ai/analyze-text', {
      headers: tokenFor(ai).headers,
      body: { text: TEXT },
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      difficulty: expect.stringMatching(/^(beginner|intermediate|advanced)$/),
      wordCount: 44,
      sentenceCount: 4,
      averageSentenceLength: 11,
      readabilityScore: expect.any(Number),
    });
    expect(res.body.data.uniqueWords).toBeLessThan(44);
    expect(res.body.data.suggestedWords.map((w: { word: string }) => w.word)).toEqual(
      expect.arrayContaining(['glacier', 'treacherous']),
    );
  });

  it('When the text is over 20,000 characters or has no words, Then it is 400', async () => {
    const headers = tokenFor(ai).headers;
    expect(
      (await call(url, 'POST', '/api/ai/analyze-text', { headers, body: { text: 'a '.repeat(10_001) } }))
        .status,
    ).toBe(400);
    expect(
      (await call(url, 'POST', '/api/ai/analyze-text', { headers, body: { text: '123 !!' } })).status,
    ).toBe(400);
  });
});

describe('POST /api/ai/analyze-sentence', () => {
  it('When a sentence with mistakes is analysed, Then it is corrected, words are marked, and the result is cached for 24 hours', async () => {
    const headers = tokenFor(ai).headers;
    const sentence = `he have a extraordinary appetite for adventure ${Date.now()}`;
    const first = await call(url, 'POST', '/api/ai/analyze-sentence', { headers, body: { sentence } });
    expect(first.status).toBe(200);
    expect(first.body.data).toMatchObject({
      corrected: expect.stringMatching(/^He has an extraordinary appetite for adventure \d+\.$/),
      cached: false,
      provider: 'local',
    });
    expect(first.body.data.corrections.map((c: { type: string }) => c.type)).toEqual(
      expect.arrayContaining(['agreement', 'article', 'capitalization', 'punctuation']),
    );
    expect(first.body.data.highValueWords.map((w: { lemma: string }) => w.lemma)).toEqual(
      expect.arrayContaining(['extraordinary', 'appetite']),
    );

    // the same sentence, spaced differently: a cache hit with the same result
    const again = await call(url, 'POST', '/api/ai/analyze-sentence', {
      headers,
      body: { sentence: `  ${sentence.replace(/ /g, '   ')} ` },
    });
    expect(again.body.data).toMatchObject({
      cached: true,
      cachedAt: first.body.data.cachedAt,
      corrected: first.body.data.corrected,
    });

    ai.clock.advance(24 * HOUR);
    const later = await call(url, 'POST', '/api/ai/analyze-sentence', {
      headers: tokenFor(ai).headers,
      body: { sentence },
    });
    expect(later.body.data.cached).toBe(false);
  });

  it('When the sentence is empty or too long, Then it is 400', async () => {
    const headers = tokenFor(ai).headers;
    expect(
      (await call(url, 'POST', '/api/ai/analyze-sentence', { headers, body: { sentence: '   ' } })).status,
    ).toBe(400);
    expect(
      (await call(url, 'POST', '/api/ai/analyze-sentence', { headers, body: { sentence: 'x'.repeat(1001) } }))
        .status,
    ).toBe(400);
  });

  it('When a sentence in a language the local provider cannot analyse is sent, Then it is 400 VAL001 naming the eight it can', async () => {
    const res = await call(url, 'POST', '/api/ai/analyze-sentence', {
      headers: tokenFor(ai).headers,
      body: { sentence: 'Er gehen nach Hause.', language: 'sv' },
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({
      code: 'VAL001',
      details: {
        language: [expect.any(String)],
        reason: 'unsupported_language',
        supported: ['en', 'de', 'fr', 'es', 'it', 'pt', 'nl', 'ru'],
      },
    });
  });
});

describe('POST /api/ai/lookup', () => {
  it('When a word is looked up, Then its lemma, pronunciation, level, forms and WordNet definition come back', async () => {
    const res = await call(url, 'POST', '/api/ai/lookup', {
      headers: tokenFor(ai).headers,
      body: { word: 'Running' },
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      word: 'running',
      lemma: 'run',
      partOfSpeech: 'verb',
      pronunciation: '/ɹˈʌnɪŋ/',
      cefrLevel: 'A1',
      definition: expect.any(String),
      translation: null, // none asked
      unavailable: [],
      quota: { used: 1, limit: 5, remaining: 4 },
    });
    expect(res.body.data.forms).toEqual(expect.arrayContaining(['run', 'ran', 'runs', 'running']));
  });

  it('When a word is looked up for Spanish, Then its lemma is translated from the English–Spanish dictionary', async () => {
    const res = await call(url, 'POST', '/api/ai/lookup', {
      headers: tokenFor(ai).headers,
      body: { word: 'dogs', targetLanguage: 'es' },
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ lemma: 'dog', translation: 'perro', unavailable: [] });
  });

  it('When a word is looked up for Russian, Then the Mueller dictionary translates it (FreeDict eng-rus lacks it)', async () => {
    const res = await call(url, 'POST', '/api/ai/lookup', {
      headers: tokenFor(ai).headers,
      body: { word: 'weeks', targetLanguage: 'ru' },
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ lemma: 'week', translation: 'неделя', unavailable: [] });
  });

  it('When no English–Italian dictionary has the word, Then agreeing pivot languages translate it and the notes say so', async () => {
    const res = await call(url, 'POST', '/api/ai/lookup', {
      headers: tokenFor(ai).headers,
      body: { word: 'minute', targetLanguage: 'it' },
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ lemma: 'minute', translation: 'minuto', unavailable: [] });
    expect(res.body.data.notes).toEqual([
      expect.stringMatching(
        /^Not in the English–Italian dictionary, translated through .*"minute" \(through/,
      ),
    ]);
  });

  it('When a German word is looked up, Then the German–English dictionary gives its translation, IPA and examples', async () => {
    const res = await call(url, 'POST', '/api/ai/lookup', {
      headers: tokenFor(ai).headers,
      body: { word: 'Haus', language: 'de' },
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      lemma: 'Haus',
      partOfSpeech: 'noun',
      translation: 'house',
      pronunciation: 'hˈaʊs',
      cefrLevel: null,
      examples: expect.arrayContaining(['ein Haus bauen']),
      unavailable: ['definition', 'cefrLevel', 'frequencyRank'],
    });
  });

  it('When a look-up asks an unsupported pair, Then it is 400 VAL001 and the look-up is not counted', async () => {
    const user = tokenFor(ai);
    const res = await call(url, 'POST', '/api/ai/lookup', {
      headers: user.headers,
      body: { word: 'house', targetLanguage: 'ja' },
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'VAL001', details: { reason: 'unsupported_language' } });
    const quota = await call(url, 'GET', '/api/ai/quota', { headers: user.headers });
    expect(quota.body.data.lookups.used).toBe(0);
  });

  it('When a free user looks up a 6th word within 3 hours, Then it is 429 RATE002 until the oldest look-up leaves the window', async () => {
    const sub = tokenFor(ai).sub;
    const lookup = (word: string) =>
      call(url, 'POST', '/api/ai/lookup', { headers: tokenFor(ai, { sub }).headers, body: { word } });
    const start = ai.clock.now().getTime();
    expect((await lookup('apple')).status).toBe(200);
    for (const word of ['pear', 'plum', 'fig', 'lime']) {
      ai.clock.advance(10 * 60_000);
      expect((await lookup(word)).status).toBe(200);
    }
    const over = await lookup('kiwi');
    expect(over.status).toBe(429);
    expect(over.body.error).toMatchObject({
      code: 'RATE002',
      details: { limit: 5, resetAt: new Date(start + 3 * HOUR).toISOString() },
    });
    expect(Number(over.headers.get('retry-after'))).toBe((3 * HOUR - 40 * 60_000) / 1000);

    ai.clock.advance(3 * HOUR - 40 * 60_000 - 1_000); // one second before the first leaves the window
    expect((await lookup('kiwi')).status).toBe(429);
    ai.clock.advance(1_000);
    const freed = await lookup('kiwi');
    expect(freed.status).toBe(200);
    expect(freed.body.data.quota).toMatchObject({ used: 5, remaining: 0 });
    expect((await lookup('mango')).status).toBe(429); // the 2nd look-up is still in the window

    const quota = await call(url, 'GET', '/api/ai/quota', { headers: tokenFor(ai, { sub }).headers });
    expect(quota.body.data.lookups).toMatchObject({ used: 5, limit: 5, windowMinutes: 180 });
  });

  it('When the user is premium, Then look-ups are not limited', async () => {
    const user = tokenFor(ai);
    entitlements.premium.add(user.sub);
    for (let i = 0; i < 7; i++) {
      const res = await call(url, 'POST', '/api/ai/lookup', {
        headers: user.headers,
        body: { word: 'house' },
      });
      expect(res.status).toBe(200);
      expect(res.body.data.quota).toMatchObject({ limit: -1, remaining: -1 });
    }
  });

  it('When the word is not a single word, Then it is 400 and no look-up is counted', async () => {
    const user = tokenFor(ai);
    const res = await call(url, 'POST', '/api/ai/lookup', {
      headers: user.headers,
      body: { word: 'two words' },
    });
    expect(res.status).toBe(400);
    const quota = await call(url, 'GET', '/api/ai/quota', { headers: user.headers });
    expect(quota.body.data.lookups.used).toBe(0);
  });
});

describe('example images', () => {
  it('When a description is made and then rendered, Then the PNG is stored and served at its URL', async () => {
    const user = tokenFor(ai);
    const described = await call(url, 'POST', '/api/ai/images/description', {
      headers: user.headers,
      body: { word: 'umbrella', context: 'She opened her umbrella in the rain.' },
    });
    expect(described.status).toBe(200);
    expect(described.body.data).toMatchObject({
      source: 'template',
      description: expect.stringContaining('umbrella'),
    });

    const created = await call(url, 'POST', '/api/ai/images', {
      headers: user.headers,
      body: { description: described.body.data.description },
    });
    expect(created.status).toBe(201);
    const image = created.body.data;
    expect(image).toMatchObject({
      url: `/api/ai/images/${image.id}`,
      contentType: 'image/png',
      width: 512,
      height: 512,
    });
    expect(created.headers.get('location')).toBe(image.url);

    expect((await call(url, 'GET', image.url)).status).toBe(401);
    const file = await call(url, 'GET', image.url, { headers: tokenFor(ai).headers }); // any signed-in user
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('image/png');
    const png = file.body as Buffer;
    expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    expect(png.readUInt32BE(16)).toBe(512);

    // same description, same picture (deterministic); another description, another picture
    const again = await call(url, 'POST', '/api/ai/images', {
      headers: user.headers,
      body: { description: described.body.data.description },
    });
    const other = await call(url, 'POST', '/api/ai/images', {
      headers: user.headers,
      body: { description: 'A red bicycle leaning on a wall.' },
    });
    expect((await call(url, 'GET', again.body.data.url, { headers: user.headers })).body).toEqual(png);
    expect((await call(url, 'GET', other.body.data.url, { headers: user.headers })).body).not.toEqual(png);
  });

  it('When an image does not exist or the id is malformed, Then it is 404 RES001 or 400', async () => {
    const headers = tokenFor(ai).headers;
    const missing = await call(url, 'GET', '/api/ai/images/7d0b1c5e-8f7e-4c38-9a7c-4c1d2f1b9e11', {
      headers,
    });
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('RES001');
    expect((await call(url, 'GET', '/api/ai/images/not-an-id', { headers })).status).toBe(400);
  });

  it('When the description is missing or too long, Then it is 400', async () => {
    const headers = tokenFor(ai).headers;
    expect((await call(url, 'POST', '/api/ai/images', { headers, body: {} })).status).toBe(400);
    expect(
      (await call(url, 'POST', '/api/ai/images', { headers, body: { description: 'x'.repeat(1001) } }))
        .status,
    ).toBe(400);
    expect(
      (await call(url, 'POST', '/api/ai/images/description', { headers, body: { word: '' } })).status,
    ).toBe(400);
  });
});

describe('gRPC LanguageService', () => {
  const client = () =>
    createGrpcClient(loadPackage().lingua.ai.v1.LanguageService, ai.service.grpcAddress!, {
      // no service calls LanguageService yet: only an operator may
      signer: devCallSigner('operator'),
    });

  it('When another service asks for word levels, inflections and a blank, Then it gets them from the language data', async () => {
    const c = client();
    try {
      expect(await c.call('GetWordLevel', { word: 'house', language: 'en' })).toEqual({
        cefr_level: 'A1',
        estimated: true,
      });
      expect((await c.call('GetWordLevel', { word: 'jurisprudence', language: '' })).cefr_level).toMatch(
        /^C[12]$/,
      );
      const { forms } = await c.call('GetInflections', { word: 'go', language: 'en' });
      expect(forms).toEqual(expect.arrayContaining(['go', 'goes', 'went', 'going', 'gone']));
      expect(
        await c.call('FillBlank', { sentence: 'Yesterday she went home early.', word: 'go', language: 'en' }),
      ).toEqual({
        text: 'Yesterday she _____ home early.',
        blanked_form: 'went',
        found: true,
      });
      expect(
        await c.call('FillBlank', { sentence: 'Nothing here.', word: 'go', language: 'en' }),
      ).toMatchObject({ found: false });
    } finally {
      c.close();
    }
  });

  it('When the input is invalid or not English, Then the call fails with VALIDATION_ERROR', async () => {
    const c = client();
    try {
      await expect(c.call('GetWordLevel', { word: '', language: 'en' })).rejects.toMatchObject({
        code: 'VALIDATION_ERROR',
      });
      await expect(c.call('GetInflections', { word: 'casa', language: 'es' })).rejects.toMatchObject({
        code: 'VALIDATION_ERROR',
      });
    } finally {
      c.close();
    }
  });
});

describe('API description', () => {
  it("When the gateway asks for this service's OpenAPI fragment, Then every /api/ai route is described", async () => {
    const res = await call(url, 'GET', '/internal/openapi.json');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.paths).sort()).toEqual([
      '/api/ai/analyze-sentence',
      '/api/ai/analyze-text',
      '/api/ai/generate',
      '/api/ai/images',
      '/api/ai/images/description',
      '/api/ai/images/{id}',
      '/api/ai/lookup',
      '/api/ai/quota',
    ]);
  });
});
