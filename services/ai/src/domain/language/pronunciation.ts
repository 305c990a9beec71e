import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

/**
 * The CMU Pronouncing Dictionary (135k ARPAbet entries, `cmu-pronouncing-dictionary`). The package
 * is an ES module that is one object literal; it is read as data (JSON after the `export`) so it
 * loads the same way under node and under jest's CommonJS module system.
 */
let dictionary: Record<string, string> | undefined;

function loadDictionary(): Record<string, string> {
  const require = createRequire(__filename);
  const source = readFileSync(require.resolve('cmu-pronouncing-dictionary'), 'utf8');
  const start = source.indexOf('{', source.indexOf('dictionary ='));
  return JSON.parse(source.slice(start)) as Record<string, string>;
}

/** ARPAbet phonemes of the word's first pronunciation, or undefined when the word is unknown. */
export function arpabet(word: string): string[] | undefined {
  dictionary ??= loadDictionary();
  const entry = dictionary[word.toLowerCase()];
  return entry === undefined ? undefined : entry.split(' ');
}

const IPA: Record<string, string> = {
  AA: 'ɑ',
  AE: 'æ',
  AH: 'ʌ',
  AO: 'ɔ',
  AW: 'aʊ',
  AY: 'aɪ',
  B: 'b',
  CH: 'tʃ',
  D: 'd',
  DH: 'ð',
  EH: 'ɛ',
  ER: 'ɝ',
  EY: 'eɪ',
  F: 'f',
  G: 'ɡ',
  HH: 'h',
  IH: 'ɪ',
  IY: 'i',
  JH: 'dʒ',
  K: 'k',
  L: 'l',
  M: 'm',
  N: 'n',
  NG: 'ŋ',
  OW: 'oʊ',
  OY: 'ɔɪ',
  P: 'p',
  R: 'ɹ',
  S: 's',
  SH: 'ʃ',
  T: 't',
  TH: 'θ',
  UH: 'ʊ',
  UW: 'u',
  V: 'v',
  W: 'w',
  Y: 'j',
  Z: 'z',
  ZH: 'ʒ',
};

/** Broad IPA transcription (General American) with primary/secondary stress marks, e.g. /ˈwɔtɝ/. */
export function ipa(word: string): string | undefined {
  const phones = arpabet(word);
  if (!phones) return undefined;
  let out = '';
  for (const phone of phones) {
    const base = phone.replace(/\d$/, '');
    const stress = phone.at(-1);
    // An unstressed AH is the schwa.
    const sound = base === 'AH' && stress === '0' ? 'ə' : (IPA[base] ?? base.toLowerCase());
    // Stress is marked before the vowel here (not the syllable onset): simple and unambiguous.
    out += (stress === '1' ? 'ˈ' : stress === '2' ? 'ˌ' : '') + sound;
  }
  return `/${out}/`;
}

/** Syllables: vowels in the dictionary entry, else an orthographic estimate (vowel groups). */
export function syllableCount(word: string): number {
  const phones = arpabet(word);
  if (phones) return Math.max(1, phones.filter((p) => /\d$/.test(p)).length);
  const groups = word
    .toLowerCase()
    .replace(/[^a-z]/g, '')
    .replace(/e$/, '')
    .match(/[aeiouy]+/g);
  return Math.max(1, groups?.length ?? 1);
}

/** True when the word starts with a vowel sound (for a/an), by its pronunciation when known. */
export function startsWithVowelSound(word: string): boolean {
  const phones = arpabet(word);
  if (phones?.[0]) return /\d$/.test(phones[0]);
  return /^[aeiou]/i.test(word);
}
