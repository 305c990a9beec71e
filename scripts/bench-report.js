#!/usr/bin/env node
// `npm run bench:report`: the tables of bench/README.md are generated from the benches' result files
// (bench/results/<bench>.json), so a figure is written once, by the run that measured it. Each table
// sits between `<!-- bench:report <name> begin -->` and `<!-- bench:report <name> end -->`; this
// script rewrites what is between them from the result file. `--check` changes nothing and exits 1
// when a generated table differs from what the result files give (a hand-edited figure, or a run
// whose tables were not regenerated), or when a table's markers are missing. Needs nothing started.
// `--readme=<file>` reads (and writes) another copy of the README, for the test.
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const README = path.join(ROOT, 'bench/README.md');
const RESULTS = path.join(ROOT, 'bench/results');

const result = (name) => JSON.parse(fs.readFileSync(path.join(RESULTS, `${name}.json`), 'utf8'));
const blank = (v) => v === null || v === undefined;
const cell = (v, unit = '') => (blank(v) ? '–' : `${v}${unit}`);
const fixed = (v, digits, unit = '') =>
  typeof v === 'number' ? `${v.toFixed(digits)}${unit}` : cell(v, unit);
const thousands = (v) => (typeof v === 'number' ? v.toLocaleString('en-US') : cell(v));

/** A markdown table; columns are [title, 'l' or 'r', row → cell]. prettier aligns it afterwards. */
function table(columns, rows) {
  const line = (cells) => `| ${cells.join(' | ')} |`;
  return [
    line(columns.map(([title]) => title)),
    line(columns.map(([, align]) => (align === 'r' ? '--: ' : '---').trim())),
    ...rows.map((row) => line(columns.map(([, , get]) => String(get(row)).replace(/\|/g, '\\|')))),
  ].join('\n');
}

/** Where the figures come from: the result file, its run's date and commit (or its source), the machine. */
function provenance(name, doc) {
  const m = doc.machine ?? {};
  const machine = [
    m.cpus && `${m.cpus} cores`,
    m.loadAverage && `load average ${m.loadAverage.join(', ')}`,
    m.note,
  ].filter(Boolean);
  const run = doc.source ?? `run of ${doc.date}${doc.commit ? ` at ${doc.commit}` : ''}`;
  return `From [results/${name}.json](results/${name}.json): ${run}${machine.length ? `; ${machine.join(', ')}` : ''}.`;
}

/** The journey's sizes in the file, S before L; its run dates and machine stand in for a run's. */
const journeySizes = (r) =>
  Object.entries(r.sizes)
    .sort(([a], [b]) => a.localeCompare(b))
    .reverse();
const journeyRuns = (r) => {
  const sizes = journeySizes(r);
  const load = sizes.map(
    ([n, s]) => `${n} load average at start ${(s.machine?.loadAverageAtStart ?? []).join(', ')}`,
  );
  return {
    date: sizes.map(([n, s]) => `${n} ${s.date}`).join(', '),
    machine: { cpus: sizes[0]?.[1].machine?.cpus, note: load.join('; ') },
  };
};
/** The stack's CPU per answered call in a window, all processes. */
const stackCpu = (w, key) => Object.values(w[key] ?? {}).reduce((a, b) => a + b, 0);
const NODE_SERVICES = ['gateway', 'identity', 'flashcards', 'subscriptions', 'ai', 'notifications'];

