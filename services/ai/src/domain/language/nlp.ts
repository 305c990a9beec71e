import nlp from 'compromise';

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

/** Dictionary form: infinitive for verbs, singular for nouns, otherwise the normalised word. */
export function lemma(normal: string, pos: PartOfSpeech): string {
  if (pos === 'verb') {
    const root = nlp(normal).compute('root').json()[0]?.terms?.[0]?.root as string | undefined;
    if (root) return root;
    const inf = nlp(normal).verbs().toInfinitive().text();
    return inf || normal;
  }
  if (pos === 'noun') {
    const doc = nlp(normal);
    if (doc.has('#Plural')) return doc.nouns().toSingular().text() || normal;
  }
  return normal;
}

/** Tags of one word said on its own (for look-ups and gRPC, where there is no sentence). */
export function tagsOfWord(word: string): string[] {
  return (nlp(word).json()[0]?.terms?.[0]?.tags as string[] | undefined) ?? [];
}

/** Every inflected form of a word the English inflector knows, the word itself first. */
export function inflections(word: string): string[] {
  const base = word.trim().toLowerCase();
  const forms = new Set<string>([base]);
  const tags = tagsOfWord(base);
  const add = (v: unknown) => {
    if (typeof v === 'string' && v && !v.includes(' ')) forms.add(v.toLowerCase());
  };
  if (tags.includes('Verb')) {
    const verb = lemma(base, 'verb');
    forms.add(verb);
    const conj = nlp(verb).verbs().conjugate()[0] as Record<string, string> | undefined;
    if (conj) Object.values(conj).forEach(add);
  }
  if (tags.includes('Noun') && !tags.includes('Pronoun')) {
    const doc = nlp(base);
    add(doc.nouns().toSingular().text());
    add(nlp(base).nouns().toPlural().text());
  }
  if (tags.includes('Adjective')) {
    const conj = nlp(base).adjectives().conjugate()[0] as Record<string, string> | undefined;
    if (conj) [conj.Comparative, conj.Superlative].forEach(add);
  }
  return [...forms];
}
