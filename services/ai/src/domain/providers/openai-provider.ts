import OpenAI from 'openai';
import { z } from 'zod';
import { AppError } from '@lingua/errors';
import { inflections } from '../language/nlp';
import { cefrFromRank, frequencyRank } from '../language/word-frequency';
import type { AiProvider, GeneratedCards, RenderedImage, SentenceAnalysis, WordLookup } from './ai-provider';
import { cardsPrompt, describePrompt, lookupPrompt, sentencePrompt } from './openai-prompts';

export interface OpenAiProviderOptions {
  baseURL: string;
  apiKey: string;
  model: string;
  imageModel: string;
  timeoutMs: number;
  maxRetries: number;
}

const cefr = z.enum(['A1', 'A2', 'B1', 'B2', 'C1', 'C2']);
const text = (max: number) => z.string().max(max);

// What the model must return; anything else is a provider failure (502), never passed through.
const CardsOutput = z.object({
  cards: z
    .array(
      z.object({
        word: text(255).min(1),
        translation: text(255).nullable(),
        partOfSpeech: text(50),
        pronunciation: text(255).nullable(),
        definition: text(1000).nullable(),
        example: text(1000).nullable(),
        exampleTranslation: text(1000).nullable(),
        synonyms: z.array(text(100)).max(20),
        difficulty: z.enum(['beginner', 'intermediate', 'advanced']),
        confidence: z.number().min(0).max(1),
      }),
    )
    .max(20),
});
const SentenceOutput = z.object({
  corrected: text(2000),
  corrections: z
    .array(
      z.object({
        type: z.enum([
          'capitalization',
          'article',
          'agreement',
          'repetition',
          'punctuation',
          'spacing',
          'spelling',
          'tense',
          'word-order',
          'other',
        ]),
        original: text(500),
        suggestion: text(500),
        message: text(500),
      }),
    )
    .max(50),
  highValueWords: z
    .array(z.object({ word: text(100), lemma: text(100), partOfSpeech: text(50), cefrLevel: cefr }))
    .max(50),
});
const LookupOutput = z.object({
  lemma: text(100),
  partOfSpeech: text(50),
  pronunciation: text(255).nullable(),
  cefrLevel: cefr,
  definition: text(1000).nullable(),
  translation: text(255).nullable(),
  examples: z.array(text(500)).max(5),
});
const DescriptionOutput = z.object({ description: text(1000).min(1) });

function providerFailure(err: unknown): AppError {
  if (err instanceof AppError) return err;
  if (err instanceof OpenAI.APIConnectionTimeoutError)
    return new AppError('SERVICE_UNAVAILABLE', 'The AI provider timed out', {
      details: { reason: 'timeout' },
      cause: err,
    });
  if (err instanceof OpenAI.APIConnectionError)
    return new AppError('SERVICE_UNAVAILABLE', 'The AI provider is unreachable', {
      details: { reason: 'unreachable' },
      cause: err,
    });
  if (err instanceof OpenAI.APIError) {
    const status = err.status;
    // 429 and 5xx were already retried by the client; what is left is the provider's failure
    return new AppError('AI_PROVIDER_ERROR', 'The AI provider failed', {
      details: { providerStatus: status ?? null },
      cause: err,
    });
  }
  return new AppError('AI_PROVIDER_ERROR', 'The AI provider failed', { cause: err });
}

/** Width and height of a PNG from its IHDR chunk; undefined for other formats. */
function pngSize(data: Buffer): { width: number; height: number } | undefined {
  if (data.length < 24 || data.readUInt32BE(0) !== 0x89504e47) return undefined;
  return { width: data.readUInt32BE(16), height: data.readUInt32BE(20) };
}

function imageType(data: Buffer): string | undefined {
  if (data.subarray(0, 4).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47]))) return 'image/png';
  if (data[0] === 0xff && data[1] === 0xd8) return 'image/jpeg';
  if (data.subarray(0, 4).toString('latin1') === 'RIFF' && data.subarray(8, 12).toString('latin1') === 'WEBP')
    return 'image/webp';
  return undefined;
}

/**
 * Any OpenAI-compatible API (OpenAI, vLLM, Ollama, LiteLLM…): chat completions in JSON mode, parsed
 * strictly with zod, and the images endpoint. The official client does the timeouts and the retries
 * (429, 5xx, connection errors, with back-off and Retry-After).
 */
