#!/usr/bin/env node
// Language quality of the local AI provider per language (issue 41 item 4), on hand-checked data:
//   1. lemma accuracy: bench/data/ai-language-sample.json's annotated sentences (>= 100 tokens per
//      language) analysed as POST /api/ai/analyze-sentence does; a token counts when its lemma is one
//      of the annotated ones (case aside); a token the analysis does not give counts as wrong;
//   2. spelling: the sample's misspelled sentences and ai-spelling-heldout.json's (list 2, written
//      after the spelling choice was designed on the sample's); precision = corrections that name an
//      annotated error and suggest its annotated correction / all corrections made (recall printed too);
//   3. translation precision per pair on nine lists of 30 concepts, bench/data/ai-translation-heldout*.json,
//      each written by hand before a change to translation choice was designed on the earlier ones'
//      misses (each file's note says which), translated as a card of that part of speech is
//      (translateWordAnalysed);
//   4. analysis latency in process: each sample sentence analysed once, first time (p95 < 20 ms);
//   5. memory with all data loaded: this process's RSS plus its helper processes' (Hunspell, lt-proc).
// Targets >= 90 % each. Prints the per-language table, writes bench/results/ai-quality.json, exits 1
// when a target is missed (BENCH_STRICT=0: always 0). Needs `npx tsc -b` and the Debian packages of
// services/ai/debian-packages.txt. Run under `flock /tmp/bench.lock` (it is CPU-bound), with the
// deployment's V8 flag (`node --max-semi-space-size=16`, deploy/k8s/services/ai) so the RSS compares.
const fs = require('node:fs');
const path = require('node:path');
const os = require('node:os');
const { percentile, writeJson } = require('./support');
const { installedLanguageData } = require('../services/ai/dist/data-access/language-data');
const { localProvider } = require('../services/ai/dist/domain/providers/local-provider');
const { translateWordAnalysed } = require('../services/ai/dist/domain/language/word-facts');
const { warmUpLanguageData } = require('../services/ai/dist/domain/analyze-text.use-case');

const sample = require('./data/ai-language-sample.json');
// list 2 was written after the commonness weighting was designed on list 1's misses, list 3 before the
// part-of-speech agreement was designed on lists 1-2's, list 4 before the Spanish → English data was
// designed on lists 1-3's, list 5 before the pivots into English, list 6 before a looked-up word that
// is its own dictionary form was asked first, list 7 after that change was finished, list 8 before
// the plainest of near-synonyms was shown first, list 9 before a noun listed as written with a meaning
// of its own was translated as written: the last list is the one no change has seen
const TRANSLATION_LISTS = ['', '-2', '-3', '-4', '-5', '-6', '-7', '-8', '-9'].map((suffix, i) => ({
  name: `list ${i + 1}`,
  key: i === 0 ? 'translation' : `translationList${i + 1}`,
  heldOut: require(`./data/ai-translation-heldout${suffix}.json`),
}));
// misspellings written after the spelling choice was designed on the sample's
const spellingHeldOut = require('./data/ai-spelling-heldout.json');
const TARGET = 0.9;
const P95_TARGET_MS = 20;
const LANGUAGES = ['en', 'de', 'fr', 'es', 'it', 'pt', 'nl', 'ru'];

// NFKC: a typographic variant is the same word (FreeDict's Dutch writes the ligature "ĳ" for "ij")
const norm = (s) =>
  String(s ?? '')
    .normalize('NFKC')
    .toLowerCase()
    .replace(/ё/g, 'е')
    .trim();
const pct = (x) => (x === undefined ? 'n/a' : `${(x * 100).toFixed(1)} %`);

/** RSS of this process and of its child processes (the spellers and analysers), in MB. */
function rssWithChildren() {
  const own = process.memoryUsage().rss;
  let children = 0;
  const names = [];
  for (const pid of fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[1]) !== process.pid) continue;
      const rss = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
      const bytes = rss ? Number(rss[1]) * 1024 : 0;
      children += bytes;
      const cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
      names.push(
        `${path.basename(cmd.find((a) => /\.(bin|dic)$|^-d$/.test(a)) ? cmd.join(' ') : (cmd[0] ?? ''))} ${Math.round(bytes / 1048576)} MB`,
      );
    } catch {
      // ended meanwhile
    }
  }
  return { ownMb: Math.round(own / 1048576), childrenMb: Math.round(children / 1048576), children: names };
}

