import nlp from 'compromise';
import { startsWithVowelSound } from './pronunciation';

/** The local checker produces the first six; a model may also report the others. */
export type CorrectionType =
  | 'capitalization'
  | 'article'
  | 'agreement'
  | 'repetition'
  | 'punctuation'
  | 'spacing'
  | 'spelling'
  | 'tense'
  | 'word-order'
  | 'other';

export interface Correction {
  type: CorrectionType;
  /** the text as written */
  original: string;
  /** what it should be */
  suggestion: string;
  /** spelling: every suggestion of the dictionary, best first (`suggestion` is the one applied) */
  suggestions?: string[];
  message: string;
}

interface Rule {
  type: CorrectionType;
  pattern: RegExp;
  /** `before` is the word just before the match, if any */
  fix(match: RegExpExecArray, before: string | undefined): string | undefined;
  message(original: string, suggestion: string): string;
}

const THIRD_PERSON = /^(he|she|it)$/i;
const BARE_FORM_CONTEXT =
  /^(do|does|did|can|could|will|would|shall|should|may|might|must|let|lets|make|makes|made|help|helps|helped|see|saw|watch|watched|hear|heard|have|has|had|why|not)$/i;
const SUBJUNCTIVE_CONTEXT = /^(if|wish|wished|though|as)$/i;

/**
 * Auxiliaries and their negative contractions, by the person of the subject: what the wrong form
 * should be ("he don't" → "he doesn't", "they was" → "they were", "I is" → "I am").
 */
const AUXILIARY_AGREEMENT: Record<'third' | 'first' | 'plural', Record<string, string>> = {
  third: {
    do: 'does',
    "don't": "doesn't",
    have: 'has',
    "haven't": "hasn't",
    be: 'is',
    are: 'is',
    am: 'is',
    "aren't": "isn't",
    were: 'was',
    "weren't": "wasn't",
  },
  first: {
    does: 'do',
    "doesn't": "don't",
    has: 'have',
    "hasn't": "haven't",
    is: 'am',
    are: 'am',
    be: 'am',
  },
  plural: {
    does: 'do',
    "doesn't": "don't",
    has: 'have',
    "hasn't": "haven't",
    is: 'are',
    am: 'are',
    "isn't": "aren't",
    was: 'were',
    "wasn't": "weren't",
  },
};

/** Present-tense verb after he/she/it, by compromise's conjugator ("go" → "goes"). */
function thirdPersonForm(verb: string): string | undefined {
  const doc = nlp(verb);
  if (!doc.has('#Infinitive') || doc.has('#Modal') || doc.has('#Auxiliary')) return undefined;
  const conj = doc.verbs().conjugate()[0] as { PresentTense?: string; PastTense?: string } | undefined;
  // "he read", "she put": the past tense looks like the base form, so it may well be right
  if (conj?.PastTense === verb.toLowerCase()) return undefined;
  return conj?.PresentTense && conj.PresentTense !== verb.toLowerCase() ? conj.PresentTense : undefined;
}

/** Base form after I/you/we/they ("goes" → "go"); only for a verb tagged present-tense and not infinitive. */
function baseForm(verb: string): string | undefined {
  const doc = nlp(verb);
  if (!doc.has('#PresentTense') || doc.has('#Infinitive') || doc.has('#Copula')) return undefined;
  const inf = doc.verbs().toInfinitive().text();
  return inf && inf !== verb.toLowerCase() ? inf : undefined;
}

const keepCase = (like: string, word: string) =>
  like[0] === like[0]?.toUpperCase() ? word[0]!.toUpperCase() + word.slice(1) : word;

/**
 * Rule-based English checks. Rules are deliberately few and precise: a learner is better served by no
 * correction than a wrong one. Spelling is not checked (no spelling dictionary is installed).
 */
