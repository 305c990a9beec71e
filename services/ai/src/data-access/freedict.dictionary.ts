import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BilingualDictionary, DictionaryEntry } from '../domain/language/language-data';
import { type DictText, openDictText } from './dictzip.reader';

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

/**
 * Reads a dictd `.index` (one `headword<TAB>offset<TAB>length` line per entry) into a map from the
 * lower-cased headword to its (offset, length) pairs, in file order. dictd's own meta entries
 * (`00-database-…`) are left out.
 */
export function readDictdIndex(text: string): Map<string, number[]> {
  const index = new Map<string, number[]>();
  let start = 0;
  while (start < text.length) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    const t1 = text.indexOf('\t', start);
    const t2 = t1 < 0 ? -1 : text.indexOf('\t', t1 + 1);
    if (t1 > start && t2 > t1 && t2 < end) {
      const headword = text.slice(start, t1).trim().toLowerCase();
      if (headword && !headword.startsWith('00-database') && !headword.startsWith('00database')) {
        const entry = [
          decodeDictdNumber(text.slice(t1 + 1, t2)),
          decodeDictdNumber(text.slice(t2 + 1, end).trim()),
        ];
        const seen = index.get(headword);
        if (seen) seen.push(...entry);
        else index.set(headword, entry);
      }
    }
    start = end + 1;
  }
  return index;
}

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
  return out.map((s) => s.replace(/\s+/g, ' ').trim()).filter(Boolean);
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
  const headword = head.split(/\s+\/|\s+</)[0]!.trim();
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

/**
 * A FreeDict dictionary installed by Debian's `dict-freedict-<from>-<to>` package:
 * `<dir>/freedict-<from>-<to>.index` and `.dict.dz`. The index is read on the first look-up
 * (the English–German ones have ~500 000 lines: ~0.5 s and tens of MB), the text on demand.
 */
export function freedictDictionary(
  dir: string,
  from3: string,
  to3: string,
  codes: { from: string; to: string },
): BilingualDictionary & { files: { index: string; text: string }; installed(): boolean; load(): void } {
  const base = join(dir, `freedict-${from3}-${to3}`);
  const files = {
    index: `${base}.index`,
    text: existsSync(`${base}.dict.dz`) ? `${base}.dict.dz` : `${base}.dict`,
  };
  let index: Map<string, number[]> | undefined;
  let body: DictText | undefined;
  const load = () => {
    if (index) return;
    const text = readFileSync(files.index, 'utf8');
    body = openDictText(files.text);
    index = readDictdIndex(text);
  };
  return {
    from: codes.from,
    to: codes.to,
    files,
    installed: () => existsSync(files.index) && existsSync(files.text),
    load,
    lookup(headword) {
      load();
      const places = index!.get(headword.trim().toLowerCase());
      if (!places) return [];
      const entries: DictionaryEntry[] = [];
      for (let i = 0; i < places.length; i += 2)
        entries.push(parseFreedictEntry(body!.read(places[i]!, places[i + 1]!)));
      return entries;
    },
  };
}