/** "J' ai" → "J'ai": the sentence the annotated tokens were taken from. */
const sentenceOf = (tokens) =>
  tokens
    .map((t) => t.surface)
    .join(' ')
    .replace(/(['’]) /g, '$1') + '.';

async function main() {
  warmUpLanguageData();
  const data = installedLanguageData({
    wordnetDir: process.env.AI_WORDNET_DIR ?? '/usr/share/wordnet',
    dictdDir: process.env.AI_DICTD_DIR ?? '/usr/share/dictd',
  });
  for (const s of data.status()) if (!s.available) console.log(`missing: ${s.name}: ${s.message}`);
  for (const step of data.warmUpSteps()) while (!step());
  const deadline = Date.now() + 120_000;
  while (data.readingInBackground() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
  const provider = localProvider(data);
  // start every language's helper processes before timing (a service has them running)
  for (const language of LANGUAGES)
    await provider.analyzeSentence({ sentence: 'ok', language }).catch(() => {});
  const memory = rssWithChildren();

  const rows = {};
  const timings = [];
  const timed = async (sentence, language, heldOut = false) => {
    const t = process.hrtime.bigint();
    const r = await provider.analyzeSentence({ sentence, language });
    timings.push({ ms: Number(process.hrtime.bigint() - t) / 1e6, language, sentence, heldOut });
    return r;
  };
  /** Spelling precision and recall of the analysis on annotated misspelled sentences. */
  const spellingOn = async (sentences, language, heldOut = false) => {
    let made = 0;
    let correct = 0;
    let expected = 0;
    const falseCorrections = [];
    for (const { sentence, errors } of sentences) {
      expected += Object.keys(errors).length;
      const analysis = await timed(sentence, language, heldOut);
      for (const c of analysis.corrections.filter((x) => x.type === 'spelling')) {
        made++;
        if (errors[c.original] !== undefined && c.suggestion === errors[c.original]) correct++;
        else
          falseCorrections.push({
            original: c.original,
            suggestion: c.suggestion,
            expected: errors[c.original] ?? null,
          });
      }
    }
    return {
      spellingPrecision: made ? correct / made : undefined,
      spellingRecall: correct / expected,
      spellingErrors: falseCorrections,
    };
  };
  for (const language of LANGUAGES) {
    const row = (rows[language] = { language });
    // 1. lemmas
    let right = 0;
    let total = 0;
    const wrong = [];
    for (const line of sample.lemmas[language]) {
      const tokens = line.split(' ').map((pair) => {
        const i = pair.lastIndexOf(':');
        return { surface: pair.slice(0, i), lemmas: pair.slice(i + 1).split('|') };
      });
      const analysis = await timed(sentenceOf(tokens), language);
      const got = analysis.tokens ?? [];
      let j = 0;
      for (const t of tokens) {
        total++;
        const k = got.findIndex((g, i) => i >= j && i < j + 4 && norm(g.text) === norm(t.surface));
        if (k < 0) {
          wrong.push({ token: t.surface, expected: t.lemmas.join('|'), got: null, kind: 'token not given' });
          continue;
        }
        j = k + 1;
        if (t.lemmas.some((l) => norm(l) === norm(got[k].lemma))) right++;
        else
          wrong.push({
            token: t.surface,
            expected: t.lemmas.join('|'),
            got: got[k].lemma,
            partOfSpeech: got[k].partOfSpeech,
            kind: got[k].lemma && norm(got[k].lemma) !== norm(t.surface) ? 'other lemma' : 'not reduced',
          });
      }
    }
    row.lemmaTokens = total;
    row.lemmaAccuracy = right / total;
    row.lemmaErrors = wrong;
    // 2. spelling, on the sample and on the held-out list
    Object.assign(row, await spellingOn(sample.spelling[language], language));
    const list2 = await spellingOn(spellingHeldOut.spelling[language], language, true);
    row.spellingPrecision2 = list2.spellingPrecision;
    row.spellingRecall2 = list2.spellingRecall;
    row.spellingErrors2 = list2.spellingErrors;
  }

  // 3. translation, per pair
  const lexicon = data.lexicon();
  const clean = (t) =>
    norm(t)
      .replace(/\([^)]*\)/g, ' ')
      .replace(/^to\s+/, '')
      .replace(/\s+/g, ' ')
      .trim();
  const precisionOn = async (heldOut) => {
    const pairs = {};
    for (const other of LANGUAGES.filter((l) => l !== 'en'))
      for (const [from, to] of [
        ['en', other],
        [other, 'en'],
      ]) {
        const dictionary = data.dictionary(from, to);
        const misses = [];
        let right = 0;
        for (const c of heldOut.concepts) {
          const word = c[from].split('|')[0];
          const accepted = new Set(
            (to === 'en' ? (heldOut.extraEnglishAcceptable[`${from}:${word}`] ?? c.en) : c[to])
              .split('|')
              .map(norm),
          );
          let found;
          if (dictionary) {
            const bases =
              from === 'en'
                ? []
                : [...((await data.morphology?.(from)?.analyse([word]))?.get(word) ?? [])].map(
                    (r) => r.lemma,
                  );
            found = await translateWordAnalysed(
              data.morphology?.(to),
              dictionary,
              from === 'en' ? word : word.toLowerCase(),
              c.pos,
              lexicon,
              data.dictionary(to, from),
              bases,
            );
          }
          if (found && accepted.has(clean(found.translation))) right++;
          else
            misses.push({
              word,
              pos: c.pos,
              got: found?.translation ?? null,
              accepted: [...accepted].join('|'),
            });
        }
        pairs[`${from}-${to}`] = {
          precision: right / heldOut.concepts.length,
          words: heldOut.concepts.length,
          misses,
        };
      }
    return pairs;
  };
  const lists = [];
  for (const list of TRANSLATION_LISTS)
    lists.push([` (${list.name})`, await precisionOn(list.heldOut), list]);

  const p95Of = (list) =>
    percentile(
      list.map((t) => t.ms).sort((a, b) => a - b),
      95,
    );
  const p95 = p95Of(timings);
  // the sample alone, as runs before the held-out misspellings measured it (a third more of its
  // sentences are misspelled, and a French one waits for Hunspell's suggestions, 25–100 ms)
  const p95Sample = p95Of(timings.filter((t) => !t.heldOut));
  const table = LANGUAGES.map((l) => ({
    language: l,
    'lemma accuracy': `${pct(rows[l].lemmaAccuracy)} of ${rows[l].lemmaTokens}`,
    'spelling precision': pct(rows[l].spellingPrecision),
    'spelling recall': pct(rows[l].spellingRecall),
    'spelling precision (list 2)': pct(rows[l].spellingPrecision2),
  }));
  console.table(table);
  // translation precision: one row per pair, one column per list
  console.table(
    Object.fromEntries(
      Object.keys(lists[0][1]).map((pair) => [
        pair,
        Object.fromEntries(lists.map(([, ps, list]) => [list.name, pct(ps[pair].precision)])),
      ]),
    ),
  );
  console.log(
    `analysis p95 in process: ${p95.toFixed(1)} ms over ${timings.length} sentences (target < ${P95_TARGET_MS} ms; ${p95Sample.toFixed(1)} ms without the held-out misspellings); load ${os.loadavg()[0].toFixed(2)}`,
  );
  console.log(
    `memory with all data loaded: ${memory.ownMb} MB (Node) + ${memory.childrenMb} MB (${memory.children.length} helper processes) = ${memory.ownMb + memory.childrenMb} MB`,
  );
  const missed = [];
  for (const l of LANGUAGES) {
    if (!(rows[l].lemmaAccuracy >= TARGET)) missed.push(`${l} lemma accuracy ${pct(rows[l].lemmaAccuracy)}`);
    if (!(rows[l].spellingPrecision >= TARGET))
      missed.push(`${l} spelling precision ${pct(rows[l].spellingPrecision)}`);
    if (!(rows[l].spellingPrecision2 >= TARGET))
      missed.push(`${l} spelling precision (list 2) ${pct(rows[l].spellingPrecision2)}`);
  }
  for (const [list, ps] of lists)
    for (const [pair, r] of Object.entries(ps))
      if (!(r.precision >= TARGET)) missed.push(`${pair} translation precision${list} ${pct(r.precision)}`);
  if (!(p95 < P95_TARGET_MS)) missed.push(`analysis p95 ${p95.toFixed(1)} ms`);
  for (const l of LANGUAGES) {
    const errors = rows[l].lemmaErrors;
    if (errors.length)
      console.log(
        `${l} lemma errors: ${errors.map((e) => `${e.token}→${e.got ?? '∅'} (want ${e.expected})`).join(', ')}`,
      );
    for (const [list, key] of [
      ['', 'spellingErrors'],
      [' (list 2)', 'spellingErrors2'],
    ])
      if (rows[l][key].length)
        console.log(
          `${l} spelling${list}: ${rows[l][key].map((e) => `${e.original}→${e.suggestion} (want ${e.expected ?? 'no correction'})`).join(', ')}`,
        );
  }
  for (const [list, ps] of lists)
    for (const [pair, r] of Object.entries(ps))
      if (r.misses.length)
        console.log(`${pair} misses${list}: ${r.misses.map((m) => `${m.word}→${m.got ?? '∅'}`).join(', ')}`);
  console.log(missed.length ? `MISSED: ${missed.join('; ')}` : 'all targets met');
  const out = path.join(__dirname, 'results', 'ai-quality.json');
  await writeJson(out, {
    date: new Date().toISOString(),
    machine: { cpus: os.cpus().length, load1: os.loadavg()[0] },
    targets: { share: TARGET, analysisP95Ms: P95_TARGET_MS },
    languages: rows,
    ...Object.fromEntries(lists.map(([, ps, list]) => [list.key, ps])),
    analysisP95Ms: Math.round(p95 * 10) / 10,
    analysisP95MsSampleOnly: Math.round(p95Sample * 10) / 10,
    analysedSentences: timings.length,
    // the sentences past the p95, slowest first: where the time goes
    slowest: timings
      .sort((a, b) => b.ms - a.ms)
      .slice(0, Math.ceil(timings.length * 0.05))
      .map((t) => ({ ...t, ms: Math.round(t.ms * 10) / 10 })),
    memory,
    missed,
  });
  console.log(`written: ${path.relative(process.cwd(), out)}`);
  process.exit(missed.length && process.env.BENCH_STRICT !== '0' ? 1 : 0);
}

main().catch((err) => {
  console.error(err);
  process.exit(2);
});
