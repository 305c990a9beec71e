import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BilingualDictionary, DictionaryEntry } from '../domain/language/language-data';
import { type DictText, openDictText } from './dictzip.reader';
import { type Incremental, incremental } from './incremental';
import { sortedLines } from './sorted-lines';

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const B64_VALUE = new Map([...B64].map((c, i) => [c, i]));

/** dictd's index numbers: base64 digits, most significant first ("BAK3S" → 1 092 498). */
export function decodeDictdNumber(digits: string): number {
  let n = 0;
  for (const c of digits) {
    const v = B64_VALUE.get(c);
    if (v === undefined) throw new Error(`not a dictd base64 number: ${digits}`);
    n = n * 64 + v;
  }
  return n;
}

/** dictd's sort key: lower case, letters, digits and spaces only (its `-df` dictionary order). */
export const dictdSortKey = (headword: string) => headword.toLowerCase().replace(/[^\p{L}\p{N}\s]/gu, '');

const headwordOf = (line: string) => line.slice(0, line.indexOf('\t'));

/**
 * A dictd `.index`: one `headword<TAB>offset<TAB>length` line per entry, sorted by dictdSortKey.
 * Searched in place (see sortedLines); `find` gives the (offset, length) of each entry of a headword,
 * case-insensitively, in file order. dictd's meta entries (`00-database-…`) are left out.
 */
export function dictdIndex(buf: Buffer) {
  const lines = sortedLines(
    buf,
    (line) => dictdSortKey(headwordOf(line)),
    (line) => line.indexOf('\t') < 0 || /^00-?database/.test(line),
  );
  const place = (line: string): [number, number] => {
    const [, offset, length] = line.split('\t');
    return [decodeDictdNumber(offset!), decodeDictdNumber(length!.trim())];
  };
  return {
    build: lines.build,
    get lineCount() {
      return lines.lineCount;
    },
    /** every entry's (offset, length) */
    all(): Array<[number, number]> {
      const out: Array<[number, number]> = [];
      lines.forEach((line) => out.push(place(line)));
      return out;
    },
    find(headword: string): Array<[number, number]> {
      const wanted = headword.trim().toLowerCase();
      return lines
        .find(dictdSortKey(wanted))
        .filter((line) => headwordOf(line).trim().toLowerCase() === wanted)
        .map(place);
    },
  };
}

/** Parsed headwords kept per dictionary. */
const CACHED_HEADWORDS = 2_000;

const POS_MARKS = new Set([
  'n',
  'v',
  'vt',
  'vi',
  'adj',
  'adv',
  'prep',
  'pron',
  'conj',
  'art',
  'num',
  'int',
  'interj',
  'abbr',
  'pn',
  'ptcl',
]);
const EXAMPLE = /^\s+"(.+)"\s+-\s+(.+)$/;
const LABEL = /\[([^\]]+)\]/g;
const GRAMMAR = /<[^>]*>/g;

/** Some dictionaries (Dutch–English) end words with a stray hyphen ("huis‐"): not part of the word. */
const trimDashes = (s: string) => s.trim().replace(/^[\u2010-]+|[\u2010-]+$/g, '');

/** Splits on commas outside parentheses ("a (b, c), d" → "a (b, c)", "d"). */
function splitTranslations(line: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let current = '';
  for (const ch of line) {
    if (ch === '(' || ch === '[') depth++;
    else if (ch === ')' || ch === ']') depth = Math.max(0, depth - 1);
    if ((ch === ',' || ch === ';') && depth === 0) {
      out.push(current);
      current = '';
    } else current += ch;
  }
  out.push(current);
  return out.map((s) => trimDashes(s.replace(/\s+/g, ' '))).filter(Boolean);
}

/**
 * One FreeDict entry as dictd serves it (the TEI → dictd layout): a head line (headword, /IPA/,
 * optional inflected forms in parentheses, `<pos>`), then translation lines (possibly numbered
 * senses, `<gender>` marks, `[subject]` labels), example lines (`"phrase"  - translation`) and
 * cross references (`see:`, `Synonym:`, `Note:`), which are not translations.
 */
