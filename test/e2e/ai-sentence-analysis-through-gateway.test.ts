import { createHash } from 'node:crypto';
import { createClient } from 'redis';
import { isolatedServiceEnv, redisUrl } from '@lingua/testing';
import type { AiConfig } from '../../services/ai/src/config';
import { readLanguageData } from '../../services/ai/test/support';
import { type InProcessStack, startInProcessStack } from '../platform/in-process-stack';
import { gatewayCaller, newCredentials, stopAndDrop } from '../platform/gateway-caller';

// Sentence analysis in the eight languages the app offers, as the app asks for it: one misspelled
// word per sentence, corrected by the language's Hunspell dictionary; tokens with the dictionary
// form of inflected words (Apertium; German by Hunspell's affix rules); hostile input never a 500.
jest.setTimeout(180_000);

let stack: InProcessStack;
let token: string;
const call = gatewayCaller(() => stack.gateway.url);

// the analysis cache is shared by all users: the sentences this suite sent are removed from it
const sent = new Set<string>();
async function forgetAnalyses(all: Iterable<string>) {
  const redis = createClient({ url: redisUrl() });
  await redis.connect();
  try {
    const keys = [...all].map((k) => {
      const [language, sentence] = JSON.parse(k) as [string, string];
      const normal = sentence.normalize('NFC').trim().replace(/\s+/g, ' ');
      return `ai:analysis:v2:local:${language}:${createHash('sha256').update(normal).digest('hex')}`;
    });
    if (keys.length) await redis.del(keys);
  } finally {
    await redis.quit();
  }
}

beforeAll(async () => {
  // an interrupted earlier run may have left these sentences' analyses behind
  await forgetAnalyses(CASES.map(([language, sentence]) => JSON.stringify([language, sentence])));
  stack = await startInProcessStack(isolatedServiceEnv({ IDENTITY_BCRYPT_COST: '4' }));
  await readLanguageData(stack.services.ai.deps.config as AiConfig);
  const reg = await call('POST', '/api/v1/auth/register', { body: newCredentials('ais') });
  expect(reg.status).toBe(201);
  token = reg.body.data.accessToken as string;
});
afterAll(async () => {
  await forgetAnalyses(sent);
  await stopAndDrop(stack);
});

interface Token {
  text: string;
  lemma: string | null;
  partOfSpeech: string | null;
}
interface Correction {
  type: string;
  original: string;
  suggestion: string;
  suggestions?: string[];
}

/** language, sentence, its misspelled word and the word meant, inflected words and their lemmas */
const CASES: Array<[string, string, [string, string], Record<string, string>]> = [
  [
    'en',
    'The childern were running to the old castle.',
    ['childern', 'children'],
    { running: 'run', were: 'be' },
  ],
  [
    'de',
    'Die Kinder gingen gestern mit ihrem Hunnd in den Garten.',
    ['Hunnd', 'Hund'],
    // articles (german-determiners), a strong verb and a plural (the full-form lists)
    { Die: 'der', den: 'der', gingen: 'gehen', Kinder: 'Kind' },
  ],
  [
    'fr',
    'Les enfants mangaient des pommes rouges dans la cuisine.',
    ['mangaient', 'mangeaient'],
    { enfants: 'enfant', pommes: 'pomme', rouges: 'rouge' },
  ],
  [
    'es',
    'Los niños comieron manzanas en la cocinna ayer.',
    ['cocinna', 'cocina'],
    { niños: 'niño', comieron: 'comer', manzanas: 'manzana' },
  ],
  [
    'it',
    'I bambini mangiavano le mele nella cucinna.',
    ['cucinna', 'cucina'],
    { bambini: 'bambino', mangiavano: 'mangiare', mele: 'mela' },
  ],
  [
    'pt',
    'As crianças comeram maçãs na cozinhha ontem.',
    ['cozinhha', 'cozinha'],
    { crianças: 'criança', comeram: 'comer', maçãs: 'maçã' },
  ],
  [
    'nl',
    'De kinderen speelden met hun honden in de tuinn.',
    ['tuinn', 'tuin'],
    { kinderen: 'kind', speelden: 'spelen', honden: 'hond' },
  ],
  [
    'ru',
    'Мальчики ели красные яблоки в бальшом доме.',
    ['бальшом', 'большом'],
    { Мальчики: 'мальчик', красные: 'красный', яблоки: 'яблоко', доме: 'дом' },
  ],
];