/** The generated tables: marker name → [result file, result → markdown, provenance stand-in]. */
const TABLES = {
  journey: [
    'journey',
    (r) =>
      table(
        [
          ['size', 'l', ([n]) => n],
          ['users / cards', 'l', ([, s]) => `${thousands(s.data.users)} / ${thousands(s.data.cards)}`],
          [
            'CPU ms per call at the fixed rate (above rest)',
            'r',
            ([, s]) =>
              `${fixed(stackCpu(s.windows[0], 'cpuMsPerCall'), 2)} (${fixed(stackCpu(s.windows[0], 'cpuMsPerCallAboveRest'), 2)}) at ${s.windows[0].offeredPerS}/s`,
          ],
          ['capacity', 'r', ([, s]) => cell(s.capacityPerS, ' / s')],
          [
            'worst non-login p95 at half capacity',
            'l',
            ([, s]) => {
              const half = s.windows.find((w) => w.label === 'half the capacity');
              if (!half) return '–';
              const [call, p95] = Object.entries(half.p95Ms)
                .filter(([name]) => name !== 'all' && name !== 'login')
                .sort((a, b) => b[1] - a[1])[0];
              return `${fixed(p95, 1)} ms (${call})`;
            },
          ],
        ],
        journeySizes(r),
      ),
    journeyRuns,
  ],
  'journey-processes': [
    'journey',
    (r) => {
      const sizes = journeySizes(r);
      const names = Object.keys(sizes[0]?.[1].windows[0].cpuMsPerCall ?? {});
      return table(
        [
          ['process', 'l', (n) => n],
          ...sizes.map(([size, s]) => [
            `${size}: CPU ms per call (above rest)`,
            'r',
            (n) =>
              `${fixed(s.windows[0].cpuMsPerCall[n], 2)} (${fixed(s.windows[0].cpuMsPerCallAboveRest?.[n], 2)})`,
          ]),
          ...sizes.map(([size, s]) => [
            `${size}: RSS MB after (peak)`,
            'r',
            (n) => (s.memoryMb?.[n] ? `${s.memoryMb[n].rssMb} (${s.memoryMb[n].peakRssMb})` : '–'),
          ]),
        ],
        names,
      );
    },
    journeyRuns,
  ],
  'journey-wakeups': [
    'journey',
    (r) => {
      const sizes = journeySizes(r);
      return table(
        [
          ['Node service', 'l', (n) => n],
          ...sizes.flatMap(([size, s]) => [
            [`${size}: 2 s after the warm-up`, 'r', (n) => fixed(s.restWakeupsPerS?.[n], 1)],
            [`${size}: idle`, 'r', (n) => fixed(s.idleWakeupsPerS?.[n], 1)],
          ]),
        ],
        NODE_SERVICES,
      );
    },
    journeyRuns,
  ],
  gateway: [
    'gateway',
    (r) =>
      table(
        [
          ['scenario', 'l', (s) => s.scenario],
          ['req/s', 'r', (s) => cell(s.reqPerS)],
          ['p99 ms', 'r', (s) => cell(s.p99Ms)],
          ['CPU µs/req, front', 'r', (s) => cell(s.frontCpuUs)],
          ['CPU µs/req, service', 'r', (s) => cell(s.serviceCpuUs)],
        ],
        r.scenarios,
      ),
  ],
  'gateway-measures': [
    'gateway',
    (r) =>
      table(
        [
          ['measure (median of the per-round ratios, the rounds in brackets)', 'l', (m) => m.measure],
          ['value', 'l', (m) => `${m.value}${m.rounds ? ` (${m.rounds.join(', ')})` : ''}`],
          ['target', 'l', (m) => cell(m.target)],
        ],
        r.measures,
      ),
  ],
  'hop-cost': [
    'hop-cost',
    (r) => {
      const figures = (v) => `${fixed(v.cpuUs, 0)} / ${fixed(v.wakeups, 2)}`;
      const k = (v) => (typeof v === 'number' ? `${Math.round(v / 1000)}k` : cell(v));
      return table(
        [
          ['server', 'l', (s) => s.name],
          ['idle: ms/s, wake-ups/s', 'r', (s) => `${fixed(s.idleMsPerS, 1)}, ${fixed(s.idleWakeupsPerS, 1)}`],
          ...r.rates.map((rate, i) => [`${rate}/s`, 'r', (s) => figures(s.rates[i])]),
          [
            `${r.inFlight} in flight (req/s)`,
            'r',
            (s) => `${figures(s.inFlight)} (${k(s.inFlight.reqPerS)})`,
          ],
        ],
        r.servers,
      );
    },
  ],
  assertion: [
    'assertion',
    (r) =>
      table(
        [
          ['operation', 'l', (o) => o.operation],
          ['µs', 'r', (o) => fixed(o.us, 2)],
          [`of the ${r.budgetUs} µs budget`, 'r', (o) => `${(o.us / r.budgetUs).toFixed(2)}×`],
        ],
        r.operations,
      ),
  ],
  'grpc-identity': [
    'grpc-identity',
    (r) => {
      const ratio = (o) => (o.with / o.without).toFixed(2);
      return table(
        [
          ['measure', 'l', (row) => row[0]],
          ['figure', 'l', (row) => row[1]],
        ],
        [
          [
            `calls/s with / without (median of ${r.rounds} × ${r.seconds} s)`,
            `${r.callsPerS.with} / ${r.callsPerS.without} (${ratio(r.callsPerS)})`,
          ],
          [
            'CPU per call with / without',
            `${r.cpuUsPerCall.with} / ${r.cpuUsPerCall.without} µs (${ratio(r.cpuUsPerCall)})`,
          ],
          ...r.steps.map((s) => [s.step, `${s.us} µs`]),
        ],
      );
    },
  ],
  overload: [
    'overload',
    (r) =>
      table(
        [
          ['at', 'l', (p) => `${r.engines.length > 1 ? `${p.engine} ` : ''}${p.phase} (${p.ratePerS}/s)`],
          ['goodput/s', 'r', (p) => fixed(p.goodputPerS, 1)],
          ['shed/s', 'r', (p) => fixed(p.shedPerS, 1)],
          ['2xx p99', 'r', (p) => cell(p.acceptedP99Ms, ' ms')],
          ['shed p99', 'r', (p) => fixed(p.shedP99Ms, 1, ' ms')],
          ['timeouts', 'r', (p) => cell(p.timeouts)],
          ['longest wait', 'r', (p) => fixed(p.longestWaitS, 2, ' s')],
          [
            'idle again after',
            'r',
            (p) => (p.idleAfterS === null ? 'not idle' : fixed(p.idleAfterS, 1, ' s')),
          ],
        ],
        r.engines.flatMap((e) => e.phases.map((p) => ({ ...p, engine: e.engine }))),
      ) +
      `\n\nCapacity: ${r.engines.map((e) => `${e.engine} ${e.capacityPerS} req/s`).join(', ')}; ${r.users} users, ${r.secondsPerPhase} s per phase.`,
  ],
  'overload-memory': [
    'overload',
    (r) =>
      table(
        [
          ['process', 'l', (p) => `${r.engines.length > 1 ? `${p.engine} ` : ''}${p.process}`],
          ['peak RSS', 'r', (p) => cell(p.peakMb, ' MB')],
          ['Kubernetes limit', 'r', (p) => cell(p.limitMb, ' MB')],
          [
            'of the limit (at most 85 %)',
            'r',
            (p) => (p.shareOfLimit == null ? '–' : `${Math.round(p.shareOfLimit * 100)} %`),
          ],
        ],
        r.engines.flatMap((e) => (e.peakRss ?? []).map((p) => ({ ...p, engine: e.engine }))),
      ),
  ],
  'flashcards-due': [
    'flashcards-due',
    (r) => {
      const [first, second] = r.builds;
      const ratio = (a, b, digits) =>
        typeof a === 'number' && typeof b === 'number' && b ? `${(a / b).toFixed(digits)}×` : '–';
      return table(
        [
          ['cards of the user', 'r', (i) => thousands(first.rows[i].cards)],
          ...r.builds.map((b) => [
            `${b.label}: req/s, p95, CPU ms/req`,
            'l',
            (i) =>
              `${cell(b.rows[i].reqPerS)}, ${cell(b.rows[i].p95Ms, ' ms')}, ${fixed(b.rows[i].cpuMsPerReq, 3)}`,
          ]),
          ...(second
            ? [
                [
                  `${second.label} / ${first.label}`,
                  'l',
                  (i) =>
                    `${ratio(second.rows[i].reqPerS, first.rows[i].reqPerS, 2)} req/s, ${ratio(second.rows[i].p95Ms, first.rows[i].p95Ms, 1)} p95`,
                ],
              ]
            : []),
        ],
        first.rows.map((_, i) => i),
      );
    },
  ],
  'webhook-latency': [
    'webhook-latency',
    (r) =>
      table(
        [
          ['run', 'l', (x) => x.run],
          ['load average', 'l', (x) => cell(x.loadAverage)],
          ['delivered', 'l', (x) => `${x.delivered}/${x.published}`],
          ['sustained', 'l', (x) => fixed(x.sustainedPerS, 1, '/s')],
          ['p50', 'l', (x) => cell(x.p50Ms, ' ms')],
          ['p95', 'l', (x) => cell(x.p95Ms, ' ms')],
          ['p99', 'l', (x) => cell(x.p99Ms, ' ms')],
          ['max', 'l', (x) => cell(x.maxMs, ' ms')],
        ],
        r.runs,
      ),
  ],
  'identity-login': [
    'identity-login',
    (r) => {
      const p99 = r.loopDelayMs.p99PerStorm;
      return table(
        [
          ['measure', 'l', (row) => row[0]],
          ['figure', 'l', (row) => row[1]],
          ['target', 'l', (row) => row[2]],
        ],
        [
          ['logins/s ÷ bcrypt ceiling', cell(r.ratio), '≥ 0.85'],
          [`raw bcrypt ceiling (cost ${r.bcryptCost}), compares/s`, cell(r.ceilingComparesPerS), '–'],
          ['logins/s through the service', cell(r.loginsPerS), '–'],
          ['event-loop delay p99, per storm', `${Array.isArray(p99) ? p99.join(', ') : p99} ms`, '< 20 ms'],
          ['event-loop delay p50, worst storm', cell(r.loopDelayMs.p50Worst, ' ms'), '–'],
        ],
      );
    },
  ],
  'ai-analyze-text': [
    'ai-analyze-text',
    (r) =>
      table(
        [
          ['scenario', 'l', (x) => x.scenario],
          ['texts or requests/s', 'r', (x) => cell(x.perS)],
          ['p50', 'r', (x) => cell(x.p50Ms, ' ms')],
          ['p99', 'r', (x) => cell(x.p99Ms, ' ms')],
        ],
        r.scenarios,
      ),
  ],
  chaos: [
    'chaos',
    (r) =>
      table(
        [
          ['phase', 'l', (x) => x.phase],
          ['seconds', 'r', (x) => thousands(x.seconds)],
          ['requests', 'r', (x) => thousands(x.requests)],
          ['failed', 'r', (x) => thousands(x['failed (5xx/network)'])],
          ['of them non-idempotent', 'r', (x) => thousands(x['of them non-idempotent'])],
          ['p50 ms', 'r', (x) => cell(x.p50)],
          ['p95 ms', 'r', (x) => cell(x.p95)],
          ['p99 ms', 'r', (x) => cell(x.p99)],
        ],
        r.phases,
      ),
  ],
  'chaos-checks': [
    'chaos',
    (r) => {
      const c = r.reconciliation;
      const w = r.webhooks;
      const f = r.redisFailover;
      const rows = [
        ['settings', `${r.settings.users} users, ${r.settings.phaseSeconds} s phases, soak ${r.settings.soakSeconds} s, database down ${r.settings.databaseDownSeconds} s`],
        ['cards / reviews acknowledged, lost', `${thousands(c.cards)} / ${thousands(c.reviews)}; ${c.cardsLost} cards lost, ${c.cardsMissingReviews} missing reviews`],
        ['imported words, subscriptions, deletes', `${c.imported} (${c.importsLost} lost), ${c.subscriptions} (${c.subscriptionsNotActive} not active), ${thousands(c.deletes)} (${c.deletesUndone} undone)`],
        ['webhooks', `${w.expected} expected, ${w.delivered} delivered, ${w.missing} missing, ${w.doubled} applied twice, ${w.badSignatures} bad signatures`],
        ['store notifications', `${r.storeNotifications.sent} sent, ${r.storeNotifications.killed} claims SIGKILLed, ${r.storeNotifications.unapplied} unapplied`],
        ['study reminders', `${r.reminders.users} due: ${r.reminders.pushedOnce} pushed once, ${r.reminders.duplicated} twice, ${r.reminders.missed} missed`],
        ['database outage', r.databaseOutage ? `${r.databaseOutage.lostEvents} lost events, ${r.databaseOutage.accountsDeleted} accounts deleted, ${r.databaseOutage.notErased} not erased` : '–'],
        ['Redis primary SIGKILLed', `requests failed for ${fixed(f.outageMs / 1000, 1)} s (target < 5 s; ${f.failedRequests} of ${f.requests}, the last answered ${fixed(f.lastFailureMs / 1000, 1)} s after the kill); ${f.loggedOutTokensAccepted} logged-out tokens accepted; ${f.internalErrors} answers of 500`],
        ['verdict', r.verdict === 'passed' ? 'passed' : `failed: ${r.failures.join('; ')}`],
      ]; // prettier-ignore
      return table(
        [
          ['check', 'l', ([k]) => k],
          ['measured', 'l', ([, v]) => v],
        ],
        rows,
      );
    },
  ],
  'chaos-rss': [
    'chaos',
    (r) =>
      table(
        [
          ['process', 'l', (x) => x.process],
          ['soak trend (end / start)', 'r', (x) => fixed(x.ratio, 2)],
          ['peak MB', 'r', (x) => cell(x.peakMb)],
          ['Kubernetes limit MB', 'r', (x) => cell(x.limitMb)],
          [
            'peak / limit',
            'r',
            (x) => (x.peakMb && x.limitMb ? `${Math.round((100 * x.peakMb) / x.limitMb)} %` : '–'),
          ],
        ],
        r.rss ?? [],
      ),
  ],
  'ai-language-data': [
    'ai-language-data',
    (r) =>
      table(
        [
          ['check', 'l', (c) => c.check],
          ['measured', 'l', (c) => c.measured],
          ['target (met)', 'l', (c) => [c.target, c.met].filter(Boolean).join(', ') || '–'],
        ],
        r.checks,
      ),
  ],
};

