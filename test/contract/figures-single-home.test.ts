import fs from 'node:fs';
import path from 'node:path';

// One home for every figure (issue 42): a measured figure (a number with a unit) is written in one
// hand-written document; any other document links to that place (a bench/results/*.json file, or the
// one table) instead of copying the number, so copies cannot drift apart. This test reads the
// hand-written markdown and fails when the same figure appears in two files. It needs nothing started.
//
// What counts as a figure: a number followed by a unit (µs, ms, s, min, h, KB, MB, MiB, GB, req/s, %,
// ×). Not measurements, so not checked:
// - text in code (fenced blocks and `inline code`: commands, variables) and link targets;
// - a number a comparator or a target/setting word introduces ("< 20 ms", "≤ 3 ms", "target 60 s",
//   "budget of 10 µs", "every 500 ms", "after 1 s", "up to 50 MB"), or a variable's value in
//   parentheses after it ("`WEBHOOK_TIMEOUT_MS` (15 s)"): targets and settings, stated where decided;
// - a whole round number of seconds, minutes, hours or bytes (one significant digit, or a usual
//   setting: 12, 15, 16, 24, 32, 40, 64, 128, 256, 512): timeouts, schedules, windows and size limits
//   (retries after 30 s, 2 h, 5 h; a 10 MB upload limit) repeat wherever they matter, and measured
//   durations and sizes carry decimals, ranges or other digits;
// - zero, HTTP statuses in the plural ("503s"), and the explicit allow-list below;
// - blocks generated from a result file (between bench:report or capacity markers): that file is their home.

const ROOT = path.resolve(__dirname, '../..');

/** Settings and targets that are not measurements but read like them; each says why it may repeat. */
const ALLOWED: Record<string, string> = {
  '99.9%': 'the availability SLO (a target), named wherever the SLO is discussed',
  '200ms': 'the latency SLO threshold and the spec’s latency figure (targets)',
};

const UNIT = '(µs|us|ms|s|min|h|KB|kB|KiB|MB|MiB|GB|GiB|req\\/s|%|×)(?![\\p{L}\\p{N}])';
const NUMBER = '\\d{1,3}(?:,\\d{3})+(?:\\.\\d+)?|\\d+(?:\\.\\d+)?';
const FIGURE = new RegExp(
  `(^|[^\\p{L}\\p{N}.,/\\-–])((?:${NUMBER})(?:\\s?(?:[–-]|to \\+?)\\s?(?:${NUMBER}))?)\\s?${UNIT}`,
  'gu',
);
/** A whole round number of seconds, minutes, hours or bytes: a timeout, a schedule, a window, a limit. */
const ROUND_SETTING = /^(?:[1-9]0*|12|15|16|24|32|40|64|128|256|512)(?:s|min|h|KB|kB|KiB|MB|MiB|GB|GiB)$/u;
/** Words right after a number that make it a setting: "a 10 µs budget", "10 ms ticks", "6× over 6 h". */
const SETTING_AFTER =
  /^\s*(?:budget|limit|timeout|window|interval|ticks|slices?|phases?|deadline|cap|apart|semi-spaces|jitter|over)\b/iu;
/** Words right before a number that make it a target or a setting, not a measurement. */
const SETTING_BEFORE =
  /(?:[<>≤≥±]|`…` ?[(—=:,]|\b(?:target|targets|under|within|below|above|limit|default|defaults|every|after|at most|at least|budget|budget of|budget of about|up to|cap|capped at|timeout|than|over|for|at|slices? of))\s*~?$/iu;

function handWrittenMarkdown(): string[] {
  const files: string[] = [];
  const walk = (dir: string) => {
    if (!fs.existsSync(dir)) return;
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith('.md')) files.push(full);
    }
  };
  for (const file of ['README.md', 'bench/README.md', 'gateway/README.md']) files.push(path.join(ROOT, file));
  for (const service of fs.readdirSync(path.join(ROOT, 'services'))) {
    const readme = path.join(ROOT, 'services', service, 'README.md');
    if (fs.existsSync(readme)) files.push(readme);
    walk(path.join(ROOT, 'services', service, 'docs'));
  }
  walk(path.join(ROOT, 'docs'));
  return files.filter((f) => fs.existsSync(f));
}