export function parseFreedictEntry(text: string): DictionaryEntry {
  const lines = text.split('\n');
  const head = lines[0] ?? '';
  const headword = trimDashes(head.split(/\s+\/|\s+</)[0]!);
  // the last <…> of the head line (after any inflected forms) is the entry's part of speech
  const headMarks = [...head.replace(/\([^)]*\)/g, '').matchAll(/<([^>]*)>/g)].map((m) => m[1]!.trim());
  const marks = (headMarks.at(-1) ?? '').split(',').map((m) => m.trim());
  // "<neut, n, sg>": gender and number come with the part of speech; pick the latter
  const partOfSpeech = marks.find((m) => POS_MARKS.has(m)) ?? (marks[0] || undefined);
  const pronunciation = /\/([^/]+)\//.exec(head.split('(')[0]!)?.[1];
  const translations: string[] = [];
  const examples: DictionaryEntry['examples'] = [];
  const labels = new Set<string>();
  for (const raw of lines.slice(1)) {
    if (!raw.trim()) continue;
    const example = EXAMPLE.exec(raw);
    if (example) {
      examples.push({ source: example[1]!.trim(), target: example[2]!.trim() });
      continue;
    }
    if (/^\s*(see:|Synonyms?:|Antonyms?:|Note:|Notes?:)/i.test(raw)) continue;
    // translation lines start at the margin (at most one space before a leading [label])
    if (/^\s{2,}/.test(raw)) continue;
    let line = raw.trim().replace(/^\d+\.\s*/, '');
    for (const m of line.matchAll(LABEL)) labels.add(m[1]!.trim());
    line = line.replace(LABEL, ' ').replace(GRAMMAR, ' ');
    translations.push(...splitTranslations(line));
  }
  return { headword, partOfSpeech, pronunciation, translations, examples, labels: [...labels] };
}

/** A dictd dictionary as the readers here give it: look-ups, plus what the warm-up and inversion need. */
export type DictdDictionary = BilingualDictionary & {
  files: { index: string; text: string };
  installed(): boolean;
  load(): void;
  /** one slice of reading the index (a background warm-up); true when it is read */
  warmUpStep(): boolean;
  /** the place of every entry in the text, in headword order (for reading a dictionary backwards) */
  places(): Array<[number, number]>;
  /** the entry at a place `places` gave */
  entryAt(place: [number, number]): DictionaryEntry;
  /** every entry at that place (Mueller's: one per part of speech) */
  entriesAt(place: [number, number]): DictionaryEntry[];
};

/**
 * A FreeDict dictionary installed by Debian's `dict-freedict-<from>-<to>` package:
 * `<dir>/freedict-<from>-<to>.index` and `.dict.dz`.
 */
export function freedictDictionary(
  dir: string,
  from3: string,
  to3: string,
  codes: { from: string; to: string },
): DictdDictionary {
  return dictdDictionary(join(dir, `freedict-${from3}-${to3}`), codes, parseFreedictEntry);
}

/**
 * Any dictd dictionary, `<base>.index` + `<base>.dict.dz` (or `.dict`), whose entries `parse` reads.
 * The index is read on the first look-up and searched in place (the English–German ones have
 * ~500 000 lines, 11–13 MB); the text is read by dictzip chunk on demand.
 */
