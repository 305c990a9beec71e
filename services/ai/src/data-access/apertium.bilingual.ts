import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { BilingualDictionary, DictionaryEntry } from '../domain/language/language-data';
import { frequencyRankIn } from '../domain/language/word-frequency';

/** The Apertium tags asked per WordNet class, and the dictionary mark the entry gets. */
const ASKED: Array<{ file: string; tags: string[]; mark: string }> = [
  { file: 'index.noun', tags: ['<n><sg>'], mark: 'n' },
  { file: 'index.verb', tags: ['<vblex><inf>'], mark: 'v' },
  // Apertium's English adjectives are either plain or synthetic-comparative ("flat<adj><sint>")
  { file: 'index.adj', tags: ['<adj>', '<adj><sint>'], mark: 'adj' },
  { file: 'index.adv', tags: ['<adv>'], mark: 'adv' },
];

const execFileAsync = promisify(execFile);

const RESERVED = /[\\[\]^$/@<>{}*]/;

/** `^congelar<vblex><pp>$` → its lemma and tags; `@word` (untranslated) → undefined. */
function outputs(line: string): string[] {
  const body = /^\^(.*)\$$/.exec(line.trim())?.[1];
  if (!body) return [];
  return body
    .split('/')
    .slice(1)
    .filter((o) => !o.startsWith('@'));
}

