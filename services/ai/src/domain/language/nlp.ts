import nlp from 'compromise';
import { frequencyRank } from './word-frequency';

/** One token of English text as the compromise tagger sees it. */
export interface Token {
  text: string;
  /** lower-case, punctuation stripped */
  normal: string;
  tags: string[];
  /** index of the sentence it belongs to */
  sentence: number;
}

export function parse(text: string) {
  return nlp(text);
}

interface RawTerm {
  text: string;
  normal?: string;
  root?: string;
  pre: string;
  post: string;
  tags: Set<string>;
}

/**
 * Sentences and word tokens of an English text (compromise's tokenizer and tagger). Reads the parsed
 * document directly: compromise's json() output costs several times the parse itself.
 */
export function tokenize(text: string): { sentences: string[]; tokens: Token[] } {
  const document = (nlp(text) as unknown as { document: RawTerm[][] }).document;
  const tokens: Token[] = [];
  const sentences: string[] = [];
  document.forEach((terms, i) => {
    let sentence = '';
    for (const t of terms) {
      sentence += t.pre + t.text + t.post;
      const normal = t.normal ?? t.text.toLowerCase();
      // compromise keeps numbers and symbols as terms; words are what carry letters
      if (/\p{L}/u.test(normal)) tokens.push({ text: t.text, normal, tags: [...t.tags], sentence: i });
    }
    sentences.push(sentence.trim());
  });
  return { sentences, tokens };
}

export type PartOfSpeech =
  | 'noun'
  | 'verb'
  | 'adjective'
  | 'adverb'
  | 'pronoun'
  | 'preposition'
  | 'conjunction'
  | 'determiner'
  | 'interjection'
  | 'number'
  | 'other';

/** The broad part of speech from compromise's tags (its most specific tags win). */
export function partOfSpeech(tags: readonly string[]): PartOfSpeech {
  const has = (t: string) => tags.includes(t);
  if (has('Pronoun')) return 'pronoun';
  if (has('Verb') || has('Auxiliary') || has('Copula')) return 'verb';
  if (has('Adjective')) return 'adjective';
  if (has('Adverb')) return 'adverb';
  if (has('Value')) return 'number';
  if (has('Noun')) return 'noun';
  if (has('Preposition')) return 'preposition';
  if (has('Conjunction')) return 'conjunction';
  if (has('Determiner')) return 'determiner';
  if (has('Expression')) return 'interjection';
  return 'other';
}

export const CONTENT_POS: ReadonlySet<PartOfSpeech> = new Set(['noun', 'verb', 'adjective', 'adverb']);

/** The first term of a parsed document, read directly (json() costs more than the parse). */
const firstTerm = (doc: object) => (doc as unknown as { document: RawTerm[][] }).document[0]?.[0];

/**
 * Results for single words, bounded: look-ups, profiles and inflections ask the tagger about the same
 * words again and again, and a word said on its own always gets the same answer.
 */
function memoised<T>(limit: number, compute: (key: string) => T): (key: string) => T {
  const memo = new Map<string, T>();
  return (key) => {
    let value = memo.get(key);
    if (value === undefined && !memo.has(key)) {
      value = compute(key);
      if (memo.size >= limit) memo.delete(memo.keys().next().value!);
      memo.set(key, value);
    }
    return value as T;
  };
}

/** A word said on its own, parsed once: its tags and compromise's root (infinitive) when a verb. */
const wordInfo = memoised(20_000, (word) => {
  const term = firstTerm(nlp(word).compute('root'));
  return { tags: term ? [...term.tags] : [], root: term?.root };
});

const verbLemma = memoised(20_000, (normal) => {
  const root = wordInfo(normal).root;
  if (root) return root;
  const inf = nlp(normal).verbs().toInfinitive().text();
  return inf || normal;
});

/** Dictionary form: infinitive for verbs, singular for nouns, otherwise the normalised word. */
export function lemma(normal: string, pos: PartOfSpeech): string {
  if (pos === 'verb') {
    return verbLemma(normal);
  }
  if (pos === 'noun') return nounLemma(normal);
  return normal;
}

const nounLemma = memoised(20_000, (normal) =>
  wordInfo(normal).tags.includes('Plural')
    ? transform.noun.toSingular(normal, world.model) || normal
    : normal,
);

/** Tags of one word said on its own (for look-ups and gRPC, where there is no sentence). */
export function tagsOfWord(word: string): string[] {
  return [...wordInfo(word).tags];
}

/** Every inflected form of a word the English inflector knows, the word itself first. */
export function inflections(word: string): string[] {
  return [...inflectionsOf(word.trim().toLowerCase())];
}

// compromise's word transforms without parsing: the same inflector its document methods call, at a
// hundredth of the cost (no tagging of a one-word document for each form)
const world = nlp.world() as unknown as {
  model: object;
  methods: {
    two: {
      transform: {
        verb: { conjugate(inf: string, model: object): Record<string, string> | undefined };
        noun: { toPlural(s: string, model: object): string; toSingular(s: string, model: object): string };
        adjective: {
          toComparative(s: string, model: object): string;
          toSuperlative(s: string, model: object): string;
          fromComparative(s: string, model: object): string;
          fromSuperlative(s: string, model: object): string;
        };
      };
    };
  };
};
const transform = world.methods.two.transform;

const NOT_INFLECTED = ['Pronoun', 'ProperNoun', 'Honorific', 'Abbreviation', 'Acronym'];

const inflectionsOf = memoised(5_000, (base): readonly string[] => {
  const forms = new Set<string>([base]);
  const tags = tagsOfWord(base);
  const add = (v: unknown) => {
    if (typeof v === 'string' && v && !v.includes(' ')) forms.add(v.toLowerCase());
  };
  const m = world.model;
  if (tags.includes('Verb')) {
    const verb = lemma(base, 'verb');
    forms.add(verb);
    // "be" and the auxiliaries are irregular beyond the transform: the document method knows them
    const conj =
      tags.includes('Copula') || tags.includes('Auxiliary')
        ? (nlp(verb).verbs().conjugate()[0] as Record<string, string> | undefined)
        : transform.verb.conjugate(verb, m);
    if (conj) Object.values(conj).forEach(add);
  }
  if (tags.includes('Noun') && !NOT_INFLECTED.some((t) => tags.includes(t))) {
    if (tags.includes('Plural')) add(transform.noun.toSingular(base, m));
    else if (!tags.includes('Uncountable')) add(transform.noun.toPlural(base, m));
  }
  if (tags.includes('Adjective')) {
    const adjective = tags.includes('Comparative')
      ? transform.adjective.fromComparative(base, m)
      : tags.includes('Superlative')
        ? transform.adjective.fromSuperlative(base, m)
        : base;
    // the transform suffixes any adjective ("beautifuler"): a form counts when English uses it
    for (const form of [
      adjective,
      transform.adjective.toComparative(adjective, m),
      transform.adjective.toSuperlative(adjective, m),
    ])
      if (form === base || frequencyRank(form) !== undefined) add(form);
  }
  return [...forms];
});