const MARKER = /<!-- bench:report (\S+) (begin|end) -->/g;

/** bench/README.md with every generated block rewritten from the result files; throws on bad markers. */
async function render(text) {
  const seen = new Set();
  const out = text.replace(
    /(<!-- bench:report (\S+) begin -->)[\s\S]*?(<!-- bench:report \2 end -->)/g,
    (_, begin, name, end) => {
      const spec = TABLES[name];
      if (!spec) throw new Error(`bench/README.md: no generated table is called "${name}"`);
      seen.add(name);
      const [file, generate, runs] = spec;
      const doc = result(file);
      return `${begin}\n\n${provenance(file, runs ? runs(doc) : doc)}\n\n${generate(doc)}\n\n${end}`;
    },
  );
  const markers = [...text.matchAll(MARKER)].map((m) => m[1]);
  for (const name of Object.keys(TABLES))
    if (!seen.has(name))
      throw new Error(
        `bench/README.md: the markers of "${name}" are missing or unpaired (${markers.join(', ')})`,
      );
  const prettier = require('prettier');
  const options = (await prettier.resolveConfig(README)) ?? {};
  return prettier.format(out, { ...options, filepath: README });
}

/** The generated blocks of a README text, by name (to say which differ). */
const blocks = (text) =>
  Object.fromEntries(
    [...text.matchAll(/<!-- bench:report (\S+) begin -->([\s\S]*?)<!-- bench:report \1 end -->/g)].map(
      (m) => [m[1], m[2]],
    ),
  );

async function main() {
  const check = process.argv.includes('--check');
  const file = process.argv.find((a) => a.startsWith('--readme='))?.slice('--readme='.length) ?? README;
  const current = fs.readFileSync(file, 'utf8');
  const generated = await render(current);
  if (!check) {
    if (generated !== current) fs.writeFileSync(file, generated);
    console.log(
      `bench/README.md: ${Object.keys(TABLES).length} tables ${generated === current ? 'already up to date' : 'rewritten'}`,
    );
    return;
  }
  if (generated === current)
    return console.log('bench/README.md: every generated table matches bench/results');
  const [was, now] = [blocks(current), blocks(generated)];
  const differing = Object.keys(now).filter((name) => was[name] !== now[name]);
  console.error(
    `bench/README.md differs from what bench/results/*.json give${differing.length ? ` in: ${differing.join(', ')}` : ''}.\n` +
      'The tables between the bench:report markers are generated: run `npm run bench:report` instead of editing them.',
  );
  process.exitCode = 1;
}

module.exports = { render, TABLES };

if (require.main === module)
  main().catch((err) => {
    console.error(err.message);
    process.exitCode = 1;
  });
