import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import type { Socket } from 'node:net';
import type { Morphology, Reading, WordClass } from '../domain/language/language-data';

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
      const reading: Reading = { lemma, partOfSpeech: CLASS_OF_TAG[tag] ?? 'other' };
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
  const timeoutMs = options.timeoutMs ?? 2_000;
  const maxQueue = options.maxQueue ?? 64;
  let child: ChildProcessWithoutNullStreams | undefined;
  let buffer = '';
  let current: { resolve: (out: string | undefined) => void; timer: NodeJS.Timeout } | undefined;
  const queue: Array<{ input: string; resolve: (out: string | undefined) => void }> = [];

  const finish = (out: string | undefined) => {
    const c = current;
    if (!c) return;
    current = undefined;
    clearTimeout(c.timer);
    c.resolve(out);
    next();
  };
  const kill = () => {
    const c = child;
    child = undefined;
    buffer = '';
    c?.kill();
  };
  const ensureChild = () => {
    if (child) return child;
    const c = spawn(options.ltProc ?? 'lt-proc', ['-z', options.automaton], { stdio: 'pipe' });
    child = c;
    // an idle analyser does not keep the process alive
    c.unref();
    for (const s of [c.stdin, c.stdout, c.stderr]) (s as unknown as Socket).unref?.();
    c.stdout.setEncoding('utf8');
    c.stdout.on('data', (chunk: string) => {
      if (c !== child) return;
      buffer += chunk;
      let end = buffer.indexOf('\0');
      while (end >= 0) {
        const out = buffer.slice(0, end);
        buffer = buffer.slice(end + 1);
        finish(out);
        end = buffer.indexOf('\0');
      }
    });
    const failed = (err: Error) => {
      if (c !== child) return;
      options.onError?.(err);
      kill();
      finish(undefined);
    };
    c.on('error', failed);
    c.on('exit', (code) => failed(new Error(`lt-proc exited (${code ?? 'signal'})`)));
    c.stdin.on('error', failed);
    return c;
  };
  function next() {
    if (current) return;
    const job = queue.shift();
    if (!job) return;
    const timer = setTimeout(() => {
      options.onError?.(new Error(`lt-proc took over ${timeoutMs} ms: restarted`));
      kill();
      finish(undefined);
    }, timeoutMs);
    current = { resolve: job.resolve, timer };
    try {
      ensureChild().stdin.write(`${job.input}\0`);
    } catch (err) {
      options.onError?.(err as Error);
      kill();
      finish(undefined);
    }
  }
  const run = (input: string) =>
    new Promise<string | undefined>((resolve) => {
      if (queue.length >= maxQueue) return resolve(undefined);
      queue.push({ input, resolve });
      next();
    });

  return {
    language: options.language,
    async analyse(words) {
      const result = new Map<string, Reading[]>();
      const distinct = [...new Set(words.filter((w) => w.trim()))];
      if (!distinct.length) return result;
      // one word a line: lt-proc analyses each on its own (NULs and reserved characters escaped)
      const out = await run(distinct.map((w) => w.replace(/\0/g, '').replace(RESERVED, '\\$&')).join('\n'));
      const parsed = out === undefined ? new Map<string, Reading[]>() : parseLtProc(out);
      for (const w of distinct) result.set(w, parsed.get(w) ?? []);
      return result;
    },
    stop() {
      kill();
      for (const job of queue.splice(0)) job.resolve(undefined);
      finish(undefined);
    },
  };
}
