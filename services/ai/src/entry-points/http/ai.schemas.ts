import { z } from 'zod';
import { AnalyzeSentenceInput } from '../../domain/analyze-sentence.use-case';
import { AnalyzeTextInput } from '../../domain/analyze-text.use-case';
import { GenerateCardsInput } from '../../domain/generate-cards.use-case';
import { CreateImageInput, DescribeImageInput } from '../../domain/images.use-case';
import { LookupWordInput } from '../../domain/lookup-word.use-case';

// Request bodies: the use cases' own input schemas (one definition validates and documents).
export const GenerateBody = GenerateCardsInput;
export const AnalyzeTextBody = AnalyzeTextInput;
export const AnalyzeSentenceBody = AnalyzeSentenceInput;
export const LookupBody = LookupWordInput;
export const DescribeImageBody = DescribeImageInput;
export const CreateImageBody = CreateImageInput;
export const ImageParams = z.object({ id: z.uuid('an image id') });

const cefr = z.enum(['A1', 'A2', 'B1', 'B2', 'C1', 'C2']);
const difficulty = z.enum(['beginner', 'intermediate', 'advanced']);
const provider = z.enum(['local', 'openai']);

export const Usage = z.object({
  promptTokens: z.number().int(),
  completionTokens: z.number().int(),
  totalTokens: z.number().int(),
});

export const GeneratedCard = z
  .object({
    word: z.string(),
    translation: z.string().nullable(),
    partOfSpeech: z.string(),
    pronunciation: z.string().nullable(),
    definition: z.string().nullable(),
    example: z.string().nullable(),
    exampleTranslation: z.string().nullable(),
    synonyms: z.array(z.string()),
    difficulty,
    confidence: z.number().min(0).max(1),
  })
  .meta({ id: 'GeneratedCard' });

export const GenerateResponse = z.object({
  cards: z.array(GeneratedCard),
  usage: Usage,
  unavailable: z
    .array(z.string())
    .describe('card fields left null or empty on at least one card (data missing or not installed)'),
  notes: z.array(z.string()).describe('why, for people: a dictionary not installed, a theme not known…'),
  provider,
});

export const TextAnalysisResponse = z.object({
  difficulty,
  cefrLevel: cefr,
  wordCount: z.number().int(),
  uniqueWords: z.number().int(),
  sentenceCount: z.number().int(),
  averageSentenceLength: z.number(),
  readabilityScore: z.number().describe('Flesch Reading Ease, 0 (hard) to 100 (easy)'),
  gradeLevel: z.number().describe('Flesch-Kincaid grade'),
  suggestedWords: z.array(
    z.object({ word: z.string(), partOfSpeech: z.string(), cefrLevel: cefr, occurrences: z.number().int() }),
  ),
});

export const QuotaResponse = z.object({
  used: z.number().int(),
  limit: z.number().int().describe('-1 = unlimited (premium)'),
  resetAt: z.iso.datetime(),
  isPremium: z.boolean(),
  lookups: z.object({
    used: z.number().int(),
    limit: z.number().int(),
    windowMinutes: z.number().int(),
    resetAt: z.iso
      .datetime()
      .nullable()
      .describe(
        'When the oldest look-up leaves the window and a slot frees up; null when none is in the window',
      ),
  }),
});

export const SentenceAnalysisResponse = z.object({
  original: z.string(),
  corrected: z
    .string()
    .describe('the sentence with every correction applied (spelling: the suggestion shown)'),
  corrections: z.array(
    z.object({
      type: z
        .string()
        .describe(
          '`spelling` (Hunspell, every language), or the kind of grammar error (English rules, Grammalecte for French): `agreement`, `tense`, `article`, `capitalization`, `punctuation`, `spacing`, `repetition`, `word-order`, `other`',
        ),
      original: z.string(),
      suggestion: z.string(),
      suggestions: z
        .array(z.string())
        .optional()
        .describe("spelling: all of the dictionary's suggestions, best first"),
      message: z.string(),
    }),
  ),
  tokens: z
    .array(
      z.object({
        text: z.string(),
        lemma: z.string().nullable().describe('dictionary form; null where no analyser knows the word'),
        partOfSpeech: z
          .string()
          .nullable()
          .describe(
            'noun, verb, adjective, adverb, pronoun, preposition, conjunction, determiner, interjection, number or other; null where the analyser gives none',
          ),
      }),
    )
    .describe('the words and numbers of `corrected`, in order'),
  highValueWords: z.array(
    z.object({ word: z.string(), lemma: z.string(), partOfSpeech: z.string(), cefrLevel: cefr }),
  ),
  unavailable: z
    .array(z.string())
    .describe(
      'parts not given for this language or on this server: `spelling`, `grammar`, `lemma`, `partOfSpeech` (left null on at least one token), `highValueWords`, `tokens`',
    ),
  provider,
  cached: z.boolean(),
  cachedAt: z.iso.datetime(),
});

export const LookupResponse = z.object({
  word: z.string(),
  lemma: z.string(),
  partOfSpeech: z.string(),
  pronunciation: z.string().nullable(),
  cefrLevel: cefr.nullable().describe('null where no frequency list exists for the language'),
  frequencyRank: z.number().int().nullable(),
  forms: z.array(z.string()),
  definition: z.string().nullable(),
  translation: z.string().nullable(),
  examples: z.array(z.string()),
  unavailable: z.array(z.string()),
  notes: z.array(z.string()),
  provider,
  quota: z.object({
    used: z.number().int(),
    limit: z.number().int(),
    remaining: z.number().int(),
    resetAt: z.iso.datetime(),
  }),
});

export const ImageDescriptionResponse = z.object({
  description: z.string(),
  source: z.enum(['template', 'model']),
  provider,
});

export const ImageResponse = z.object({
  id: z.uuid(),
  url: z.string().describe('relative path serving the image'),
  contentType: z.string(),
  width: z.number().int(),
  height: z.number().int(),
  description: z.string(),
  provider,
  createdAt: z.iso.datetime(),
});
