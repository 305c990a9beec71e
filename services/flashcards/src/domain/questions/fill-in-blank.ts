import { escapeRegexText } from './regex';
import { inflectedForms } from './inflection';

export const BLANK = '_____';

/**
 * Blanks the target word (or the inflected form the sentence uses: "ran" for "run") in the example
 * sentence, matching whole words case-insensitively. null when the sentence holds no form of it. Pure.
 */
export function blankWord(sentence: string, word: string): { text: string; answer: string } | null {
  for (const form of inflectedForms(word)) {
    const re = new RegExp(`(?<![\\p{L}\\p{N}])${escapeRegexText(form)}(?![\\p{L}\\p{N}])`, 'iu');
    const m = re.exec(sentence);
    if (m)
      return {
        text: sentence.slice(0, m.index) + BLANK + sentence.slice(m.index + m[0].length),
        answer: m[0],
      };
  }
  return null;
}

/**
 * The fill-in-the-blank text of a card: its example with the word blanked, or, without a usable
 * example, its definition followed by a blank to fill. Pure.
 */
export function fillInBlankText(card: { word: string; example: string | null; definition: string }): {
  text: string;
  answer: string;
} {
  const fromExample = card.example ? blankWord(card.example, card.word) : null;
  if (fromExample) return fromExample;
  const hint = card.definition.trim() || 'Write the word';
  return { text: `${hint}: ${BLANK}`, answer: card.word };
}
