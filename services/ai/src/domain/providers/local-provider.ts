import type { LanguageData, Lexicon } from '../language/language-data';
import {
  CONTENT_POS,
  inflections,
  lemma,
  partOfSpeech,
  type PartOfSpeech,
  tagsOfWord,
  tokenize,
} from '../language/nlp';
import { arpabet, ipa, startsWithVowelSound } from '../language/pronunciation';
import { assertSupportedPair, LANGUAGE_NAMES, SUPPORTED_PAIRS } from '../language/supported-languages';
import {
  classOfEntry,
  englishSense,
  translateWord,
  translateWordAnalysed,
  wordClassOf,
} from '../language/word-facts';
import {
  type CefrLevel,
  cefrFromRank,
  type Difficulty,
  difficultyOfLevel,
  frequencyRank,
  levelIndex,
} from '../language/word-frequency';
import { profileWord } from '../language/word-profile';
import type { AiProvider, GeneratedCard, GenerateCardsRequest, GeneratedCards } from './ai-provider';
import { renderIllustration } from './illustration';
import { analyseSentenceLocally } from './local-sentence-analysis';

const BAND: Record<Difficulty, [number, number]> = {
  beginner: [0, 1],
  intermediate: [2, 3],
  advanced: [4, 5],
};

/** No data installed: the provider still answers, with every dictionary field unavailable. */
export const NO_LANGUAGE_DATA: LanguageData = {
  lexicon: () => undefined,
  dictionary: () => undefined,
  status: () => [],
};

const wordCount = (s: string | null | undefined) => (s ? s.split(/\s+/).filter(Boolean).length : 0);
const name = (code: string) => LANGUAGE_NAMES[code] ?? code;

/** A word chosen for a card, before its facts are looked up. */
interface Candidate {
  /** the word to learn, as the card shows it */
  word: string;
  pos: PartOfSpeech | string;
  level: CefrLevel | undefined;
  rank: number;
  count: number;
  /** the sentence of the input it came from (text mode) */
  sentence: string | undefined;
  /** English mode (theme in another language): the English word the card translates */
  english?: string;
}

interface Filled {
  card: GeneratedCard;
  translated: boolean;
  /** the pivot languages of a translation no dictionary of the pair has (see DictionaryEntry.via) */
  via?: string[];
}

/** Says which translations are not direct dictionary entries, and how they were found. */
function pivotNote(source: string, target: string, pivoted: Array<{ word: string; via: string[] }>): string {
  const list = pivoted.map((p) => `"${p.word}" (through ${p.via.map(name).join(', ')})`).join(', ');
  return (
    `Not in the ${name(source)}–${name(target)} dictionary, translated through other languages' dictionaries ` +
    `that agree: ${list}. Lower confidence.`
  );
}

/** Distance of a level from the requested band (0 inside it). */
const distanceFrom = (difficulty: Difficulty) => {
  const [lo, hi] = BAND[difficulty];
  return (level: CefrLevel | undefined) => {
    if (!level) return 0;
    const i = levelIndex(level);
    return i < lo ? lo - i : i > hi ? i - hi : 0;
  };
};

/** How much of a card the data backs: frequency list, pronunciation, meaning, translation. */
function confidenceOf(facts: boolean[]): number {
  const known = facts.filter(Boolean).length;
  return Math.round((0.4 + (0.55 * known) / facts.length) * 100) / 100;
}

/**
 * The offline provider: deterministic, on installed language data. English analysis comes from
 * compromise (tagging, inflection), SUBTLEX-US (frequency → CEFR estimate) and the CMU dictionary
 * (pronunciation); meanings, synonyms, examples and themes from WordNet; translations and their
 * examples from the FreeDict dictionaries. Whatever the installed data cannot give is null and named
 * in `unavailable`, with the reason in `notes`; nothing is made up.
 */
