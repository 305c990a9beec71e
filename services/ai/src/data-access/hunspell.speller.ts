import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Speller } from '../domain/language/language-data';
import { lineProcess } from './line-process';

export interface HunspellSpellerOptions {
  language: string;
  /** the dictionary without its extension, `/usr/share/hunspell/de_DE` */
  dictionary: string;
  /** the hunspell binary */
  hunspell?: string;
  /** coreutils' stdbuf: `hunspell -l` buffers its output unless told otherwise */
  stdbuf?: string;
  timeoutMs?: number;
  maxQueue?: number;
  onError?: (err: Error) => void;
}

/**
 * Parses `hunspell -a` output (the ispell pipe protocol) for the words sent one a line: each line's
 * results (`*`, `+ root`, `-` correct; `& word n offset: a, b` and `# word offset` misspelled), then
 * an empty line. A line Hunspell splits into several words is misspelled if any part is.
 */
export function parseIspell(
  output: string,
  words: string[],
): Map<string, { correct: boolean; suggestions: string[] }> {
  const result = new Map<string, { correct: boolean; suggestions: string[] }>();
  const lines = output.split('\n').filter((l) => !l.startsWith('@(#)'));
  let i = 0;
  for (const word of words) {
    const check = { correct: true, suggestions: [] as string[] };
    for (; i < lines.length && lines[i] !== ''; i++) {
      const line = lines[i]!;
      if (line.startsWith('&')) {
        check.correct = false;
        const list = line.slice(line.indexOf(':') + 1);
        check.suggestions.push(
          ...list
            .split(', ')
            .map((s) => s.trim())
            .filter(Boolean),
        );
      } else if (line.startsWith('#')) check.correct = false;
    }
    i++;
    result.set(word, check);
  }
  return result;
}

/** Lines of the protocol's answer to `count` input lines: one empty line closes each. */
function answerEnd(buffer: string, count: number): number {
  let seen = 0;
  // the banner ("@(#) International Ispell…") is one non-empty line before the first answer
  let at = 0;
  while (seen < count) {
    const nl = buffer.indexOf('\n', at);
    if (nl < 0) return -1;
    if (nl === at) seen++;
    at = nl + 1;
  }
  return at;
}

/**
 * The MAP table (letters a typo confuses, `aàâä`) with its upper-case letters left out. Hunspell tries
 * every combination of a group's letters at every position that has one, so French's groups of eight
 * (`aàâäAÀÂÄ`) multiply its suggestion time (bench/results/ai-quality.json), while a capitalised word
 * is also suggested for in lower case and capitalised back ("Ecole": "École" either way). A group
 * left with one letter goes, and the count line is rewritten. A parenthesised group (`(ss)`) counts as
 * one letter, and is left out, as a letter is, when it has an upper-case one.
 */
export function lowerCaseMap(affix: string): string {
  const lines = affix.split('\n');
  const header = lines.findIndex((l) => /^MAP\s+\d+\s*$/.test(l));
  if (header < 0) return affix;
  const count = Number(/\d+/.exec(lines[header]!)![0]);
  const kept: string[] = [];
  for (const line of lines.slice(header + 1, header + 1 + count)) {
    const items = /^MAP\s+(\S+)/.exec(line)?.[1]?.match(/\([^)]*\)|./gu) ?? [];
    const lower = items.filter((item) => item === item.toLowerCase());
    if (lower.length > 1) kept.push(`MAP ${lower.join('')}`);
  }
  const table = kept.length ? [`MAP ${kept.length}`, ...kept] : [];
  return [...lines.slice(0, header), ...table, ...lines.slice(header + 1 + count)].join('\n');
}

/**
 * The installed dictionary as the suggesting process reads it: a copy of its `.aff` beside a link to
 * its `.dic`, with Hunspell's n-gram suggestions turned off (`MAXNGRAMSUGS 0`) and a lower-case MAP
 * table (lowerCaseMap). The n-gram pass scores the whole dictionary for each word and comes after the
 * edit-based suggestions (one letter missing, extra, swapped or replaced, the dictionary's REP table),
 * which are the ones a typo needs; without it a word's suggestions take a few milliseconds instead of
 * tens (bench/results/ai-quality.json). A dictionary that already sets the option has it replaced,
 * since Hunspell refuses an `.aff` that sets it twice.
 * The copy's folder is named by the `.aff`'s content, so every process and restart reuses it and
 * nothing piles up in the temporary folder (an emptyDir with a size limit in Kubernetes); it is
 * written under a temporary name and renamed, so a process never reads half a file. Where the copy
 * cannot be made, the installed dictionary as it is, and `onError` says why.
 */
