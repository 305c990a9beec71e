// The capacity model (`npm run capacity`, scripts/capacity.js) on the committed bench results
// (bench/results/journey.json, reminders.json): the three tables it prints, how its figures grow with
// the users, and that docs/operations/capacity.md carries what it prints now.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const capacity = require('../../scripts/capacity');

const root = path.resolve(__dirname, '../..');
const script = path.join(root, 'scripts/capacity.js');
const readJson = (file: string) => JSON.parse(fs.readFileSync(path.join(root, file), 'utf8'));

const SERVICES = ['gateway', 'identity', 'flashcards', 'subscriptions', 'ai', 'notifications'];
const STATEFUL = ['Redis', 'NATS JetStream', 'database primary'];

interface Size {
  dau: number;
  peakCallsPerS: number;
  services: { name: string; pods: number; cores: number; memoryGb: number }[];
  redis: { commandsPerS: number; memoryGb: number; use: number };
  nats: { messagesPerS: number; use: number };
  db: { operationsPerS: number; cores: number; storageGbPerDay: number; use: number };
  firstToSaturate: { name: string; use: number; atDau: number };
}

describe('capacity model', () => {
  it('When npm run capacity runs on the committed bench results, Then it prints a table for 100,000, 1,000,000 and 10,000,000 daily users, each naming the first component to saturate', () => {
    const out = execFileSync(process.execPath, [script], { cwd: root, encoding: 'utf8' });

    const sections = out.split(/^### /m).slice(1);
    expect(sections.map((s) => s.split('\n')[0])).toEqual([
      '100,000 daily active users',
      '1,000,000 daily active users',
      '10,000,000 daily active users',
    ]);
    for (const section of sections) {
      const rows = section
        .split('\n')
        .filter((l) => l.startsWith('|'))
        .map((l) =>
          l
            .split('|')
            .slice(1, -1)
            .map((c) => c.trim()),
        );
      expect(rows[0]).toEqual([
        'component',
        'pods',
        'cores',
        'memory',
        'load at the peak',
        'use of one node',
      ]);
      const body = rows.slice(2);
      expect(body.map((r) => r[0].split(' ')[0])).toEqual([...SERVICES, 'Redis', 'NATS', 'database']);
      for (const r of body) {
        expect(r).toHaveLength(6);
        expect(r.every((c) => c.length > 0)).toBe(true);
      }
      // every service has pods and memory; the stateful rows their use of one node
      for (const r of body.slice(0, SERVICES.length)) {
        expect(Number(r[1])).toBeGreaterThanOrEqual(2);
        expect(r[3]).toMatch(/^[\d.,]+ GB$/);
      }
      for (const r of body.slice(SERVICES.length)) expect(r[5]).toMatch(/^\d+ %$/);
      const first = /First to saturate: \*\*([^*]+)\*\*/.exec(section)?.[1];
      expect(STATEFUL).toContain(first);
    }
  });

  it('When the daily users grow tenfold, Then no pod count, core, memory, load or storage figure shrinks, and the first to saturate is the most used node', () => {
    const result = capacity.model(
      readJson('bench/results/journey.json'),
      readJson('bench/results/reminders.json'),
    );
    const sizes: Size[] = result.sizes;
    expect(sizes.map((s) => s.dau)).toEqual([100_000, 1_000_000, 10_000_000]);

    for (const [small, large] of [
      [sizes[0], sizes[1]],
      [sizes[1], sizes[2]],
    ] as [Size, Size][]) {
      expect(large.peakCallsPerS).toBeCloseTo(small.peakCallsPerS * 10, 6);
      large.services.forEach((s, i) => {
        expect(s.pods).toBeGreaterThanOrEqual(small.services[i].pods);
        expect(s.cores).toBeGreaterThanOrEqual(small.services[i].cores);
        expect(s.memoryGb).toBeGreaterThanOrEqual(small.services[i].memoryGb);
      });
      expect(large.redis.commandsPerS).toBeGreaterThan(small.redis.commandsPerS);
      expect(large.redis.memoryGb).toBeGreaterThan(small.redis.memoryGb);
      expect(large.nats.messagesPerS).toBeGreaterThan(small.nats.messagesPerS);
      expect(large.db.operationsPerS).toBeGreaterThan(small.db.operationsPerS);
      expect(large.db.storageGbPerDay).toBeGreaterThan(small.db.storageGbPerDay);
      expect(large.firstToSaturate.use).toBeGreaterThan(small.firstToSaturate.use);
    }
    for (const s of sizes) {
      const uses = { Redis: s.redis.use, 'NATS JetStream': s.nats.use, 'database primary': s.db.use };
      expect(s.firstToSaturate.use).toBe(Math.max(...Object.values(uses)));
      expect(uses[s.firstToSaturate.name as keyof typeof uses]).toBe(s.firstToSaturate.use);
      // linear in the users: the node is full where its use reaches 100 %
      expect(s.firstToSaturate.atDau).toBeCloseTo(s.dau / s.firstToSaturate.use, 0);
    }
    // at the largest size the busiest service needs more than the minimum of two pods
    expect(Math.max(...sizes[2].services.map((s) => s.pods))).toBeGreaterThan(2);
  });

  it('When docs/operations/capacity.md is checked, Then it carries the tables the model prints now', () => {
    const check = spawnSync(process.execPath, [script, '--check'], { cwd: root, encoding: 'utf8' });

    expect(check.stderr).toBe('');
    expect(check.status).toBe(0);
    const doc = fs.readFileSync(path.join(root, 'docs/operations/capacity.md'), 'utf8');
    const out = execFileSync(process.execPath, [script], { cwd: root, encoding: 'utf8' });
    for (const heading of out.match(/^### .+$/gm) ?? []) expect(doc).toContain(heading);
  });
});
