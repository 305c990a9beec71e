import { type Correction, checkGrammar } from '../language/grammar-check';
import { applyGrammarErrors } from '../language/grammar-errors';
import type { LanguageData, Reading } from '../language/language-data';
import { CONTENT_POS, partOfSpeech, type PartOfSpeech, tokenize } from '../language/nlp';
import { LANGUAGE_NAMES, unsupportedLanguage } from '../language/supported-languages';
import { cefrInLanguage, frequencyRankIn, hasFrequencyList, levelIndex } from '../language/word-frequency';
import { likeliestIntended } from '../language/spelling-choice';
import { wordClassOf } from '../language/word-facts';
import { profileWord } from '../language/word-profile';
import type { AnalysedToken, HighValueWord, SentenceAnalysis } from './ai-provider';

/** Words and numbers of a sentence with where they stand. */
interface Span {
  text: string;
  index: number;
  number: boolean;
}

/**
 * Words as the analysers see them: French and Italian elisions stand apart ("l'", "dell'"), other
 * apostrophes and hyphens stay inside a word (French words written with one, "aujourd'hui",
 * "quelqu'un", are one word); numbers are tokens of their own.
 */
function spansOf(sentence: string, language: string): Span[] {
  const word =
    language === 'fr' || language === 'it'
      ? /(?:aujourd|prud|presqu|quelqu|entr)['’](?:hui|hom\p{L}*|île\p{L}*|une?s?|acte\p{L}*)|[\p{L}\p{M}]+['’](?=\p{L})|[\p{L}\p{M}]+(?:-[\p{L}\p{M}]+)*|\p{N}+(?:[.,]\p{N}+)*/giu
      : /[\p{L}\p{M}]+(?:['’-][\p{L}\p{M}]+)*|\p{N}+(?:[.,]\p{N}+)*/gu;
  return [...sentence.matchAll(word)].map((m) => ({
    text: m[0],
    index: m.index,
    number: /^\p{N}/u.test(m[0]),
  }));
}

/** Misspelled words per sentence that get Hunspell's suggestions (the rest are reported without). */
const MAX_SUGGESTED = 3;

const NOUN_CONTEXT: ReadonlySet<string> = new Set(['determiner', 'preposition', 'number', 'adjective']);

/**
 * The reading of a word in its place, without a tagger: after a determiner or preposition a noun or
 * adjective; after a pronoun a verb; a determiner before a noun; then the word as its own entry; then
 * the analyser's first.
 */
function chooseReading(
  readings: Reading[],
  surface: string,
  before: Reading | undefined,
  after: Reading[],
): Reading | undefined {
  if (readings.length <= 1) return readings[0];
  const lower = surface.toLowerCase();
  const score = (r: Reading) => {
    let s = 0;
    if (
      before?.category &&
      NOUN_CONTEXT.has(before.category) &&
      ['noun', 'adjective'].includes(r.category ?? '')
    )
      s += 2;
    if (before?.category === 'pronoun' && r.category === 'verb') s += 2;
    if (r.category === 'determiner' && after.some((a) => a.category === 'noun' || a.category === 'adjective'))
      s += 2;
    if (r.lemma.toLowerCase() === lower) s += 1;
    return s;
  };
  return readings.reduce((best, r) => (score(r) > score(best) ? r : best), readings[0]!);
}

/**
 * The offline analysis of one sentence in any of the eight languages: spelling by Hunspell, grammar
 * by the English rules and by Grammalecte for French, tokens with lemma and part of speech
 * (compromise for English, Apertium's analysers, Hunspell's affix rules for German), high-value
 * words by frequency lists.
 * A part whose data is missing is named in `unavailable`, never an error.
 */
export async function analyseSentenceLocally(
  data: LanguageData,
  sentence: string,
  language: string,
): Promise<SentenceAnalysis> {
  if (!LANGUAGE_NAMES[language])
    throw unsupportedLanguage(
      'language',
      `Language "${language}" is not supported; supported: ${Object.keys(LANGUAGE_NAMES).join(', ')}`,
      Object.keys(LANGUAGE_NAMES),
    );
  const unavailable = new Set<string>();
  const morphology = language === 'en' ? undefined : data.morphology?.(language);
  const spans = spansOf(sentence, language);
  const words = spans.filter((s) => !s.number).map((s) => s.text);
  const readingsOf =
    morphology && words.length ? await morphology.analyse(words) : new Map<string, Reading[]>();

  // spelling: words Hunspell does not know, unless they are names or an analyser knows them
  const speller = data.speller?.(language);
  const misspelled = speller && words.length ? await speller.misspelled(words) : new Set<string>();
  if (!speller || !misspelled) unavailable.add('spelling');
  // the checker is installed but did not answer (timed out, restarted): next time it may
  let transient = !!speller && !misspelled;
  const names =
    language === 'en'
      ? new Set(
          tokenize(sentence)
            .tokens.filter((t) => t.tags.includes('ProperNoun'))
            .map((t) => t.text.replace(/[^\p{L}\p{M}'’-]/gu, '')),
        )
      : new Set<string>();
  const wrong = [
    ...new Set(
      spans
        .filter((span) => !span.number && misspelled?.has(span.text))
        .map((span) => span.text)
        .filter((w) => {
          const acronym = w.length > 1 && w === w.toUpperCase();
          const readings = readingsOf.get(w) ?? [];
          return !names.has(w) && !acronym && !readings.some((r) => r.proper || r.category !== undefined);
        }),
    ),
  ];
  // suggestions are the costly part of spelling: the first few misspelled words get them
  const asked = wrong.slice(0, MAX_SUGGESTED);
  const answered = speller && asked.length ? await speller.suggest(asked) : new Map<string, string[]>();
  if (!answered) {
    unavailable.add('spelling');
    transient = true;
  }
  const suggestionsOf = answered ?? new Map<string, string[]>();
  const suggested = [...new Set([...suggestionsOf.values()].flatMap((list) => list.slice(0, 8)))].filter(
    (w) => !readingsOf.has(w),
  );
  if (morphology && suggested.length)
    for (const [w, r] of await morphology.analyse(suggested)) readingsOf.set(w, r);
  const known = (w: string) => (readingsOf.get(w) ?? []).some((r) => r.category !== undefined);
  // the choice scans the frequent forms too (~1-3 ms a word): the asked few only, as for suggestions
  const chosen = new Map(
    asked.map((w) => [w, likeliestIntended(language, w, suggestionsOf.get(w) ?? [], known)]),
  );
  const corrections: Correction[] = wrong.map((w) => {
    const suggestion = chosen.get(w);
    return {
      type: 'spelling',
      original: w,
      suggestion: suggestion ?? w,
      suggestions: (suggestionsOf.get(w) ?? []).slice(0, 8),
      message: suggestion
        ? `"${w}" is not in the ${LANGUAGE_NAMES[language]} dictionary: "${suggestion}"?`
        : `"${w}" is not in the ${LANGUAGE_NAMES[language]} dictionary`,
    };
  });
  const reported = new Set(wrong);
  let corrected = '';
  let at = 0;
  for (const span of spans) {
    const suggestion = chosen.get(span.text);
    if (span.number || !suggestion) continue;
    corrected += sentence.slice(at, span.index) + suggestion;
    at = span.index + span.text.length;
  }
  corrected += sentence.slice(at);

  if (language === 'en') {
    const grammar = checkGrammar(corrected);
    corrected = grammar.corrected;
    corrections.push(...grammar.corrections);
    return {
      ...englishTokens(corrected, data),
      original: sentence,
      corrected,
      corrections,
      unavailable: [...unavailable],
      ...(transient && { transient }),
    };
  }
  // grammar where a real checker is installed (Grammalecte for French), on the spelling's result
  const grammarChecker = data.grammar?.(language);
  const grammarErrors = grammarChecker ? await grammarChecker.check(corrected) : undefined;
  if (grammarErrors) {
    const grammar = applyGrammarErrors(corrected, grammarErrors);
    corrected = grammar.corrected;
    corrections.push(...grammar.corrections);
  } else {
    unavailable.add('grammar');
    if (grammarChecker) transient = true;
  }
  if (!hasFrequencyList(language)) unavailable.add('highValueWords');

  // tokens of the corrected sentence: the corrected words are analysed too
  const correctedSpans = spansOf(corrected, language);
  const newWords = correctedSpans.filter((s) => !s.number && !readingsOf.has(s.text)).map((s) => s.text);
  if (morphology && newWords.length)
    for (const [w, r] of await morphology.analyse(newWords)) readingsOf.set(w, r);
  const tokens: AnalysedToken[] = [];
  const highValueWords: HighValueWord[] = [];
  const seen = new Set<string>();
  let before: Reading | undefined;
  correctedSpans.forEach((span, i) => {
    if (span.number) {
      tokens.push({ text: span.text, lemma: span.text, partOfSpeech: 'number' });
      before = { lemma: span.text, partOfSpeech: 'other', category: 'number' };
      return;
    }
    const next = correctedSpans[i + 1];
    const reading = chooseReading(
      readingsOf.get(span.text) ?? [],
      span.text,
      before,
      next ? (readingsOf.get(next.text) ?? []) : [],
    );
    before = reading;
    const pos: PartOfSpeech | null =
      reading?.category ?? (reading && reading.partOfSpeech !== 'other' ? reading.partOfSpeech : null);
    tokens.push({ text: span.text, lemma: reading?.lemma ?? null, partOfSpeech: pos });
    if (!reading || reading.proper || reported.has(span.text) || span.text.length < 3) return;
    // analysers without parts of speech (German's affix rules): frequency alone sorts out function words
    if (pos ? !CONTENT_POS.has(pos) : reading.category !== undefined) return;
    const ranks = [frequencyRankIn(language, span.text), frequencyRankIn(language, reading.lemma)].filter(
      (r): r is number => r !== undefined,
    );
    if (!hasFrequencyList(language)) return;
    const level = cefrInLanguage(language, ranks.length ? Math.min(...ranks) : undefined);
    // B1 and above: past the core vocabulary, worth a card
    if (levelIndex(level) < 2 || seen.has(reading.lemma)) return;
    seen.add(reading.lemma);
    highValueWords.push({
      word: span.text,
      lemma: reading.lemma,
      partOfSpeech: pos ?? 'other',
      cefrLevel: level,
    });
  });
  if (tokens.some((t) => t.lemma === null)) unavailable.add('lemma');
  if (tokens.some((t) => t.partOfSpeech === null)) unavailable.add('partOfSpeech');
  return {
    original: sentence,
    corrected,
    corrections,
    tokens,
    highValueWords,
    unavailable: [...unavailable],
    ...(transient && { transient }),
  };
}

/** English tokens (compromise's tagger and lemmas) and high-value words, as before. */
function englishTokens(
  corrected: string,
  data: LanguageData,
): { tokens: AnalysedToken[]; highValueWords: HighValueWord[] } {
  const seen = new Set<string>();
  const tokens: AnalysedToken[] = [];
  const highValueWords: HighValueWord[] = [];
  const lexicon = data.lexicon();
  for (const t of tokenize(corrected).tokens) {
    const pos = partOfSpeech(t.tags);
    const p = profileWord(t.normal, pos);
    // WordNet's morphology where it knows the word ("were" → "be"), else the tagger's lemma
    const cls = wordClassOf(pos);
    const base = (lexicon && cls && lexicon.baseForms(t.normal, cls).at(-1)) || p.lemma;
    const text = t.text.replace(/[^\p{L}\p{M}\p{N}'’-]/gu, '');
    const proper = t.tags.includes('ProperNoun');
    tokens.push({ text, lemma: proper ? text : base, partOfSpeech: pos });
    if (!CONTENT_POS.has(pos) || proper) continue;
    // B1 and above: past the core vocabulary, worth a card
    if (levelIndex(p.cefrLevel) < 2 || seen.has(p.lemma)) continue;
    seen.add(p.lemma);
    highValueWords.push({
      word: t.text.replace(/[^\p{L}'’-]/gu, ''),
      lemma: p.lemma,
      partOfSpeech: pos,
      cefrLevel: p.cefrLevel,
    });
  }
  return { tokens, highValueWords };
}