/** The part of the answer these tests read. */
interface Analysis {
  corrected: string;
  corrections: Correction[];
  tokens: Token[];
  unavailable: string[];
}

const analyse = (language: string, sentence: string) => {
  sent.add(JSON.stringify([language, sentence]));
  return call('POST', '/api/ai/analyze-sentence', { token, body: { sentence, language } });
};

describe('POST /api/ai/analyze-sentence in every language, through the gateway', () => {
  it.each(CASES)(
    'When a %s sentence with one misspelled word is analysed, Then the word is corrected and inflected words come with their lemmas',
    async (language, sentence, [typo, meant], lemmas) => {
      const res = await analyse(language, sentence);
      expect(res.status).toBe(200);
      const data = res.body.data as Analysis;
      // exactly the one misspelled word, with the right word among the dictionary's suggestions
      const spelling = data.corrections.filter((c) => c.type === 'spelling');
      expect(spelling).toEqual([expect.objectContaining({ original: typo })]);
      expect(spelling[0]!.suggestions).toContain(meant);
      expect(data.corrected).toContain(meant);
      expect(data.unavailable).not.toContain('spelling');
      for (const [word, lemma] of Object.entries(lemmas))
        expect(data.tokens).toContainEqual(expect.objectContaining({ text: word, lemma }));
      expect(data.tokens.map((t) => t.text).join(' ')).toContain(meant);
    },
  );

  it('When an English sentence is analysed, Then its grammar corrections and high-value words are as before, and tokens come with parts of speech', async () => {
    const res = await analyse('en', 'He go to the beautiful castle.');
    expect(res.status).toBe(200);
    expect(res.body.data.corrected).toBe('He goes to the beautiful castle.');
    expect(res.body.data.tokens).toContainEqual({ text: 'castle', lemma: 'castle', partOfSpeech: 'noun' });
    expect(res.body.data.highValueWords).toContainEqual(expect.objectContaining({ lemma: 'castle' }));
  });

  it('When a French sentence with grammar errors is analysed, Then Grammalecte corrects them, one fix per error', async () => {
    const res = await analyse('fr', 'Elle sont parti tôt et il a manger une pomme.');
    expect(res.status).toBe(200);
    const data = res.body.data as Analysis;
    // "Elle sont": "est" or "Elles" (one rule, two fixes): the checker's first, never both
    expect(data.corrected).toBe('Elle est parti tôt et il a mangé une pomme.');
    expect(data.corrections).toEqual([
      expect.objectContaining({ type: 'agreement', original: 'sont', suggestion: 'est' }),
      expect.objectContaining({ type: 'tense', original: 'manger', suggestion: 'mangé' }),
    ]);
    expect(data.unavailable).not.toContain('grammar');
    expect(data.tokens).toContainEqual(expect.objectContaining({ text: 'mangé', lemma: 'manger' }));
  });

  it('When hostile sentences are sent (at the length limit, punctuation only, mixed scripts), Then each is 200 or a 400 envelope, never a 500', async () => {
    let seed = 41;
    const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648;
    let garbage = '';
    while (garbage.length < 1_000) {
      const n = 3 + Math.floor(random() * 9);
      let w = '';
      for (let i = 0; i < n; i++) w += 'abcdefghijklmnopqrstuvwxyzäöüéжщ'[Math.floor(random() * 32)];
      garbage += `${garbage ? ' ' : ''}${w}`;
    }
    const inputs = [
      garbage.slice(0, 1_000).trim(),
      '?!... ,;: «»',
      'Das Haus ist дом and 家 très grand ½ 😀 l’été d’«ami»',
      "l' ' - -- ^$/@<>{}[]\\ a",
    ];
    for (const [language] of CASES)
      for (const sentence of inputs) {
        const res = await analyse(language, sentence);
        expect([200, 400]).toContain(res.status);
        if (res.status === 400) expect(res.body.error.code).toBe('VAL001');
        else expect(Array.isArray(res.body.data.tokens)).toBe(true);
      }
  });

  it('When a language the server has no analysis for is asked, Then it is 400 naming the eight supported', async () => {
    const res = await analyse('sv', 'Jag heter Anna.');
    expect(res.status).toBe(400);
    expect(res.body.error.details.supported).toEqual(['en', 'de', 'fr', 'es', 'it', 'pt', 'nl', 'ru']);
  });
});
