import { z } from 'zod';
import type { AiDeps } from './ai-deps';
import { UNLIMITED } from './ai-deps';
import { nextUtcMidnight, quotaExceeded, utcDay } from './quota-window';

export const MAX_GENERATE_INPUT = 5_000;
const language = z.string().regex(/^[a-z]{2}$/, 'an ISO 639-1 code such as "en"');

export const GenerateCardsInput = z.object({
  mode: z.enum(['text', 'theme']),
  input: z
    .string()
    .trim()
    .min(1, 'must not be empty')
    .max(MAX_GENERATE_INPUT, `at most ${MAX_GENERATE_INPUT} characters`),
  difficulty: z.enum(['beginner', 'intermediate', 'advanced']).default('intermediate'),
  count: z.number().int().min(5).max(20).default(10),
  includeExamples: z.boolean().default(true),
  includeSynonyms: z.boolean().default(false),
  sourceLanguage: language.default('en'),
  targetLanguage: language.optional(),
});
export type GenerateCardsInput = z.infer<typeof GenerateCardsInput>;

/**
 * Generates flashcards. Free users have a daily number of generations (requests, not cards), counted
 * before the provider is called so concurrent requests cannot overshoot, and given back if it fails.
 */
export async function generateCards(userId: string, input: GenerateCardsInput, deps: AiDeps) {
  const now = deps.clock.now();
  const day = utcDay(now);
  const { isPremium } = await deps.entitlements.forUser(userId);
  const limit = isPremium ? UNLIMITED : deps.limits.generationsPerDay;
  const { allowed } = await deps.quotas.reserveDaily('generate', userId, day, limit);
  if (!allowed) throw quotaExceeded('AI generation', limit, nextUtcMidnight(now), now);
  try {
    const result = await deps.provider.generateCards({
      ...input,
      targetLanguage: input.targetLanguage,
    });
    // nothing usable in the input (no content words): nothing delivered, nothing charged
    if (result.cards.length === 0) await deps.quotas.releaseDaily('generate', userId, day);
    return {
      ...result,
      notes: result.notes ?? [],
      cards: result.cards.slice(0, input.count),
      provider: deps.provider.name,
    };
  } catch (err) {
    await deps.quotas.releaseDaily('generate', userId, day);
    throw err;
  }
}
