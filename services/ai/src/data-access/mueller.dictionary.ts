import { join } from 'node:path';
import type { DictionaryEntry, DictionaryExample } from '../domain/language/language-data';
import { type DictdDictionary, dictdDictionary } from './freedict.dictionary';

/** Mueller's part-of-speech marks, as the FreeDict marks word-facts knows. */
const POS: Record<string, string> = {
  n: 'n',
  v: 'v',
  a: 'adj',
  adv: 'adv',
  prep: 'prep',
  pron: 'pron',
  cj: 'conj',
  conj: 'conj',
  int: 'int',
  interj: 'int',
  num: 'num',
};

const CYRILLIC = /\p{Script=Cyrillic}/u;
const LATIN = /[A-Za-z]/;

/** Index of the first character outside parentheses that matches `re`, or -1. */
function firstOutsideParens(text: string, re: RegExp): number {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (ch === '(') depth++;
    else if (ch === ')') depth = Math.max(0, depth - 1);
    else if (depth === 0 && re.test(ch)) return i;
  }
  return -1;
}

/** Splits on a separator outside parentheses. */
function splitOutside(text: string, separator: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let current = '';
  for (const ch of text) {
    if (ch === '(') depth++;
    else if (ch === ')') depth = Math.max(0, depth - 1);
    if (ch === separator && depth === 0) {
      out.push(current);
      current = '';
    } else current += ch;
  }
  out.push(current);
  return out.map((s) => s.trim()).filter(Boolean);
}

/** "_ам. _разг. " → "ам.", "разг." (as FreeDict writes labels, with the dot) */
function labelsOf(marks: string, into: Set<string> | string[]) {
  for (const m of marks.matchAll(/_([^\s.]+)\./g))
    if (!POS[m[1]!] && m[1] !== 'attr') {
      if (Array.isArray(into)) into.push(`${m[1]}.`);
      else into.add(`${m[1]}.`);
    }
}

interface Block {
  partOfSpeech: string | undefined;
  labels: Set<string>;
  senses: string[];
}

/**
 * One entry of the Mueller English–Russian dictionary (Debian `mueller7-dict`, dictd format). Layout:
 * the headword line; then `[IPA] _pos.`, or homographs (`_I`, `_II`) and numbered part-of-speech
 * blocks (`1. _n.`, `2. _v.`), each with numbered senses (`1)`, sub-senses `а)`) wrapped over lines.
 * A sense is `;`-separated: Russian translations (`,`-separated), and English phrases followed by
 * their Russian translation (the dictionary's examples). `_разг.`-style marks are labels. An entry
 * that only refers to another (`went: _p. от go`) gives no translation.
 * One DictionaryEntry per part-of-speech block, its senses' translations in the dictionary's order.
 */
export function parseMuellerEntry(text: string): DictionaryEntry[] {
  const lines = text.split('\n');
  const headword = (lines[0] ?? '').trim();
  let pronunciation: string | undefined;
  const blocks: Block[] = [];
  let block: Block | undefined;
  const newBlock = (pos?: string) => {
    block = { partOfSpeech: pos, labels: new Set(), senses: [] };
    blocks.push(block);
    return block;
  };
  let homographLabels: string[] = [];
  for (const raw of lines.slice(1)) {
    let line = raw.trim();
    if (!line) continue;
    const homograph = /^_(I{1,3}V?|VI{0,3})(?=[\s[]|$)\s*/.exec(line);
    if (homograph) {
      line = line.slice(homograph[0].length);
      block = undefined;
      homographLabels = [];
    }
    const ipa = /^\[([^\]]*)\]\s*/.exec(line);
    if (ipa) {
      pronunciation ??= ipa[1]!.replace(/[↗]/g, 'ˈ');
      line = line.slice(ipa[0].length);
    }
    // "1. _n." opens a part-of-speech block; a bare "_n." after the IPA does too
    const posBlock = /^(?:\d+\.\s*)?_([a-z-]+)\.\s*/.exec(line);
    if (posBlock && (POS[posBlock[1]!] || /^\d+\./.test(line))) {
      line = line.slice(posBlock[0].length);
      newBlock(POS[posBlock[1]!]);
    }
    // labels right after a homograph mark or IPA apply to the whole homograph ("_II [gaɪ] _мор.")
    if ((homograph || ipa) && !posBlock) {
      const marks = /^(_[^\s.]+\.\s*)+/.exec(line);
      if (marks) {
        homographLabels = [];
        labelsOf(marks[0], homographLabels);
        line = line.slice(marks[0].length);
      }
    }
    if (!line) continue;
    const sense = /^(?:\d+\)|\p{Script=Cyrillic}\))\s*/u.exec(line);
    const current = block ?? newBlock(undefined);
    if (current.senses.length === 0 && !current.labels.size)
      for (const l of homographLabels) current.labels.add(l);
    if (sense || current.senses.length === 0) current.senses.push(line.slice(sense?.[0].length ?? 0));
    else current.senses[current.senses.length - 1] += ` ${line}`;
  }
  return blocks.map((b) => {
    const translations: string[] = [];
    const examples: DictionaryExample[] = [];
    for (const [i, sense] of b.senses.entries()) {
      // the labels of the main (first) sense are the entry's: "_мор." for a nautical homograph
      if (i === 0) for (const m of sense.matchAll(/^(?:_([^\s.]+)\.\s*)+/g)) labelsOf(m[0], b.labels);
      const clean = sense
        .replace(/\{[^}]*\}/g, ' ') // "{см. тж. 1}": cross references
        .replace(/_[^\s.]+\./g, ' ')
        .replace(/-\s+(?=\p{Ll})/gu, '-') // a word hyphenated at a line end ("северо- восток")
        .replace(/\s+/g, ' ');
      for (const segment of splitOutside(clean, ';')) {
        const body = segment.replace(/^(\([^)]*\)\s*)+/, '').trim();
        const cyr = firstOutsideParens(body, CYRILLIC);
        if (cyr < 0) continue; // English only: a grammar note such as "(ran - run)"
        if (cyr === 0) {
          for (const t of splitOutside(body, ','))
            if (!LATIN.test(t.replace(/\([^)]*\)/g, ''))) translations.push(t); // not "от go 1"
          continue;
        }
        const source = body.slice(0, cyr).trim();
        const target = body.slice(cyr).trim();
        if (LATIN.test(source) && target) examples.push({ source, target });
      }
    }
    return {
      headword,
      partOfSpeech: b.partOfSpeech,
      pronunciation,
      translations,
      examples,
      labels: [...b.labels],
      // numbered senses, the main one first: "fish" is "рыба" before the colloquial "тип"
      sensesInOrder: true,
    };
  });
}

/**
 * The Mueller English–Russian dictionary (7th edition, ~46 000 headwords) as Debian's
 * `mueller7-dict` installs it: `<dir>/mueller7.index` and `.dict.dz`. Debian's FreeDict eng-rus has
 * 1 700 headwords and there is no rus-eng, so this is the English–Russian pair's main source.
 */
export function muellerDictionary(dir: string): DictdDictionary {
  return dictdDictionary(join(dir, 'mueller7'), { from: 'en', to: 'ru' }, parseMuellerEntry);
}