const lemmaOf = (analysis: string) => /^[^<]*/.exec(analysis)![0].replace(/#/g, '');

/**
 * Apertium's English → Spanish bilingual dictionary (`eng-spa.autobil.bin` of Debian's
 * apertium-eng-spa), read through lt-proc's bilingual mode: every WordNet lemma is asked in its
 * class (noun, verb, adjective, adverb) and the translations lt-proc gives become entries marked with
 * that class, first the pair's default. Adjectives that are participles ("frozen" = freeze<pp>) and
 * have no adjective entry are translated as the Spanish participle (congelar → "congelado", made by
 * the pair's generator). Multi-word lemmas keep their spaces. Entries are `primary`: reviewed,
 * part-of-speech-tagged bilingual data.
 *
 * The whole dictionary is read by lt-proc processes in the background (`warmUpStep` starts them and
 * returns at once: they run on another core, ~4 s of CPU); a look-up before they finish asks lt-proc
 * for that one headword (~0.1 s; ~0.4 s for a participle), so an early request is slower, not wrong.
 */
export function apertiumBilingual(options: {
  ltProc: string;
  pairDir: string;
  wordnetDir: string;
  from: string;
  to: string;
  prefix: string;
  /** reports a failed background read (look-ups keep asking lt-proc one headword at a time) */
  onError?: (err: Error) => void;
}): BilingualDictionary & {
  installed(): boolean;
  warmUpStep(): boolean;
  loaded(): boolean;
  reversed(): BilingualDictionary;
} {
  const bidix = path.join(options.pairDir, `${options.prefix}.autobil.bin`);
  const morf = path.join(options.pairDir, `${options.prefix}.automorf.bin`);
  const gen = path.join(options.pairDir, `${options.prefix}.autogen.bin`);
  const run = async (args: string[], input: string) => {
    const child = execFileAsync(options.ltProc, args, { maxBuffer: 256 * 1024 * 1024 });
    child.child.stdin!.end(input);
    return (await child).stdout;
  };
  const lemmasOf = (file: string) =>
    readFileSync(path.join(options.wordnetDir, file), 'utf8')
      .split('\n')
      .filter((l) => l && !l.startsWith(' '))
      .map((l) => l.slice(0, l.indexOf(' ')).replace(/_/g, ' '))
      .filter((l) => !RESERVED.test(l));
  const addTo = (
    map: Map<string, DictionaryEntry[]>,
    lemma: string,
    mark: string,
    translations: string[],
  ) => {
    if (!translations.length) return;
    const list = map.get(lemma) ?? [];
    const same = list.find((e) => e.partOfSpeech === mark);
    if (same) same.translations.push(...translations.filter((t) => !same.translations.includes(t)));
    else
      list.push({
        headword: lemma,
        partOfSpeech: mark,
        pronunciation: undefined,
        translations: [...new Set(translations)],
        examples: [],
        labels: [],
        primary: true,
      });
    map.set(lemma, list);
  };

  async function build(): Promise<Map<string, DictionaryEntry[]>> {
    const map = new Map<string, DictionaryEntry[]>();
    const adjectives: string[] = [];
    const asked: Array<{ lemma: string; mark: string; line: string }> = [];
    for (const { file, tags, mark } of ASKED) {
      const lemmas = lemmasOf(file);
      if (mark === 'adj') adjectives.push(...lemmas);
      for (const l of lemmas) for (const t of tags) asked.push({ lemma: l, mark, line: `^${l}${t}$` });
    }
    const lines = (await run(['-b', bidix], asked.map((a) => a.line).join('\n') + '\n')).split('\n');
    asked.forEach((a, j) => addTo(map, a.lemma, a.mark, outputs(lines[j] ?? '').map(lemmaOf)));
    // participle adjectives without an adjective entry: analyse, translate the participle, generate it
    const bare = adjectives.filter(
      (a) => !map.get(a)?.some((e) => e.partOfSpeech === 'adj') && !/\s/.test(a),
    );
    const analysed = (await run([morf], bare.join('\n') + '\n')).split('\n');
    const participles: Array<{ adjective: string; verb: string }> = [];
    analysed.forEach((line, i) => {
      const verb = outputs(line).find((o) => o.endsWith('<vblex><pp>'));
      if (verb && bare[i]) participles.push({ adjective: bare[i], verb: lemmaOf(verb) });
    });
    const translated = (
      await run(['-b', bidix], participles.map((p) => `^${p.verb}<vblex><pp>$`).join('\n') + '\n')
    )
      .split('\n')
      .map((l) => outputs(l).find((o) => o.includes('<vblex><pp>') && !o.includes('<pron>')));
    const targets = participles
      .map((p, i) => ({ ...p, target: translated[i] && lemmaOf(translated[i]) }))
      .filter((p): p is { adjective: string; verb: string; target: string } => !!p.target);
    const generated = (
      await run(['-g', gen], targets.map((p) => `^${p.target}<vblex><pp><m><sg>$`).join('\n') + '\n')
    ).split('\n');
    targets.forEach((p, i) => {
      const form = generated[i]?.trim();
      if (form && !/[#@*]/.test(form)) addTo(map, p.adjective, 'adj', [form]);
    });
    return map;
  }

  let map: Map<string, DictionaryEntry[]> | undefined;
  let started = false;
  // look-ups answered before the background read is done, one lt-proc run each
  const early = new Map<string, DictionaryEntry[]>();
  const lookupNow = (headword: string): DictionaryEntry[] => {
    if (RESERVED.test(headword)) return [];
    const asked = ASKED.flatMap(({ tags, mark }) => tags.map((t) => ({ mark, line: `^${headword}${t}$` })));
    const out = execFileSync(options.ltProc, ['-b', bidix], {
      input: asked.map((a) => a.line).join('\n') + '\n',
    })
      .toString('utf8')
      .split('\n');
    const found = new Map<string, DictionaryEntry[]>();
    asked.forEach((a, j) => addTo(found, headword, a.mark, outputs(out[j] ?? '').map(lemmaOf)));
    // a participle without an adjective entry ("frozen"): its Spanish participle, as the full read does
    if (!found.get(headword)?.some((e) => e.partOfSpeech === 'adj') && !/\s/.test(headword)) {
      const sync = (args: string[], input: string) =>
        execFileSync(options.ltProc, args, { input: `${input}\n` })
          .toString('utf8')
          .trim();
      const verb = outputs(sync([morf], headword)).find((o) => o.endsWith('<vblex><pp>'));
      const target =
        verb &&
        outputs(sync(['-b', bidix], `^${lemmaOf(verb)}<vblex><pp>$`)).find(
          (o) => o.includes('<vblex><pp>') && !o.includes('<pron>'),
        );
      const form = target && sync(['-g', gen], `^${lemmaOf(target)}<vblex><pp><m><sg>$`);
      if (form && !/[#@*]/.test(form)) addTo(found, headword, 'adj', [form]);
    }
    return found.get(headword) ?? [];
  };
  const start = () => {
    if (started) return;
    started = true;
    build().then(
      (m) => {
        map = m;
        early.clear();
      },
      (err: Error) => options.onError?.(err),
    );
  };

  // target word → class mark → the source lemmas that translate into it: first those of which it is
  // the pair's default translation, then the most frequent ("clave" ← clue before key, whose default
  // is "llave"), so that reading back tells the main sense from a secondary one
  let backwards: Map<string, Map<string, string[]>> | undefined;
  const invert = (m: Map<string, DictionaryEntry[]>) => {
    const inverse = new Map<string, Map<string, Array<{ lemma: string; position: number }>>>();
    for (const entries of m.values())
      for (const e of entries)
        e.translations.forEach((t, position) => {
          const byMark =
            inverse.get(t.toLowerCase()) ?? new Map<string, Array<{ lemma: string; position: number }>>();
          inverse.set(t.toLowerCase(), byMark);
          const lemmas = byMark.get(e.partOfSpeech!) ?? [];
          byMark.set(e.partOfSpeech!, lemmas);
          if (!lemmas.some((l) => l.lemma === e.headword)) lemmas.push({ lemma: e.headword, position });
        });
    const rank = (w: string) => frequencyRankIn(options.from, w) ?? Number.MAX_SAFE_INTEGER;
    const sorted = new Map<string, Map<string, string[]>>();
    for (const [word, byMark] of inverse)
      sorted.set(
        word,
        new Map(
          [...byMark].map(([mark, lemmas]) => [
            mark,
            lemmas
              .sort(
                (a, b) => Math.min(a.position, 1) - Math.min(b.position, 1) || rank(a.lemma) - rank(b.lemma),
              )
              .map((l) => l.lemma),
          ]),
        ),
      );
    return sorted;
  };

  return {
    from: options.from,
    to: options.to,
    /**
     * The same data read from the target language (Spanish → English): each word's source lemmas per
     * class, the most frequent first. Empty until the background read is done (readingInBackground).
     */
    reversed: () => ({
      from: options.to,
      to: options.from,
      lookup(headword) {
        if (!map) return [];
        backwards ??= invert(map);
        const byMark = backwards.get(headword.trim().toLowerCase());
        return [...(byMark ?? [])].map(([mark, lemmas]) => ({
          headword: headword.trim().toLowerCase(),
          partOfSpeech: mark,
          pronunciation: undefined,
          translations: lemmas,
          examples: [],
          labels: [],
          primary: true,
          readBackwards: true,
        }));
      },
    }),
    installed: () => existsSync(bidix) && existsSync(morf) && existsSync(gen),
    warmUpStep() {
      start();
      return true;
    },
    loaded: () => map !== undefined,
    lookup(headword) {
      const key = headword.trim().toLowerCase();
      if (map) return map.get(key) ?? [];
      start();
      let hit = early.get(key);
      if (!hit) early.set(key, (hit = lookupNow(key)));
      return hit;
    },
  };
}
