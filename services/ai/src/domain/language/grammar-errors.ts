import type { Correction, CorrectionType } from './grammar-check';
import type { GrammarError } from './language-data';

/** The correction type of a Grammalecte error kind (its option names). */
const KINDS: Record<string, CorrectionType> = {
  gn: 'agreement',
  conj: 'agreement',
  ppas: 'tense',
  infi: 'tense',
  vmode: 'tense',
  imp: 'tense',
  inte: 'word-order',
  maj: 'capitalization',
  virg: 'punctuation',
};

/**
 * A checker's errors applied to the sentence: one per rule (its alternatives, such as "Elle sont" →
 * "Elle est" or "Elles sont", share it: the checker's first is taken), none overlapping one taken
 * before; each error's first suggestion is written in its place. An error without a suggestion is
 * reported, the text left as it is.
 */
export function applyGrammarErrors(
  sentence: string,
  errors: GrammarError[],
): { corrected: string; corrections: Correction[] } {
  const rules = new Set<string>();
  const taken: GrammarError[] = [];
  for (const e of errors) {
    if (rules.has(e.rule) || e.end <= e.start || e.end > sentence.length) continue;
    if (taken.some((t) => e.start < t.end && t.start < e.end)) continue;
    rules.add(e.rule);
    taken.push(e);
  }
  taken.sort((a, b) => a.start - b.start);
  let corrected = '';
  let at = 0;
  const corrections: Correction[] = [];
  for (const e of taken) {
    const original = sentence.slice(e.start, e.end);
    const suggestion = e.suggestions[0] ?? original;
    corrected += sentence.slice(at, e.start) + suggestion;
    at = e.end;
    corrections.push({
      type: KINDS[e.kind] ?? 'other',
      original,
      suggestion,
      ...(e.suggestions.length > 1 && { suggestions: e.suggestions.slice(0, 8) }),
      message: e.message,
    });
  }
  return { corrected: corrected + sentence.slice(at), corrections };
}