export function suggestionDictionary(
  dictionary: string,
  dir = tmpdir(),
  onError?: (err: Error) => void,
): string {
  try {
    // read in its own encoding where letter case can be told (UTF-8, ISO8859-1), else byte for byte
    // (latin1 maps each byte to one character) with its MAP table as it is
    const bytes = readFileSync(`${dictionary}.aff`);
    const set = /^SET\s+(\S+)/m.exec(bytes.toString('latin1'))?.[1]?.toUpperCase();
    const encoding = set === 'UTF-8' ? 'utf8' : 'latin1';
    const original = bytes.toString(encoding);
    const cased =
      set === 'UTF-8' || set === 'ISO8859-1' || set === undefined ? lowerCaseMap(original) : original;
    const affix = `${cased.replace(/^MAXNGRAMSUGS\b.*$/gm, '')}\nMAXNGRAMSUGS 0\n`;
    const digest = createHash('sha1').update(affix, encoding).digest('hex').slice(0, 16);
    const folder = path.join(
      dir,
      `lingua-hunspell-${process.getuid?.() ?? 0}`,
      `${path.basename(dictionary)}-${digest}`,
    );
    const copy = path.join(folder, path.basename(dictionary));
    if (existsSync(`${copy}.aff`) && existsSync(`${copy}.dic`)) return copy;
    mkdirSync(folder, { recursive: true });
    const temporary = `${copy}.${process.pid}`;
    writeFileSync(`${temporary}.aff`, affix, encoding);
    renameSync(`${temporary}.aff`, `${copy}.aff`);
    rmSync(`${temporary}.dic`, { force: true });
    symlinkSync(path.resolve(`${dictionary}.dic`), `${temporary}.dic`);
    renameSync(`${temporary}.dic`, `${copy}.dic`);
    return copy;
  } catch (err) {
    onError?.(err as Error);
    return dictionary;
  }
}

/** A word no dictionary has: it closes each batch of `hunspell -l`, which prints misspelled words only. */
const SENTINEL = 'qqxlinguaendqqx';

/**
 * Spelling by long-lived Hunspell processes per language (Debian's hunspell and hunspell-<lang>),
 * started on first use, never one process per word, each with the queue, timeout and restart of
 * lineProcess: `hunspell -l` finds the misspelled words of a batch (cheap; line-buffered by stdbuf,
 * closed by a sentinel word), `hunspell -a` (the ispell pipe protocol, each word behind `^` so none is
 * read as a command) suggests, only for the words asked, from the dictionary without n-gram
 * suggestions and a lower-case MAP table (suggestionDictionary). A checker that cannot run answers undefined: the analysis
 * goes on without spelling.
 */
export function hunspellSpeller(options: HunspellSpellerOptions): Speller & { stop(): void } {
  const shared = {
    // the first request also waits for the dictionary to load (up to ~1.5 s for Russian on a busy machine)
    timeoutMs: options.timeoutMs ?? 5_000,
    ...(options.maxQueue !== undefined && { maxQueue: options.maxQueue }),
    ...(options.onError && { onError: options.onError }),
  };
  const hunspell = options.hunspell ?? 'hunspell';
  const lister = lineProcess({
    command: options.stdbuf ?? 'stdbuf',
    args: ['-oL', hunspell, '-l', '-i', 'utf-8', '-d', options.dictionary],
    encode: (input) => `${input}\n${SENTINEL}\n`,
    answerEnd: (buffer) => {
      const end = buffer.startsWith(`${SENTINEL}\n`) ? 0 : buffer.indexOf(`\n${SENTINEL}\n`);
      return end < 0 ? -1 : end + SENTINEL.length + (end === 0 ? 1 : 2);
    },
    ...shared,
  });
  const suggester = lineProcess({
    command: hunspell,
    args: ['-a', '-i', 'utf-8', '-d', suggestionDictionary(options.dictionary, tmpdir(), options.onError)],
    encode: (input) => `${input}\n`,
    answerEnd: (buffer, input) => answerEnd(buffer, input.split('\n').length),
    ...shared,
  });
  const clean = (words: string[]) => [
    ...new Set(words.map((w) => w.replace(/[\s\0]/g, '')).filter((w) => w && w !== SENTINEL)),
  ];
  return {
    language: options.language,
    async misspelled(words) {
      const distinct = clean(words);
      if (!distinct.length) return new Set();
      const out = await lister.run(distinct.join('\n'));
      if (out === undefined) return undefined;
      // Hunspell may split a word ("l'homme" → "l", "homme"): the word is misspelled if a part is
      const parts = new Set(out.split('\n').filter((l) => l && l !== SENTINEL));
      return new Set(distinct.filter((w) => parts.has(w) || w.split(/['’-]/).some((p) => parts.has(p))));
    },
    async suggest(words) {
      const distinct = clean(words);
      if (!distinct.length) return new Map();
      const out = await suggester.run(distinct.map((w) => `^${w}`).join('\n'));
      if (out === undefined) return undefined;
      return new Map([...parseIspell(out, distinct)].map(([w, c]) => [w, c.suggestions]));
    },
    stop() {
      lister.stop();
      suggester.stop();
    },
  };
}
