import { AppError } from '@lingua/errors';
import { checkGrammar } from '../language/grammar-check';
import {
  CONTENT_POS,
  inflections,
  lemma,
  partOfSpeech,
  type PartOfSpeech,
  tagsOfWord,
  tokenize,
} from '../language/nlp';
import { arpabet, ipa, startsWithVowelSound } from '../language/pronunciation';
import {
  type CefrLevel,
  type Difficulty,
  difficultyOfLevel,
  frequencyRank,
  levelIndex,
} from '../language/word-frequency';
import { profileWord } from '../language/word-profile';
import type { AiProvider, GeneratedCard, GenerateCardsRequest, GeneratedCards } from './ai-provider';
import { renderIllustration } from './illustration';

const BAND: Record<Difficulty, [number, number]> = {
  beginner: [0, 1],
  intermediate: [2, 3],
  advanced: [4, 5],
};

function englishOnly(language: string, feature: string): void {
  if (language !== 'en')
    throw new AppError('SERVICE_UNAVAILABLE', `The local provider supports English only (${feature})`, {
      details: { provider: 'local', feature, language },
    });
}

/** How sure the offline analysis is of a word: known to the frequency list and the dictionary. */
function confidenceOf(word: string): number {
  const known = Number(frequencyRank(word) !== undefined) + Number(arpabet(word) !== undefined);
  return [0.5, 0.7, 0.9][known]!;
}

const wordCount = (s: string | null) => (s ? s.split(/\s+/).filter(Boolean).length : 0);

/**
 * The offline provider: English only, deterministic, built on compromise (tagging, inflection),
 * SUBTLEX-US (frequency → CEFR estimate) and the CMU dictionary (pronunciation). It has no
 * bilingual dictionary, no definitions, no thesaurus: those fields are reported as unavailable.
 */
export function localProvider(): AiProvider {
  return {
    name: 'local',

    async generateCards(req: GenerateCardsRequest): Promise<GeneratedCards> {
      englishOnly(req.sourceLanguage, 'generate');
      if (req.mode === 'theme')
        throw new AppError(
          'SERVICE_UNAVAILABLE',
          'Theme generation needs a language model; the local provider supports mode "text"',
          { details: { provider: 'local', feature: 'generate.theme' } },
        );
      const { sentences, tokens } = tokenize(req.input);
      const [lo, hi] = BAND[req.difficulty];
      const byLemma = new Map<
        string,
        { lemma: string; pos: PartOfSpeech; level: CefrLevel; rank: number; count: number; sentence: number }
      >();
      for (const t of tokens) {
        const pos = partOfSpeech(t.tags);
        if (!CONTENT_POS.has(pos) || t.tags.includes('ProperNoun') || t.normal.length < 2) continue;
        const p = profileWord(t.normal, pos);
        const seen = byLemma.get(p.lemma);
        if (seen) seen.count++;
        else
          byLemma.set(p.lemma, {
            lemma: p.lemma,
            pos,
            level: p.cefrLevel,
            rank: p.rank ?? Number.MAX_SAFE_INTEGER,
            count: 1,
            sentence: t.sentence,
          });
      }
      const distance = (level: CefrLevel) => {
        const i = levelIndex(level);
        return i < lo ? lo - i : i > hi ? i - hi : 0;
      };
      // Words of the requested level first, then the nearest levels; frequent in the text, then common.
      const chosen = [...byLemma.values()]
        .sort((a, b) => distance(a.level) - distance(b.level) || b.count - a.count || a.rank - b.rank)
        .slice(0, req.count);
      const cards: GeneratedCard[] = chosen.map((w) => ({
        word: w.lemma,
        translation: null,
        partOfSpeech: w.pos,
        pronunciation: ipa(w.lemma) ?? null,
        definition: null,
        example: req.includeExamples ? (sentences[w.sentence] ?? null) : null,
        exampleTranslation: null,
        synonyms: [],
        difficulty: difficultyOfLevel(w.level),
        confidence: confidenceOf(w.lemma),
      }));
      const unavailable = ['translation', 'definition', 'exampleTranslation'];
      if (req.includeSynonyms) unavailable.push('synonyms');
      // "Tokens" offline are word tokens: what was read and what was written.
      const promptTokens = tokens.length;
      const completionTokens = cards.reduce(
        (n, c) =>
          n +
          wordCount(c.word) +
          wordCount(c.partOfSpeech) +
          wordCount(c.pronunciation) +
          wordCount(c.example),
        0,
      );
      return {
        cards,
        usage: { promptTokens, completionTokens, totalTokens: promptTokens + completionTokens },
        unavailable,
      };
    },

    async analyzeSentence({ sentence, language }) {
      englishOnly(language, 'analyze-sentence');
      const { corrected, corrections } = checkGrammar(sentence);
      const seen = new Set<string>();
      const highValueWords = [];
      for (const t of tokenize(corrected).tokens) {
        const pos = partOfSpeech(t.tags);
        if (!CONTENT_POS.has(pos) || t.tags.includes('ProperNoun')) continue;
        const p = profileWord(t.normal, pos);
        // B1 and above: past the core vocabulary, worth a card
        if (levelIndex(p.cefrLevel) < 2 || seen.has(p.lemma)) continue;
        seen.add(p.lemma);
        highValueWords.push({
          word: t.text.replace(/[^\p{L}'’-]/gu, ''),
          lemma: p.lemma,
          partOfSpeech: pos,
          cefrLevel: p.cefrLevel,
        });
      }
      return { original: sentence, corrected, corrections, highValueWords };
    },

    async lookupWord({ word, context, language }) {
      englishOnly(language, 'lookup');
      const normal = word.trim().toLowerCase();
      const pos = partOfSpeech(tagsOfWord(normal));
      const base = lemma(normal, pos);
      const p = profileWord(normal, pos);
      return {
        word: normal,
        lemma: base,
        partOfSpeech: pos,
        pronunciation: ipa(normal) ?? ipa(base) ?? null,
        cefrLevel: p.cefrLevel,
        frequencyRank: p.rank ?? null,
        forms: inflections(normal),
        definition: null,
        translation: null,
        examples: context ? [context] : [],
        unavailable: ['definition', 'translation'],
      };
    },

    async describeImage({ word, context }) {
      // A fixed template, labelled as such: no model writes it.
      const article = startsWithVowelSound(word.trim()) ? 'an' : 'a';
      const scene = context ? ` in the scene: "${context.trim()}"` : '';
      return {
        description: `A simple, friendly flat-colour illustration of ${article} ${word.trim()}${scene}. Clear shapes, plain background, no text.`,
        source: 'template',
      };
    },

    async renderImage({ description }) {
      return renderIllustration(description);
    },
  };
}
