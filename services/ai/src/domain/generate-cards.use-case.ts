import { z } from 'zod';
import type { AiDeps } from './ai-deps';
import { UNLIMITED } from './ai-deps';
import { profileTranslationLanguage } from './profile-defaults';
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
  targetLanguage: language
    .optional()
    .describe("translations' language; default: the nativeLanguage on the caller's profile"),
});
export type GenerateCardsInput = z.infer<typeof GenerateCardsInput>;

/**
 * Generates flashcards. Free users have a daily number of generations (requests, not cards), counted
 * before the provider is called so concurrent requests cannot overshoot, and given back if it fails.
 * Without a `targetLanguage`, translations are in the user's native language (profile).
 */
export async function generateCards(userId: string, input: GenerateCardsInput, deps: AiDeps) {
  const now = deps.clock.now();
  const day = utcDay(now);
  const [{ isPremium }, byProfile] = await Promise.all([
    deps.entitlements.forUser(userId),
    input.targetLanguage === undefined
      ? profileTranslationLanguage(userId, input.sourceLanguage, deps)
      : { target: input.targetLanguage, notes: [] },
  ]);
  const limit = isPremium ? UNLIMITED : deps.limits.generationsPerDay;
  const { allowed } = await deps.quotas.reserveDaily('generate', userId, day, limit);
  if (!allowed) throw quotaExceeded('AI generation', limit, nextUtcMidnight(now), now);
  try {
    const result = await deps.provider.generateCards({ ...input, targetLanguage: byProfile.target });
    // nothing usable in the input (no content words): nothing delivered, nothing charged
    if (result.cards.length === 0) await deps.quotas.releaseDaily('generate', userId, day);
    return {
      ...result,
      notes: [...byProfile.notes, ...(result.notes ?? [])],
      cards: result.cards.slice(0, input.count),
      provider: deps.provider.name,
    };
  } catch (err) {
    await deps.quotas.releaseDaily('generate', userId, day);
    throw err;
  }
}