/** Measured figures of a markdown text, normalised ("1,234.5 ms" → "1234.5ms"). */
function figuresOf(markdown: string): Set<string> {
  const prose = markdown
    // blocks a script writes from a result file (npm run bench:report, npm run capacity -- --write):
    // their figures live in that file, and their small round percentages match prose by chance
    .replace(/<!-- bench:report (\S+) begin -->[\s\S]*?<!-- bench:report \1 end -->/g, '')
    .replace(/<!-- capacity:begin[^>]*-->[\s\S]*?<!-- capacity:end -->/g, '')
    .replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '') // fenced code
    .replace(/<!--[\s\S]*?-->/g, '') // comments
    .replace(/`[^`\n]*`/g, '`…`') // inline code
    .replace(/\]\([^)]*\)/g, ']()'); // link targets (file names with numbers)
  const found = new Set<string>();
  for (const match of prose.matchAll(FIGURE)) {
    const before = prose
      .slice(Math.max(0, match.index! - 24), match.index! + match[1]!.length)
      .replace(/\s+/g, ' ');
    const after = prose
      .slice(match.index! + match[0].length, match.index! + match[0].length + 16)
      .replace(/\s+/g, ' ');
    if (SETTING_BEFORE.test(before) || SETTING_AFTER.test(after)) continue;
    const figure = `${match[2]!.replace(/,|\s/g, '').replace(/to\+?|-/, '–')}${match[3] === 'us' ? 'µs' : match[3]}`;
    if (/^0+(\.0+)?\D/.test(figure)) continue; // zero of anything is not a measurement to keep in step
    if (ROUND_SETTING.test(figure)) continue;
    if (/^[1-5]\d\ds$/.test(figure)) continue; // HTTP statuses in the plural (503s)
    found.add(figure);
  }
  return found;
}

function duplicatedFigures(files: Record<string, string>): Map<string, string[]> {
  const homes = new Map<string, string[]>();
  for (const [file, text] of Object.entries(files))
    for (const figure of figuresOf(text)) homes.set(figure, [...(homes.get(figure) ?? []), file]);
  return new Map([...homes].filter(([figure, where]) => where.length > 1 && !(figure in ALLOWED)));
}

describe('one home for every figure', () => {
  it('When two hand-written documents state the same measured figure, Then the check names it and both files', () => {
    const found = duplicatedFigures({
      'a.md': 'The gateway uses 78 µs of CPU per request; p95 < 20 ms; `BENCH_SECONDS` 5 s.',
      'b.md': 'About 78 µs a request (see a.md), every 20 ms, 99.9 % of requests.',
      'c.md': '```sh\nsleep 78µs\n```\n99.9 % non-5xx',
      'd.md': '<!-- bench:report gateway begin -->\n| 78 µs |\n<!-- bench:report gateway end -->',
      'e.md': '<!-- capacity:begin (generated) -->\n78 µs\n<!-- capacity:end -->',
    });
    expect([...found]).toEqual([['78µs', ['a.md', 'b.md']]]);
  });

  it('When the docs are read, Then no measured figure is written in two of them (link the one place instead)', () => {
    const files = Object.fromEntries(
      handWrittenMarkdown().map((f) => [path.relative(ROOT, f), fs.readFileSync(f, 'utf8')]),
    );
    expect(Object.keys(files).length).toBeGreaterThan(10);
    const report = [...duplicatedFigures(files)].map(([figure, where]) => `${figure}: ${where.join(', ')}`);
    expect(report).toEqual([]);
  });
});