export function localProvider(data: LanguageData = NO_LANGUAGE_DATA): AiProvider {
  /** English candidates from a text: its distinct content-word lemmas (proper nouns skipped). */
  function textCandidates(text: string): { candidates: Candidate[]; tokens: number } {
    const { sentences, tokens } = tokenize(text);
    const lexicon = data.lexicon();
    const byLemma = new Map<string, Candidate>();
    for (const t of tokens) {
      const pos = partOfSpeech(t.tags);
      if (!CONTENT_POS.has(pos) || t.normal.length < 2) continue;
      if (['ProperNoun', 'Pronoun', 'Possessive', 'Determiner'].some((tag) => t.tags.includes(tag))) continue;
      const p = profileWord(t.normal, pos);
      // WordNet's morphology where it knows the word ("cooked" → "cook"), else the tagger's lemma
      const cls = wordClassOf(pos);
      const base = (lexicon && cls && lexicon.baseForms(t.normal, cls).at(-1)) || p.lemma;
      const seen = byLemma.get(base);
      if (seen) seen.count++;
      else
        byLemma.set(base, {
          word: base,
          pos,
          level: p.cefrLevel,
          rank: p.rank ?? Number.MAX_SAFE_INTEGER,
          count: 1,
          sentence: sentences[t.sentence],
        });
    }
    return { candidates: [...byLemma.values()], tokens: tokens.length };
  }

  /** Dictionary forms of words of a language (none where no analyser is installed). */
  async function basesOf(language: string, words: string[]): Promise<Map<string, string[]>> {
    const readings = (await data.morphology?.(language)?.analyse(words)) ?? new Map();
    return new Map(words.map((w) => [w, (readings.get(w) ?? []).map((r: { lemma: string }) => r.lemma)]));
  }

  /**
   * Candidates from a text in another language: words the X→English dictionary knows as content
   * words, each under its dictionary form ("comieron" → comer), so the forms of one word are one card.
   */
  async function foreignTextCandidates(
    text: string,
    from: string,
  ): Promise<{ candidates: Candidate[]; tokens: number }> {
    const dictionary = data.dictionary(from, 'en');
    const lexicon = data.lexicon();
    const sentences = text.split(/(?<=[.!?…])\s+/u);
    const byWord = new Map<string, Candidate>();
    // surface form → the lemma it was counted under (null: not a card)
    const counted = new Map<string, string | null>();
    const surfaces = [...new Set([...text.matchAll(/\p{L}[\p{L}\p{M}'’-]*/gu)].map((m) => m[0]))];
    const bases = dictionary ? await basesOf(from, surfaces) : new Map<string, string[]>();
    let tokens = 0;
    sentences.forEach((sentence) => {
      for (const m of sentence.matchAll(/\p{L}[\p{L}\p{M}'’-]*/gu)) {
        tokens++;
        const normal = m[0].toLowerCase();
        if (!dictionary || normal.length < 3) continue;
        if (counted.has(normal)) {
          const lemma = counted.get(normal);
          const seen = lemma ? byWord.get(lemma) : undefined;
          if (seen) seen.count++;
          continue;
        }
        counted.set(normal, null);
        const found = translateWord(
          dictionary,
          normal,
          undefined,
          lexicon,
          data.dictionary('en', from),
          bases.get(m[0]) ?? [],
        );
        const entry = found?.entry;
        const cls = entry?.partOfSpeech;
        // function words are not worth a card: marked as such, or translated by an English one ("het" → "the")
        if (!entry || (cls && !['n', 'v', 'vt', 'vi', 'adj', 'adv'].includes(cls))) continue;
        if (!CONTENT_POS.has(partOfSpeech(tagsOfWord(found.translation)))) continue;
        const lemma = (entry.headword || m[0]).toLowerCase();
        counted.set(normal, lemma);
        const seen = byWord.get(lemma);
        if (seen) {
          seen.count++;
          continue;
        }
        byWord.set(lemma, {
          word: entry.headword || m[0],
          pos:
            { n: 'noun', v: 'verb', vt: 'verb', vi: 'verb', adj: 'adjective', adv: 'adverb' }[cls ?? ''] ??
            'other',
          level: undefined,
          rank: byWord.size,
          count: 1,
          sentence,
        });
      }
    });
    return { candidates: [...byWord.values()], tokens };
  }

  /** English theme words ranked by frequency and nearness to the requested level. */
  function themeCandidates(lexicon: Lexicon, theme: string, difficulty: Difficulty): Candidate[] {
    // "animals", "the human body": the theme as given, its base form, then its last word
    const keys = [theme, lexicon.baseForms(theme.trim(), 'noun')[0], theme.trim().split(/\s+/).at(-1)];
    let key = theme;
    let words: string[] = [];
    for (const k of keys) {
      if (!k) continue;
      words = lexicon.themeWords(k);
      key = k;
      if (words.length) break;
    }
    const distance = distanceFrom(difficulty);
    const ranked = (list: string[]) =>
      list
        .map((w) => {
          const rank = frequencyRank(w);
          return { word: w, rank, level: rank === undefined ? undefined : cefrFromRank(rank) };
        })
        .filter((c): c is { word: string; rank: number; level: CefrLevel } => c.rank !== undefined)
        .sort((a, b) => distance(a.level) - distance(b.level) || a.rank - b.rank);
    const strict = ranked(words);
    // a narrow theme ("health"): add words for which it is one of their first meanings, after the rest
    const seen = new Set(words);
    const loose = strict.length < 60 ? ranked(lexicon.themeWords(key, true).filter((w) => !seen.has(w))) : [];
    // the part of speech is the word's main meaning's, found when the card is filled
    return [...strict, ...loose].map((c) => ({ ...c, pos: 'other', count: 1, sentence: undefined }));
  }

  /** Fills one card from the data: meaning and synonyms (English), translation, examples. */
  async function fillCard(
    c: Candidate,
    req: GenerateCardsRequest,
    target: string | undefined,
  ): Promise<Filled> {
    const lexicon = data.lexicon();
    const english = req.sourceLanguage === 'en' ? c.word : c.english;
    const sense = lexicon && english ? englishSense(lexicon, english, wordClassOf(c.pos)) : undefined;
    const cls = wordClassOf(c.pos) ?? sense?.sense.partOfSpeech;
    let translation: string | null = null;
    let dictExample: { source: string; target: string } | undefined;
    let via: string[] | undefined;
    if (c.english && target === 'en') translation = c.english;
    else if (target) {
      const dictionary = data.dictionary(req.sourceLanguage, target);
      const reverse = data.dictionary(target, req.sourceLanguage);
      const found = dictionary
        ? await translateWordAnalysed(data.morphology?.(target), dictionary, c.word, cls, lexicon, reverse)
        : undefined;
      if (found) {
        translation = found.translation;
        dictExample = found.example;
        via = found.entry.via;
      }
    }
    let example: string | null = null;
    let exampleTranslation: string | null = null;
    if (req.includeExamples) {
      if (dictExample) {
        example = dictExample.source;
        exampleTranslation = dictExample.target;
      } else example = c.sentence ?? (req.sourceLanguage === 'en' ? (sense?.example ?? null) : null);
    }
    const pronunciation = req.sourceLanguage === 'en' ? (ipa(c.word) ?? null) : null;
    const rank = frequencyRank(c.word);
    return {
      translated: translation !== null,
      via,
      card: {
        word: c.word,
        translation,
        partOfSpeech: cls ?? sense?.sense.partOfSpeech ?? String(c.pos),
        pronunciation,
        definition: sense?.sense.definition ?? null,
        example,
        exampleTranslation,
        synonyms: req.includeSynonyms && req.sourceLanguage === 'en' ? (sense?.synonyms ?? []) : [],
        difficulty: c.level ? difficultyOfLevel(c.level) : req.difficulty,
        confidence: confidenceOf([
          req.sourceLanguage === 'en' ? rank !== undefined : true,
          req.sourceLanguage === 'en' ? arpabet(c.word) !== undefined : true,
          sense !== undefined,
          // a translation found only through other languages is backed less than a dictionary entry
          target === undefined || (translation !== null && !via),
        ]),
      },
    };
  }

  return {
    name: 'local',
    translationPairs: SUPPORTED_PAIRS,

    async generateCards(req: GenerateCardsRequest): Promise<GeneratedCards> {
      const source = req.sourceLanguage;
      // another language's words are translated into English, the one language every dictionary has
      const target =
        req.targetLanguage === source
          ? undefined
          : (req.targetLanguage ?? (source === 'en' ? undefined : 'en'));
      assertSupportedPair(source, target, { from: 'sourceLanguage', to: 'targetLanguage' });
      const notes: string[] = [];
      const lexicon = data.lexicon();
      let candidates: Candidate[];
      let promptTokens: number;
      if (req.mode === 'text') {
        const read =
          source === 'en' ? textCandidates(req.input) : await foreignTextCandidates(req.input, source);
        const distance = distanceFrom(req.difficulty);
        // words of the requested level first, then the nearest levels; frequent in the text, then common
        candidates = read.candidates.sort(
          (a, b) => distance(a.level) - distance(b.level) || b.count - a.count || a.rank - b.rank,
        );
        promptTokens = read.tokens;
        if (source !== 'en') {
          if (!data.dictionary(source, 'en'))
            notes.push(`No ${name(source)}–English dictionary is installed: no words could be found.`);
          notes.push(
            `Difficulty is not estimated for ${name(source)} (no frequency list): cards carry the level asked.`,
          );
        }
      } else {
        promptTokens = wordCount(req.input);
        if (!lexicon) {
          notes.push(
            'WordNet is not installed (Debian package wordnet-base): themes cannot be expanded offline.',
          );
          candidates = [];
        } else {
          let theme = req.input;
          // a theme given in another language is looked up in English first
          if (source !== 'en' && lexicon.themeWords(theme).length === 0) {
            const back = data.dictionary(source, 'en');
            const t = back ? translateWord(back, theme.toLowerCase(), 'noun', undefined) : undefined;
            if (t) theme = t.translation;
          }
          candidates = themeCandidates(lexicon, theme, req.difficulty);
          if (candidates.length === 0)
            notes.push(`"${req.input}" is not a theme WordNet knows (try a noun such as "food").`);
          if (source !== 'en') {
            // English theme words, shown in the source language: translate each en → source
            const forward = data.dictionary('en', source);
            if (!forward) notes.push(`No English–${name(source)} dictionary is installed.`);
            const out: Candidate[] = [];
            for (const c of candidates) {
              if (out.length >= req.count * 3) break;
              const t = forward
                ? await translateWordAnalysed(
                    data.morphology?.(source),
                    forward,
                    c.word,
                    wordClassOf(c.pos),
                    lexicon,
                    data.dictionary(source, 'en'),
                  )
                : undefined;
              if (t) out.push({ ...c, word: t.translation, english: c.word, sentence: undefined });
            }
            candidates = out;
          }
        }
      }
      // fill cards; when a translation is asked, words the dictionary knows come first
      const withTranslation: GeneratedCard[] = [];
      const without: GeneratedCard[] = [];
      const seenWords = new Set<string>();
      const pivoted: Array<{ word: string; via: string[] }> = [];
      for (const c of candidates.slice(0, req.count * 6)) {
        if (withTranslation.length >= req.count) break;
        if (seenWords.has(c.word.toLowerCase())) continue;
        seenWords.add(c.word.toLowerCase());
        const filled = await fillCard(c, req, target);
        (filled.translated || !target ? withTranslation : without).push(filled.card);
        if (filled.via) pivoted.push({ word: c.word, via: filled.via });
      }
      const cards = [...withTranslation, ...without].slice(0, req.count);
      const shownPivots = pivoted.filter((p) => cards.some((c) => c.word === p.word));
      if (target && shownPivots.length) notes.push(pivotNote(source, target, shownPivots));
      if (target && !data.dictionary(source, target))
        notes.push(
          `No ${name(source)}–${name(target)} dictionary is installed (Debian package dict-freedict-*).`,
        );
      if (!lexicon && source === 'en' && req.mode === 'text')
        notes.push('WordNet is not installed (Debian package wordnet-base): no definitions or synonyms.');

      const unavailable: string[] = [];
      const missing = (field: string, test: (c: GeneratedCard) => boolean) => {
        if (cards.some(test)) unavailable.push(field);
      };
      if (target) missing('translation', (c) => c.translation === null);
      missing('definition', (c) => c.definition === null);
      if (req.includeExamples) missing('example', (c) => c.example === null);
      if (req.includeExamples && target) {
        missing('exampleTranslation', (c) => c.exampleTranslation === null);
        if (unavailable.includes('exampleTranslation'))
          notes.push(
            'exampleTranslation is given only with a dictionary example (phrase and its printed translation); other examples are not translated.',
          );
      }
      if (req.includeSynonyms) missing('synonyms', (c) => c.synonyms.length === 0);
      // "tokens" offline are word tokens: what was read and what was written
      const completionTokens = cards.reduce(
        (n, c) =>
          n +
          wordCount(c.word) +
          wordCount(c.translation) +
          wordCount(c.partOfSpeech) +
          wordCount(c.pronunciation) +
          wordCount(c.definition) +
          wordCount(c.example) +
          wordCount(c.exampleTranslation) +
          c.synonyms.reduce((k, s) => k + wordCount(s), 0),
        0,
      );
      return {
        cards,
        usage: { promptTokens, completionTokens, totalTokens: promptTokens + completionTokens },
        unavailable,
        notes,
      };
    },

    analyzeSentence: ({ sentence, language }) => analyseSentenceLocally(data, sentence, language),

    async lookupWord({ word, context, language, targetLanguage }) {
      const target =
        targetLanguage === language ? undefined : (targetLanguage ?? (language === 'en' ? undefined : 'en'));
      assertSupportedPair(language, target, { from: 'language', to: 'targetLanguage' });
      const normal = word.trim().toLowerCase();
      const lexicon = data.lexicon();
      const notes: string[] = [];
      const unavailable: string[] = [];
      if (language !== 'en') {
        const dictionary = data.dictionary(language, 'en');
        // the forms as given ("Kinder") and as typed in lower case: the analyser decides
        const readings = (await data.morphology?.(language)?.analyse([word.trim()]))?.get(word.trim()) ?? [];
        const bases = readings.map((r) => r.lemma);
        if (!data.morphology?.(language))
          notes.push(`No ${name(language)} analyser is installed: inflected words are looked up as written.`);
        const found = dictionary
          ? translateWord(dictionary, normal, undefined, lexicon, data.dictionary('en', language), bases)
          : undefined;
        const entry = found?.entry;
        if (!dictionary) notes.push(`No ${name(language)}–English dictionary is installed.`);
        if (entry?.via) notes.push(pivotNote(language, 'en', [{ word: normal, via: entry.via }]));
        const mark = entry?.partOfSpeech;
        const pos =
          { n: 'noun', v: 'verb', vt: 'verb', vi: 'verb', adj: 'adjective', adv: 'adverb' }[mark ?? ''] ??
          readings.find((r) => r.partOfSpeech !== 'other' && r.lemma === entry?.headword)?.partOfSpeech;
        if (!entry) unavailable.push('translation');
        unavailable.push('definition', 'cefrLevel', 'frequencyRank');
        return {
          word: normal,
          lemma: entry?.headword ?? bases[0] ?? normal,
          partOfSpeech: pos ?? mark ?? 'other',
          pronunciation: entry?.pronunciation ?? null,
          cefrLevel: null,
          frequencyRank: null,
          forms: [normal],
          definition: null,
          translation: found?.translation ?? null,
          examples: [...(context ? [context] : []), ...(entry?.examples.map((e) => e.source) ?? [])].slice(
            0,
            5,
          ),
          unavailable,
          notes,
        };
      }
      let pos: PartOfSpeech = partOfSpeech(tagsOfWord(normal));
      const base = lemma(normal, pos);
      const p = profileWord(normal, pos);
      let sense = lexicon ? englishSense(lexicon, normal, wordClassOf(pos)) : undefined;
      let translation: string | null = null;
      if (target) {
        const dictionary = data.dictionary('en', target);
        if (!dictionary) notes.push(`No English–${name(target)} dictionary is installed.`);
        const reverse = data.dictionary(target, 'en');
        const found = dictionary
          ? await translateWordAnalysed(
              data.morphology?.(target),
              dictionary,
              normal,
              wordClassOf(pos),
              lexicon,
              reverse,
            )
          : undefined;
        translation = found?.translation ?? null;
        // a lone word's class is the tagger's guess ("band": verb); when the dictionary has the word
        // only in another class, that is the meaning translated, so the definition follows it
        const cls = found && classOfEntry(found.entry);
        if (!context && cls && wordClassOf(pos) && cls !== wordClassOf(pos) && lexicon) {
          const other = englishSense(lexicon, normal, cls);
          if (other) {
            pos = cls;
            sense = other;
          }
        }
        if (found?.entry.via) notes.push(pivotNote('en', target, [{ word: normal, via: found.entry.via }]));
        if (translation === null) unavailable.push('translation');
      }
      if (!sense) unavailable.push('definition');
      if (!lexicon) notes.push('WordNet is not installed (Debian package wordnet-base).');
      return {
        word: normal,
        lemma: sense?.lemma ?? base,
        partOfSpeech: wordClassOf(pos) ? pos : (sense?.sense.partOfSpeech ?? pos),
        pronunciation: ipa(normal) ?? ipa(base) ?? null,
        cefrLevel: p.cefrLevel,
        frequencyRank: p.rank ?? null,
        forms: inflections(normal),
        definition: sense?.sense.definition ?? null,
        translation,
        examples: [...(context ? [context] : []), ...(sense?.example ? [sense.example] : [])],
        unavailable,
        notes,
      };
    },

    async describeImage({ word, context }) {
      // A fixed template, labelled as such: no model writes it.
      const article = startsWithVowelSound(word.trim()) ? 'an' : 'a';
      const scene = context ? ` in the scene: "${context.trim()}"` : '';
      return {
        description: `A simple, friendly flat-colour illustration of ${article} ${word.trim()}${scene}. Clear shapes, plain background, no text.`,
        source: 'template',
      };
    },

    async renderImage({ description }) {
      return renderIllustration(description);
    },
  };
}
