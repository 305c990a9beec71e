import type { Morphology, Reading, WordClass } from '../domain/language/language-data';
import type { PartOfSpeech } from '../domain/language/nlp';
import { lineProcess } from './line-process';

/** Apertium's first tag of a reading, as a word class. */
const CLASS_OF_TAG: Record<string, WordClass> = {
  n: 'noun',
  vblex: 'verb',
  vbser: 'verb',
  vbhaver: 'verb',
  vbmod: 'verb',
  vaux: 'verb',
  adj: 'adjective',
  adv: 'adverb',
};

/** Apertium's first tag of a reading, as the API's part of speech (proper nouns `np` are nouns). */
const CATEGORY_OF_TAG: Record<string, PartOfSpeech> = {
  n: 'noun',
  np: 'noun',
  vblex: 'verb',
  vbser: 'verb',
  vbhaver: 'verb',
  vbmod: 'verb',
  vaux: 'verb',
  adj: 'adjective',
  adv: 'adverb',
  preadv: 'adverb',
  prn: 'pronoun',
  rel: 'pronoun',
  det: 'determiner',
  predet: 'determiner',
  pr: 'preposition',
  cnjcoo: 'conjunction',
  cnjsub: 'conjunction',
  cnjadv: 'conjunction',
  num: 'number',
  ij: 'interjection',
};

/** Characters the Apertium stream format reserves: escaped in the input. */
const RESERVED = /[\\[\]^$/@<>{}]/g;

/**
 * Parses lt-proc's output (`^surface/lemma<tag>…/lemma<tag>…$`, unknown words `^surface/*surface$`)
 * into readings per surface form. Homograph marks ("есть¹") and the parts of a joined reading after
 * the first ("de<pr>+le<det>") are dropped; a capital the word only has at a sentence start is not
 * the lemma's.
 */
export function parseLtProc(output: string): Map<string, Reading[]> {
  const readings = new Map<string, Reading[]>();
  for (const m of output.matchAll(/\^((?:\\.|[^$\\])*)\$/g)) {
    const parts = m[1]!.split(/(?<!\\)\//).map((p) => p.replace(/\\(.)/g, '$1'));
    const surface = parts[0]!;
    const found: Reading[] = [];
    for (const analysis of parts.slice(1)) {
      if (analysis.startsWith('*')) continue;
      const first = analysis.split('+')[0]!;
      const lemmaPart = /^[^<]*/
        .exec(first)![0]
        .replace(/[¹²³⁴⁵⁶⁷⁸⁹⁰]/g, '')
        .replace(/#/g, '');
      const tag = /<([^>]+)>/.exec(first)?.[1] ?? '';
      if (!lemmaPart) continue;
      const proper = tag === 'np';
      // "Los" → "El": the capital comes from the sentence, not the word
      const lemma =
        !proper && surface[0] !== surface[0]?.toLowerCase() && lemmaPart[0] !== lemmaPart[0]?.toLowerCase()
          ? lemmaPart[0]!.toLowerCase() + lemmaPart.slice(1)
          : lemmaPart;
      const reading: Reading = {
        // Apertium's placeholder lemma of personal pronouns ("prpers"): the word is its own entry
        lemma: /^prpers$/i.test(lemma) ? surface.toLowerCase() : lemma,
        partOfSpeech: CLASS_OF_TAG[tag] ?? 'other',
        category: CATEGORY_OF_TAG[tag] ?? 'other',
        ...(proper && { proper }),
      };
      if (!found.some((r) => r.lemma === reading.lemma && r.partOfSpeech === reading.partOfSpeech))
        found.push(reading);
    }
    readings.set(surface, found);
  }
  return readings;
}

export interface ApertiumOptions {
  language: string;
  /** the compiled analyser, `<pair>.automorf.bin` */
  automaton: string;
  /** the lt-proc binary */
  ltProc?: string;
  /** one batch may take this long before the process is restarted and the batch answered empty */
  timeoutMs?: number;
  /** batches waiting beyond this are answered empty at once (the analyser is behind) */
  maxQueue?: number;
  onError?: (err: Error) => void;
}

/**
 * A morphological analyser on Apertium's compiled automata, run by one long-lived `lt-proc -z`
 * (null-flush mode: each batch ends with a NUL and is answered with one), started on first use.
 * Batches go one at a time through a bounded queue; a batch that times out restarts the process.
 * An analyser that cannot run answers every word with no readings: the caller degrades, never fails.
 */
export function apertiumAnalyser(options: ApertiumOptions): Morphology & { stop(): void } {
  const process = lineProcess({
    command: options.ltProc ?? 'lt-proc',
    args: ['-z', options.automaton],
    encode: (input) => `${input}\0`,
    answerEnd: (buffer) => {
      const end = buffer.indexOf('\0');
      return end < 0 ? -1 : end + 1;
    },
    ...(options.timeoutMs !== undefined && { timeoutMs: options.timeoutMs }),
    ...(options.maxQueue !== undefined && { maxQueue: options.maxQueue }),
    ...(options.onError && { onError: options.onError }),
  });
  return {
    language: options.language,
    async analyse(words) {
      const result = new Map<string, Reading[]>();
      const distinct = [...new Set(words.filter((w) => w.trim()))];
      if (!distinct.length) return result;
      // one word a line: lt-proc analyses each on its own (NULs and reserved characters escaped)
      const out = await process.run(
        distinct.map((w) => w.replace(/\0/g, '').replace(/\n/g, ' ').replace(RESERVED, '\\$&')).join('\n'),
      );
      const parsed = out === undefined ? new Map<string, Reading[]>() : parseLtProc(out);
      for (const w of distinct) result.set(w, parsed.get(w) ?? []);
      return result;
    },
    stop: () => process.stop(),
  };
}
