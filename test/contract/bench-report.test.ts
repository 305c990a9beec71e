import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

// One home for every figure (issue 42): the tables of bench/README.md are generated from the benches'
// result files (bench/results/*.json) by `npm run bench:report`. This test runs its check, so a figure
// edited by hand in a generated table, or a run whose tables were not regenerated, fails the unit
// lane. It needs nothing started.

const ROOT = path.resolve(__dirname, '../..');
const README = path.join(ROOT, 'bench/README.md');

const check = (...args: string[]) =>
  spawnSync(process.execPath, [path.join(ROOT, 'scripts/bench-report.js'), '--check', ...args], {
    cwd: ROOT,
    encoding: 'utf8',
  });

describe('bench/README.md tables generated from bench/results', () => {
  it('When the check runs, Then every generated table matches its result file', () => {
    const run = check();
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
  });

  it('When a figure in a generated table is edited by hand, Then the check fails and names the table', () => {
    const text = fs.readFileSync(README, 'utf8');
    const begin = text.indexOf('<!-- bench:report assertion begin -->');
    expect(begin).toBeGreaterThan(-1);
    const edited = text.slice(0, begin) + text.slice(begin).replace('6.52', '5.52');
    expect(edited).not.toBe(text);
    const copy = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'bench-report-')), 'README.md');
    fs.writeFileSync(copy, edited);
    try {
      const run = check(`--readme=${copy}`);
      expect(run.status).toBe(1);
      expect(run.stderr).toContain('in: assertion');
    } finally {
      fs.rmSync(path.dirname(copy), { recursive: true, force: true });
    }
  });

  it('When every result file is read, Then each carries the date of its figures or, transcribed, their source', () => {
    for (const file of fs.readdirSync(path.join(ROOT, 'bench/results')).filter((f) => f.endsWith('.json'))) {
      const doc = JSON.parse(fs.readFileSync(path.join(ROOT, 'bench/results', file), 'utf8'));
      const dates = doc.date
        ? [doc.date]
        : Object.values(doc.sizes ?? doc.runs ?? {}).map((r) => (r as { date?: string }).date);
      const dated = dates.length > 0 && dates.every(Boolean);
      expect({ file, provenance: dated || /^transcribed from /.test(doc.source ?? '') }).toEqual({
        file,
        provenance: true,
      });
    }
  });
});
