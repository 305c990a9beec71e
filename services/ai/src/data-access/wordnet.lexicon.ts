import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Lexicon, Sense, WordClass } from '../domain/language/language-data';
import { sortedLines } from './sorted-lines';

/** WordNet's file suffixes and one-letter synset types per word class. */
const FILES: Record<WordClass, string> = { noun: 'noun', verb: 'verb', adjective: 'adj', adverb: 'adv' };
const CLASS_OF_TYPE: Record<string, WordClass> = {
  n: 'noun',
  v: 'verb',
  a: 'adjective',
  s: 'adjective',
  r: 'adverb',
};
const CLASSES: WordClass[] = ['noun', 'verb', 'adjective', 'adverb'];

/** The 45 lexicographer files, by number (WordNet 3.0's `lexnames`, which wordnet-base does not ship). */
const LEXNAMES = [
  'adj.all', 'adj.pert', 'adv.all', 'noun.Tops', 'noun.act', 'noun.animal', 'noun.artifact', 'noun.attribute',
  'noun.body', 'noun.cognition', 'noun.communication', 'noun.event', 'noun.feeling', 'noun.food', 'noun.group',
  'noun.location', 'noun.motive', 'noun.object', 'noun.person', 'noun.phenomenon', 'noun.plant',
  'noun.possession', 'noun.process', 'noun.quantity', 'noun.relation', 'noun.shape', 'noun.state',
  'noun.substance', 'noun.time', 'verb.body', 'verb.change', 'verb.cognition', 'verb.communication',
  'verb.competition', 'verb.consumption', 'verb.contact', 'verb.creation', 'verb.emotion', 'verb.motion',
  'verb.perception', 'verb.possession', 'verb.social', 'verb.stative', 'verb.weather', 'adj.ppl',
]; // prettier-ignore

/** WordNet's detachment rules (morphy): suffix → replacement, tried when no exception applies. */
const SUFFIXES: Record<WordClass, Array<[string, string]>> = {
  noun: [['s', ''], ['ses', 's'], ['xes', 'x'], ['zes', 'z'], ['ches', 'ch'], ['shes', 'sh'], ['men', 'man'], ['ies', 'y']],
  verb: [['s', ''], ['ies', 'y'], ['es', 'e'], ['es', ''], ['ed', 'e'], ['ed', ''], ['ing', 'e'], ['ing', '']],
  adjective: [['er', ''], ['est', ''], ['er', 'e'], ['est', 'e']],
  adverb: [],
}; // prettier-ignore

export interface Pointer {
  symbol: string;
  offset: number;
  type: string;
}

export interface Synset {
  offset: number;
  lexname: string;
  type: string;
  words: string[];
  pointers: Pointer[];
  definition: string;
  examples: string[];
}

/**
 * One line of a `data.<pos>` file: `offset lex_filenum ss_type w_cnt word lex_id … p_cnt
 * (symbol offset pos source/target)… [frames] | gloss`. Counts are hex for words, decimal for pointers.
 * Words keep WordNet's underscores replaced by spaces and lose adjective markers such as `(a)`.
 */
export function parseSynsetLine(line: string): Synset {
  const bar = line.indexOf(' | ');
  const fields = (bar < 0 ? line : line.slice(0, bar)).trim().split(' ');
  const gloss = bar < 0 ? '' : line.slice(bar + 3).trim();
  let i = 0;
  const offset = Number(fields[i++]);
  const lexname = LEXNAMES[Number(fields[i++])] ?? 'unknown';
  const type = fields[i++]!;
  const wordCount = parseInt(fields[i++]!, 16);
  const words: string[] = [];
  for (let w = 0; w < wordCount; w++) {
    words.push(fields[i]!.replace(/\([a-z]+\)$/, '').replace(/_/g, ' '));
    i += 2;
  }
  const pointerCount = Number(fields[i++]);
  const pointers: Pointer[] = [];
  for (let p = 0; p < pointerCount; p++) {
    pointers.push({ symbol: fields[i]!, offset: Number(fields[i + 1]), type: fields[i + 2]! });
    i += 4;
  }
  const examples = [...gloss.matchAll(/"([^"]+)"/g)].map((m) => m[1]!.trim()).filter(Boolean);
  const definition = gloss
    .replace(/"[^"]*"/g, '')
    .split(';')
    .map((s) => s.trim())
    .filter(Boolean)
    .join('; ');
  return { offset, lexname, type, words, pointers, definition, examples };
}