export function openAiProvider(options: OpenAiProviderOptions): AiProvider {
  const client = new OpenAI({
    apiKey: options.apiKey || 'not-set',
    baseURL: options.baseURL,
    timeout: options.timeoutMs,
    maxRetries: options.maxRetries,
  });

  async function chatJson<S extends z.ZodType>(schema: S, system: string, user: string) {
    let completion: OpenAI.Chat.Completions.ChatCompletion;
    try {
      completion = await client.chat.completions.create({
        model: options.model,
        response_format: { type: 'json_object' },
        temperature: 0.2,
        messages: [
          { role: 'system', content: system },
          { role: 'user', content: user },
        ],
      });
    } catch (err) {
      throw providerFailure(err);
    }
    const content = completion.choices[0]?.message?.content;
    let parsed: unknown;
    try {
      parsed = JSON.parse(content ?? '');
    } catch {
      throw new AppError('AI_PROVIDER_ERROR', 'The AI provider returned malformed output', {
        details: { reason: 'not JSON' },
      });
    }
    const result = schema.safeParse(parsed);
    if (!result.success)
      throw new AppError('AI_PROVIDER_ERROR', 'The AI provider returned malformed output', {
        details: {
          reason: 'schema',
          issues: result.error.issues.slice(0, 5).map((i) => `${i.path.join('.')}: ${i.message}`),
        },
      });
    const usage = {
      promptTokens: completion.usage?.prompt_tokens ?? 0,
      completionTokens: completion.usage?.completion_tokens ?? 0,
      totalTokens: completion.usage?.total_tokens ?? 0,
    };
    return { value: result.data as z.infer<S>, usage };
  }

  return {
    name: 'openai',

    async generateCards(req): Promise<GeneratedCards> {
      const prompt = cardsPrompt(req);
      const { value, usage } = await chatJson(CardsOutput, prompt.system, prompt.user);
      const cards = value.cards.slice(0, req.count).map((c) => ({
        ...c,
        // what was not asked for is not passed on, whatever the model added
        translation: req.targetLanguage ? c.translation : null,
        example: req.includeExamples ? c.example : null,
        exampleTranslation: req.includeExamples && req.targetLanguage ? c.exampleTranslation : null,
        synonyms: req.includeSynonyms ? c.synonyms : [],
      }));
      return { cards, usage, unavailable: req.targetLanguage ? [] : ['translation', 'exampleTranslation'] };
    },

    async analyzeSentence({ sentence, language }): Promise<SentenceAnalysis> {
      const prompt = sentencePrompt(sentence, language);
      const { value } = await chatJson(SentenceOutput, prompt.system, prompt.user);
      // the model is not asked for tokens: said so rather than guessed
      return { original: sentence, ...value, tokens: [], unavailable: ['tokens'] };
    },

    async lookupWord({ word, context, language, targetLanguage }): Promise<WordLookup> {
      const prompt = lookupPrompt(word, context, language, targetLanguage);
      const { value } = await chatJson(LookupOutput, prompt.system, prompt.user);
      const normal = word.trim().toLowerCase();
      const rank = language === 'en' ? frequencyRank(normal) : undefined;
      return {
        word: normal,
        ...value,
        translation: targetLanguage ? value.translation : null,
        // frequency and forms come from local data (English) rather than the model's guess
        cefrLevel: language === 'en' ? cefrFromRank(rank) : value.cefrLevel,
        frequencyRank: rank ?? null,
        forms: language === 'en' ? inflections(normal) : [normal],
        unavailable: targetLanguage ? [] : ['translation'],
      };
    },

    async describeImage({ word, context }) {
      const prompt = describePrompt(word, context);
      const { value } = await chatJson(DescriptionOutput, prompt.system, prompt.user);
      return { description: value.description, source: 'model' };
    },

    async renderImage({ description }): Promise<RenderedImage> {
      let b64: string | undefined;
      let url: string | undefined;
      try {
        const res = await client.images.generate({
          model: options.imageModel,
          prompt: description,
          n: 1,
          size: '1024x1024',
          response_format: 'b64_json',
        });
        b64 = res.data?.[0]?.b64_json;
        url = res.data?.[0]?.url;
      } catch (err) {
        throw providerFailure(err);
      }
      let data: Buffer;
      if (b64) data = Buffer.from(b64, 'base64');
      else if (url) {
        const res = await fetch(url, { signal: AbortSignal.timeout(options.timeoutMs) }).catch(
          (err: unknown) => {
            throw providerFailure(err);
          },
        );
        if (!res.ok)
          throw new AppError('AI_PROVIDER_ERROR', 'The AI provider failed', {
            details: { providerStatus: res.status },
          });
        data = Buffer.from(await res.arrayBuffer());
      } else throw new AppError('AI_PROVIDER_ERROR', 'The AI provider returned no image');
      const contentType = imageType(data);
      if (!contentType)
        throw new AppError('AI_PROVIDER_ERROR', 'The AI provider returned an unknown image format');
      const size = pngSize(data) ?? { width: 1024, height: 1024 };
      return { contentType, data, ...size };
    },
  };
}
