import { isolatedServiceEnv } from '@lingua/testing';
import type { AiConfig } from '../../services/ai/src/config';
import { readLanguageData } from '../../services/ai/test/support';
import { type InProcessStack, startInProcessStack } from '../platform/in-process-stack';
import { gatewayCaller, newCredentials, stopAndDrop } from '../platform/gateway-caller';

// The AI in the user's own languages: a request that names no language (the spec's shape) is
// answered with translations in the nativeLanguage the user registered with (identity's profile,
// read by ai over gRPC); a language the request names still wins.
jest.setTimeout(120_000);

let stack: InProcessStack;
const call = gatewayCaller(() => stack.gateway.url);

beforeAll(async () => {
  stack = await startInProcessStack(
    isolatedServiceEnv({
      IDENTITY_BCRYPT_COST: '4',
      // a loaded test machine can take over a second for identity's first answer; the default is
      // what a request waits in production, this test is about what the answer holds
      AI_PROFILE_DEADLINE_MS: '10000',
    }),
  );
  await readLanguageData(stack.services.ai.deps.config as AiConfig);
});
afterAll(() => stopAndDrop(stack));

const TEXT =
  'Every morning the farmer walks to the river with his old dog. He carries bread, cheese and apples ' +
  'in a basket. The water is cold, the sky is blue, and the birds sing in the trees near the bridge. ' +
  'In the evening he returns to his house, cooks dinner for his family and reads a book by the window.';

async function register(nativeLanguage?: string): Promise<string> {
  const u = newCredentials('ai');
  const reg = await call('POST', '/api/v1/auth/register', {
    body: { ...u, ...(nativeLanguage && { nativeLanguage }) },
  });
  expect(reg.status).toBe(201);
  return reg.body.data.accessToken as string;
}

type Card = { word: string; translation: string | null };
const translations = (cards: Card[]) => Object.fromEntries(cards.map((c) => [c.word, c.translation]));

describe('AI in the user’s languages, through the gateway', () => {
  it('When a user registered with nativeLanguage "es" generates cards with no language in the body, Then at least 90 % are translated into Spanish, and an explicit targetLanguage overrides', async () => {
    const spanish = await register('es');
    // the spec's request: no language fields
    const body = { mode: 'text', input: TEXT, difficulty: 'beginner', count: 20, includeExamples: true };
    const byProfile = await call('POST', '/api/ai/generate', { token: spanish, body });
    expect(byProfile.status).toBe(200);
    const cards = byProfile.body.data.cards as Card[];
    expect(cards.length).toBeGreaterThanOrEqual(10);
    const ratio = cards.filter((c) => c.translation !== null).length / cards.length;
    // the figure of the note
    process.stdout.write(
      `ai profile languages: ${(ratio * 100).toFixed(0)} % of ${cards.length} cards translated\n`,
    );
    expect(ratio).toBeGreaterThanOrEqual(0.9);

    // the same translations as a client naming Spanish itself gets: they are the Spanish ones
    const other = await register();
    const explicit = await call('POST', '/api/ai/generate', {
      token: other,
      body: { ...body, targetLanguage: 'es' },
    });
    expect(translations(cards)).toEqual(translations(explicit.body.data.cards));
    // a user without a native language gets none (the spec's request asks for no translation)
    const none = await call('POST', '/api/ai/generate', { token: other, body });
    expect((none.body.data.cards as Card[]).every((c) => c.translation === null)).toBe(true);

    // the request's own field wins over the profile
    const french = await call('POST', '/api/ai/generate', {
      token: spanish,
      body: { ...body, targetLanguage: 'fr' },
    });
    const frenchExplicit = await call('POST', '/api/ai/generate', {
      token: other,
      body: { ...body, targetLanguage: 'fr' },
    });
    expect(translations(french.body.data.cards)).toEqual(translations(frenchExplicit.body.data.cards));
    expect(translations(french.body.data.cards)).not.toEqual(translations(cards));
  });

  it('When that user looks a word up with no target language, Then the translation is Spanish; a named one wins', async () => {
    const token = await register('es');
    const looked = await call('POST', '/api/ai/lookup', { token, body: { word: 'dogs' } });
    expect(looked.status).toBe(200);
    expect(looked.body.data).toMatchObject({ lemma: 'dog', translation: 'perro' });
    const german = await call('POST', '/api/ai/lookup', {
      token,
      body: { word: 'dog', targetLanguage: 'de' },
    });
    expect(german.body.data).toMatchObject({ lemma: 'dog', translation: 'Hund' });
    // the everyday word, not the rare compound the dictionary lists first ("Sichtfenster")
    const window = await call('POST', '/api/ai/lookup', {
      token,
      body: { word: 'window', targetLanguage: 'de' },
    });
    expect(window.body.data).toMatchObject({ lemma: 'window', translation: 'Fenster' });
  });

  it('When the profile names a native language no dictionary offers from English, Then no translation, and a note says why', async () => {
    const token = await register('ja');
    const looked = await call('POST', '/api/ai/lookup', { token, body: { word: 'dog' } });
    expect(looked.status).toBe(200);
    expect(looked.body.data.translation).toBeNull();
    expect(looked.body.data.notes.join(' ')).toMatch(/native language .* no dictionary from English/);
  });
});
