import type { AiDeps } from './ai-deps';
import { LANGUAGE_NAMES } from './language/supported-languages';

/**
 * The translation language of a request that names none: the user's native language (profile), when
 * the provider translates into it from `source` and it is not `source` itself. Otherwise none, and
 * a note says why when the profile named one.
 */
export async function profileTranslationLanguage(
  userId: string,
  source: string,
  deps: Pick<AiDeps, 'profiles' | 'provider'>,
): Promise<{ target: string | undefined; notes: string[] }> {
  const { native } = await deps.profiles.forUser(userId);
  if (!native || native === source) return { target: undefined, notes: [] };
  const pairs = deps.provider.translationPairs;
  if (!pairs || pairs.some(([from, to]) => from === source && to === native))
    return { target: native, notes: [] };
  const name = (code: string) => LANGUAGE_NAMES[code] ?? `"${code}"`;
  return {
    target: undefined,
    notes: [
      `Your profile's native language (${name(native)}) has no dictionary from ${name(source)}: translations use the default.`,
    ],
  };
}