const RULES: Rule[] = [
  {
    type: 'spacing',
    pattern: / {2,}/g,
    fix: () => ' ',
    message: () => 'Use a single space between words.',
  },
  {
    type: 'repetition',
    pattern: /\b(\p{L}+)\s+\1\b/giu,
    fix: (m) => (m[1]!.toLowerCase() === 'had' || m[1]!.toLowerCase() === 'that' ? undefined : m[1]),
    message: (o) => `The word "${o.split(/\s+/)[0]}" is repeated.`,
  },
  {
    type: 'capitalization',
    pattern: /(?<![\p{L}'’])i(?![\p{L}'’])/gu,
    fix: () => 'I',
    message: () => 'The pronoun "I" is always written with a capital letter.',
  },
  {
    type: 'article',
    pattern: /\b(a|an)\s+(\p{L}+)/giu,
    fix: (m) => {
      const wanted = startsWithVowelSound(m[2]!) ? 'an' : 'a';
      return m[1]!.toLowerCase() === wanted ? undefined : `${keepCase(m[1]!, wanted)} ${m[2]}`;
    },
    message: (o, s) =>
      `Use "${s.split(' ')[0]}" before a word that starts with ${/^an/i.test(s) ? 'a vowel' : 'a consonant'} sound ("${o.split(' ')[1]}").`,
  },
  {
    type: 'agreement',
    pattern: /\b(he|she|it|i|you|we|they)\s+(\p{L}+(?:['’]t)?)(?![\p{L}'’])/giu,
    fix: (m, before) => {
      const subject = m[1]!;
      const verb = m[2]!;
      // "did he go", "can it work", "let it go", "made them leave": the bare form is right there
      if (before && BARE_FORM_CONTEXT.test(before)) return undefined;
      // "if he were", "I wish they were": the subjunctive is not a mistake
      if (before && SUBJUNCTIVE_CONTEXT.test(before) && /^were/i.test(verb)) return undefined;
      const apostrophe = verb.includes('’') ? '’' : "'";
      const person = THIRD_PERSON.test(subject) ? 'third' : /^i$/i.test(subject) ? 'first' : 'plural';
      const fixed = AUXILIARY_AGREEMENT[person][verb.toLowerCase().replace('’', "'")];
      if (fixed) return `${subject} ${keepCase(verb, fixed.replace("'", apostrophe))}`;
      if (/['’]/.test(verb)) return undefined; // other contractions ("can't", "didn't") agree with anyone
      if (person === 'third') {
        const form = thirdPersonForm(verb);
        return form ? `${subject} ${form}` : undefined;
      }
      const form = baseForm(verb);
      return form ? `${subject} ${form}` : undefined;
    },
    message: (o, s) => `The verb must agree with its subject: "${s}", not "${o}".`,
  },
];

/** Checks one sentence; returns the corrected sentence and each change made, in order. */
export function checkGrammar(sentence: string): { corrected: string; corrections: Correction[] } {
  let text = sentence.trim();
  const corrections: Correction[] = [];
  for (const rule of RULES) {
    text = text.replace(rule.pattern, (...args) => {
      const match = args.slice(0, -2) as unknown as RegExpExecArray;
      const offset = args.at(-2) as number;
      const before = /(\p{L}+)[^\p{L}]*$/u.exec((args.at(-1) as string).slice(0, offset))?.[1];
      const original = match[0];
      const fixed = rule.fix(match, before);
      if (fixed === undefined || fixed === original) return original;
      corrections.push({
        type: rule.type,
        original,
        suggestion: fixed,
        message: rule.message(original, fixed),
      });
      return fixed;
    });
  }
  const first = text.match(/\p{L}/u);
  if (first && first[0] !== first[0].toUpperCase()) {
    const i = first.index!;
    const upper = text.slice(0, i) + first[0].toUpperCase() + text.slice(i + 1);
    corrections.push({
      type: 'capitalization',
      original: text.split(/\s/)[0]!,
      suggestion: upper.split(/\s/)[0]!,
      message: 'A sentence starts with a capital letter.',
    });
    text = upper;
  }
  if (text && !/[.!?…]["'”’)]*$/.test(text)) {
    const mark = /^(who|what|when|where|why|how|do|does|did|is|are|can|could|will|would|should)\b/i.test(text)
      ? '?'
      : '.';
    corrections.push({
      type: 'punctuation',
      original: text.split(/\s/).at(-1)!,
      suggestion: text.split(/\s/).at(-1)! + mark,
      message: `A sentence ends with "${mark}".`,
    });
    text += mark;
  }
  return { corrected: text, corrections };
}
