import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

// The lanes (npm run test:unit, test:integration, test:platform, test:chaos) split what `npm test`
// runs; this keeps them honest: a test file no configuration picks up would be silently dropped
// from every run, and one in two lanes or in none would make a lane's green mean less.

const ROOT = path.resolve(__dirname, '../..');
const JEST = require.resolve('jest/bin/jest');

/** The files jest would run with this configuration, relative to the repository root. */
function listed(config: string): string[] {
  const out = execFileSync(process.execPath, [JEST, '--listTests', '--json', '-c', config], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  return (JSON.parse(out) as string[]).map((f) => path.relative(ROOT, f)).sort();
}

/** Every test file in the repository, wherever it sits. */
function testFiles(dir = ROOT): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory())
      return ['node_modules', 'dist', '.git', '.data'].includes(entry.name) ? [] : testFiles(full);
    return /\.(test|spec)\.[cm]?[jt]sx?$/.test(entry.name) ? [path.relative(ROOT, full)] : [];
  });
}

/** The configuration file each npm script passes to jest (`-c x` or `--config x`). */
function configsOf(script: string): string[] {
  return [...script.matchAll(/jest(?:\s+(?:-c|--config)[ =](\S+))?(?=\s|$)/g)].map(
    (m) => m[1] ?? 'jest.config.js',
  );
}

const scripts = (
  JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
    scripts: Record<string, string>;
  }
).scripts;

const LANES = {
  'test:unit': 'test/lanes/unit.config.js',
  'test:integration': 'test/lanes/integration.config.js',
  'test:platform': 'test/lanes/platform.config.js',
  'test:chaos': 'test/chaos/jest.config.js',
  'test:containers': 'test/containers/jest.config.js',
};

describe('test lanes', () => {
  const run = Object.fromEntries(
    [...new Set(['jest.config.js', ...Object.values(LANES)])].map((c) => [c, listed(c)]),
  );

  it('When each lane script is read, Then it runs its lane configuration, and npm test runs the main and chaos ones', () => {
    for (const [script, config] of Object.entries(LANES))
      expect(configsOf(scripts[script] ?? '')).toEqual([config]);
    expect(configsOf(scripts.test ?? '')).toEqual(['jest.config.js', 'test/chaos/jest.config.js']);
  });

  it('When every test file is looked for, Then each is run by npm test or by test:containers', () => {
    const run_ = new Set([
      ...run['jest.config.js']!,
      ...run['test/chaos/jest.config.js']!,
      ...run['test/containers/jest.config.js']!,
    ]);
    expect(testFiles().filter((f) => !run_.has(f))).toEqual([]);
  });

  it("When the unit, integration and platform lanes are put together, Then they run npm test's main run, each file once", () => {
    const lanes = [
      run['test/lanes/unit.config.js']!,
      run['test/lanes/integration.config.js']!,
      run['test/lanes/platform.config.js']!,
    ];
    for (const lane of lanes) expect(lane.length).toBeGreaterThan(0);
    const all = lanes.flat().sort();
    expect(all.filter((f, i) => all[i - 1] === f)).toEqual([]); // in two lanes
    expect(all).toEqual(run['jest.config.js']);
  });

  it('When a unit-lane file is read, Then it reaches for no server of the shared infrastructure', () => {
    // what the component tests use to find or make things on FerretDB, NATS and Redis, or to run them
    const serverHelpers =
      /(?<![.\w])(mongoUrl|natsUrl|redisUrl|uniqueName|startNatsServer|startFerretDb|startPrivateRedis|startNginxIngress)\b/;
    const reaching = run['test/lanes/unit.config.js']!.filter(
      (f) =>
        f !== 'test/lanes/lanes.test.ts' && serverHelpers.test(fs.readFileSync(path.join(ROOT, f), 'utf8')),
    );
    expect(reaching).toEqual([]);
  });
});
