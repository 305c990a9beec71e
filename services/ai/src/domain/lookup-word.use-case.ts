import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { AiDeps } from './ai-deps';
import { UNLIMITED } from './ai-deps';
import { profileTranslationLanguage } from './profile-defaults';
import { quotaExceeded } from './quota-window';

export const LookupWordInput = z.object({
  word: z
    .string()
    .trim()
    .min(1, 'must not be empty')
    .max(64, 'at most 64 characters')
    .regex(/^[\p{L}][\p{L}\p{M}'’-]*$/u, 'a single word (letters, apostrophe, hyphen)'),
  context: z.string().trim().min(1).max(500, 'at most 500 characters').optional(),
  language: z
    .string()
    .regex(/^[a-z]{2}$/, 'an ISO 639-1 code such as "en"')
    .default('en'),
  targetLanguage: z
    .string()
    .regex(/^[a-z]{2}$/, 'an ISO 639-1 code such as "es"')
    .optional()
    .describe("the translation's language; default: the nativeLanguage on the caller's profile"),
});
export type LookupWordInput = z.infer<typeof LookupWordInput>;

/**
 * Interactive word look-up. Free users get N per sliding window (spec: 5 per 3 hours), counted in
 * Redis so every replica sees the same count; a failed look-up is not counted. Without a
 * `targetLanguage`, the translation is in the user's native language (profile).
 */
export async function lookupWord(userId: string, input: LookupWordInput, deps: AiDeps) {
  const now = deps.clock.now();
  const [{ isPremium }, byProfile] = await Promise.all([
    deps.entitlements.forUser(userId),
    input.targetLanguage === undefined
      ? profileTranslationLanguage(userId, input.language, deps)
      : { target: input.targetLanguage, notes: [] },
  ]);
  const limit = isPremium ? UNLIMITED : deps.limits.lookupsPerWindow;
  const windowMs = deps.limits.lookupWindowMs;
  const useId = randomUUID();
  const state = await deps.quotas.takeWindow('lookup', userId, {
    nowMs: now.getTime(),
    windowMs,
    limit,
    useId,
  });
  const resetAt = new Date((state.oldestMs ?? now.getTime()) + windowMs);
  if (!state.allowed) throw quotaExceeded('Word look-up', limit, resetAt, now);
  try {
    const result = await deps.provider.lookupWord({ ...input, targetLanguage: byProfile.target });
    return {
      ...result,
      notes: [...byProfile.notes, ...(result.notes ?? [])],
      provider: deps.provider.name,
      quota: {
        used: state.used,
        limit,
        remaining: limit === UNLIMITED ? UNLIMITED : Math.max(0, limit - state.used),
        resetAt: resetAt.toISOString(),
      },
    };
  } catch (err) {
    await deps.quotas.releaseWindow('lookup', userId, useId);
    throw err;
  }
}