/** A `index.<pos>` line: `lemma pos synset_cnt p_cnt [ptr…] sense_cnt tagsense_cnt offset…`. */
export function parseIndexLine(line: string): { lemma: string; offsets: number[] } | undefined {
  if (line.startsWith(' ') || !line.trim()) return undefined;
  const f = line.trim().split(' ');
  const synsetCount = Number(f[2]);
  return { lemma: f[0]!, offsets: f.slice(f.length - synsetCount).map(Number) };
}

/** What the theme walk follows: hyponyms, part meronyms, members of a topic domain. */
const THEME_POINTERS = new Set(['~', '%p', '-c']);

/**
 * Princeton WordNet 3.0 as Debian's `wordnet-base` installs it (`index.*`, `data.*`, `*.exc` in
 * /usr/share/wordnet). Loaded whole on first use (the four data files are 21 MB and stay as buffers;
 * the indexes become one map), then every look-up is in memory.
 */
export function wordnetLexicon(dir: string): Lexicon & {
  installed(): boolean;
  load(): void;
  /** one slice of reading the indexes (a background warm-up); true when they are read */
  warmUpStep(): boolean;
  dir: string;
} {
  type Loaded = {
    index: Record<WordClass, ReturnType<typeof sortedLines>>;
    data: Record<WordClass, Buffer>;
    exceptions: Record<WordClass, Map<string, string[]>>;
    synsets: Map<string, Synset>;
  };
  let loaded: Loaded | undefined;

  const load = (): Loaded => {
    if (loaded) return loaded;
    const index = {} as Loaded['index'];
    const data = {} as Loaded['data'];
    const exceptions = {} as Loaded['exceptions'];
    for (const pos of CLASSES) {
      const file = FILES[pos];
      // sorted by lemma: searched in place; the licence header lines start with a space
      index[pos] = sortedLines(
        readFileSync(join(dir, `index.${file}`)),
        (line) => line.slice(0, line.indexOf(' ')),
        (line) => line.startsWith(' '),
      );
      data[pos] = readFileSync(join(dir, `data.${file}`));
      const exc = new Map<string, string[]>();
      const excFile = join(dir, `${file}.exc`);
      if (existsSync(excFile))
        for (const line of readFileSync(excFile, 'utf8').split('\n')) {
          const [inflected, ...bases] = line.trim().split(' ');
          if (inflected && bases.length) exc.set(inflected, bases);
        }
      exceptions[pos] = exc;
    }
    loaded = { index, data, exceptions, synsets: new Map() };
    return loaded;
  };

  const synset = (pos: WordClass, offset: number): Synset => {
    const l = load();
    const key = `${pos}:${offset}`;
    let s = l.synsets.get(key);
    if (!s) {
      const buf = l.data[pos];
      const end = buf.indexOf(10, offset);
      s = parseSynsetLine(buf.toString('utf8', offset, end < 0 ? buf.length : end));
      // theme walks touch thousands of synsets: keep the cache bounded (~10 MB)
      if (l.synsets.size >= 20_000) l.synsets.clear();
      l.synsets.set(key, s);
    }
    return s;
  };

  const offsetsOf = (pos: WordClass, lemma: string): number[] => {
    const line = load().index[pos].find(lemma)[0];
    return line ? (parseIndexLine(line)?.offsets ?? []) : [];
  };

  const key = (word: string) => word.trim().toLowerCase().replace(/\s+/g, '_');

  const baseFormsOf = (word: string, pos: WordClass): string[] => {
    const l = load();
    const w = key(word);
    const found: string[] = [];
    const add = (b: string) => {
      if (offsetsOf(pos, b).length > 0 && !found.includes(b)) found.push(b);
    };
    add(w);
    for (const b of l.exceptions[pos].get(w) ?? []) add(b);
    for (const [suffix, replacement] of SUFFIXES[pos])
      if (w.endsWith(suffix) && w.length > suffix.length) add(w.slice(0, -suffix.length) + replacement);
    return found.map((b) => b.replace(/_/g, ' '));
  };

  return {
    dir,
    installed: () =>
      CLASSES.every(
        (p) => existsSync(join(dir, `index.${FILES[p]}`)) && existsSync(join(dir, `data.${FILES[p]}`)),
      ),
    load: () => void load(),
    warmUpStep: () => {
      const l = load();
      // one slice of the first index not read yet
      return CLASSES.every((p) => l.index[p].build.step());
    },

    baseForms(word, pos) {
      const out: string[] = [];
      for (const p of pos ? [pos] : CLASSES)
        for (const b of baseFormsOf(word, p)) if (!out.includes(b)) out.push(b);
      return out;
    },

    senses(lemma, pos) {
      const w = key(lemma);
      const senses: Sense[] = [];
      for (const p of pos ? [pos] : CLASSES) {
        for (const offset of offsetsOf(p, w)) {
          const s = synset(p, offset);
          senses.push({
            partOfSpeech: CLASS_OF_TYPE[s.type] ?? p,
            definition: s.definition,
            examples: s.examples,
            synonyms: s.words.filter((x) => x.toLowerCase() !== w.replace(/_/g, ' ')),
            topic: s.lexname,
          });
        }
      }
      return senses;
    },

    themeWords(theme, loose = false) {
      load();
      const w = key(theme.replace(/^(the|a|an)\s+/i, ''));
      const out = new Set<string>();
      const seen = new Set<string>();
      const starts: Array<[WordClass, number]> = [];
      for (const p of ['noun', 'verb'] as const)
        for (const offset of offsetsOf(p, w).slice(0, 3)) starts.push([p, offset]);
      const walk = (from: Array<[WordClass, number]>) => {
        let frontier = from;
        for (let depth = 0; depth < 5 && frontier.length && out.size < 5_000; depth++) {
          const next: Array<[WordClass, number]> = [];
          for (const [p, offset] of frontier) {
            const id = `${p}:${offset}`;
            if (seen.has(id)) continue;
            seen.add(id);
            const s = synset(p, offset);
            if (depth > 0)
              for (const word of s.words) {
                // a word belongs to the theme when this is its first (most frequent) meaning:
                // "bread" under food, not "heart" or "jack" for some rare food sense
                const rank = /^[a-z][a-z-]*$/.test(word) ? offsetsOf(p, word).indexOf(offset) : -1;
                if (rank === 0 || (loose && rank > 0 && rank < 3)) out.add(word);
              }
            for (const ptr of s.pointers)
              if (THEME_POINTERS.has(ptr.symbol) && (ptr.type === 'n' || ptr.type === 'v'))
                next.push([CLASS_OF_TYPE[ptr.type]!, ptr.offset]);
          }
          frontier = next;
        }
      };
      walk(starts);
      // a state with nothing under it ("health": no hyponyms, parts or topic members) is themed by its
      // opposite's tree, which WordNet links as the antonym ("illness": disease, cold, fever, flu…)
      if (out.size < 30) {
        const opposites: Array<[WordClass, number]> = [];
        for (const [p, offset] of starts)
          for (const ptr of synset(p, offset).pointers)
            if (ptr.symbol === '!' && ptr.type === 'n') opposites.push(['noun', ptr.offset]);
        if (opposites.length) {
          for (const o of opposites) for (const word of synset(o[0], o[1]).words) out.add(word);
          walk(opposites);
        }
      }
      out.delete(w);
      return [...out];
    },
  };
}