export function dictdDictionary(
  base: string,
  codes: { from: string; to: string },
  parse: (text: string) => DictionaryEntry[] | DictionaryEntry,
): DictdDictionary {
  const files = {
    index: `${base}.index`,
    text: existsSync(`${base}.dict.dz`) ? `${base}.dict.dz` : `${base}.dict`,
  };
  let index: ReturnType<typeof dictdIndex> | undefined;
  let body: DictText | undefined;
  const recent = new Map<string, DictionaryEntry[]>();
  const load = () => {
    if (index) return;
    body = openDictText(files.text);
    index = dictdIndex(readFileSync(files.index));
  };
  const entriesAt = (offset: number, length: number) => [parse(body!.read(offset, length))].flat();
  return {
    from: codes.from,
    to: codes.to,
    files,
    installed: () => existsSync(files.index) && existsSync(files.text),
    load,
    warmUpStep() {
      load();
      return index!.build.step();
    },
    places() {
      load();
      return index!.all();
    },
    entryAt([offset, length]) {
      load();
      return entriesAt(offset, length)[0]!;
    },
    entriesAt([offset, length]) {
      load();
      return entriesAt(offset, length);
    },
    lookup(headword) {
      load();
      const key = headword.trim().toLowerCase();
      const hit = recent.get(key);
      if (hit) {
        // most recently used last, so the cache drops the least recently used
        recent.delete(key);
        recent.set(key, hit);
        return hit;
      }
      const entries = index!.find(key).flatMap(([offset, length]) => entriesAt(offset, length));
      // a cache of parsed entries: common words ("run": 38 entries) recur in every text
      if (recent.size >= CACHED_HEADWORDS) recent.delete(recent.keys().next().value!);
      recent.set(key, entries);
      return entries;
    },
  };
}

/** The headword a translation gives when read backwards: "(to) go (by car)" → "go". */
const backwardsKey = (translation: string) =>
  translation
    .replace(/\([^)]*\)/g, ' ')
    .replace(/^to\s+/i, '')
    .replace(/\s+/g, ' ')
    .trim()
    .toLowerCase();

/**
 * A dictionary read backwards: every translation of a `to → from` dictionary becomes a headword
 * whose translation is the original headword, with the original examples turned round. Used where
 * Debian's `from → to` dictionary is small (English–Dutch has 7 700 headwords, Dutch–English 22 700).
 * Only the places of the entries are kept per key; entries are parsed again when asked for.
 */
export function invertedDictionary(source: {
  from: string;
  to: string;
  places(): Array<[number, number]>;
  entryAt(place: [number, number]): DictionaryEntry;
  entriesAt?(place: [number, number]): DictionaryEntry[];
}): BilingualDictionary & { build: Incremental<Map<string, number[]>> } {
  const entriesAt = (place: [number, number]) => source.entriesAt?.(place) ?? [source.entryAt(place)];
  // read in slices of entries (a background warm-up), or at once on the first look-up
  const build = incremental(function* () {
    // translation → (offset, length, entry of the place, place of the translation in it) per entry
    const map = new Map<string, number[]>();
    let inSlice = 0;
    for (const [offset, length] of source.places()) {
      entriesAt([offset, length]).forEach((e, block) => {
        const keys = [...new Set(e.translations.map(backwardsKey))];
        keys.forEach((t, position) => {
          if (!t || !e.headword) return;
          const list = map.get(t);
          if (list) list.push(offset, length, block, position);
          else map.set(t, [offset, length, block, position]);
        });
      });
      if (++inSlice === 2_000) {
        inSlice = 0;
        yield;
      }
    }
    return map;
  });
  return {
    from: source.to,
    to: source.from,
    build,
    lookup(headword) {
      const key = headword.trim().toLowerCase();
      const list = build.result().get(key) ?? [];
      const found: Array<{ entry: DictionaryEntry; position: number }> = [];
      for (let i = 0; i < list.length; i += 4) {
        const e = entriesAt([list[i]!, list[i + 1]!])[list[i + 2]!]!;
        found.push({
          position: list[i + 3]!,
          entry: {
            headword: key,
            partOfSpeech: e.partOfSpeech,
            pronunciation: undefined,
            translations: [e.headword],
            examples: e.examples.map((x) => ({ source: x.target, target: x.source })),
            labels: e.labels,
          },
        });
      }
      // an entry that gives the word as its first translation means it most ("собака" is dog's first
      // Russian word, hound's third): those first (a stable sort keeps the dictionary's order)
      return found.sort((a, b) => Math.min(a.position, 2) - Math.min(b.position, 2)).map((f) => f.entry);
    },
  };
}
