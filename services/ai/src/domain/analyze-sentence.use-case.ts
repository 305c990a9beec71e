import { z } from 'zod';
import { normaliseForCache } from './ports';
import type { AiDeps } from './ai-deps';
import type { SentenceAnalysis } from './providers/ai-provider';

export const AnalyzeSentenceInput = z.object({
  sentence: z
    .string()
    .trim()
    .min(1, 'must not be empty')
    .max(1_000, 'at most 1000 characters')
    .refine((t) => /\p{L}/u.test(t), 'must contain at least one word'),
  language: z
    .string()
    .regex(/^[a-z]{2}$/, 'an ISO 639-1 code such as "en"')
    .default('en'),
});
export type AnalyzeSentenceInput = z.infer<typeof AnalyzeSentenceInput>;

/**
 * Grammar correction and high-value word marking. Results are cached (spec: 24 hours) by provider,
 * language and the normalised sentence, so a repeated sentence costs no provider call.
 */
export async function analyzeSentence(input: AnalyzeSentenceInput, deps: AiDeps) {
  const now = deps.clock.now();
  const sentence = normaliseForCache(input.sentence);
  const key = { provider: deps.provider.name, language: input.language, sentence };
  const hit = await deps.cache.get<SentenceAnalysis>(key, now);
  if (hit) return { ...hit.value, provider: deps.provider.name, cached: true, cachedAt: hit.cachedAt };
  const { transient, ...value } = await deps.provider.analyzeSentence({ sentence, language: input.language });
  // an analysis a checker failed to finish is answered, not kept: the next asking gets the whole one
  if (!transient) await deps.cache.set(key, value, now);
  return { ...value, provider: deps.provider.name, cached: false, cachedAt: now.toISOString() };
}
