import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort, waitFor } from '@lingua/testing';

export const ROOT = path.resolve(__dirname, '../..');
export const RULES_DIR = path.join(ROOT, 'deploy/prometheus/rules');
export const RULE_TESTS_DIR = path.join(ROOT, 'deploy/prometheus/tests');

/** Debian's prometheus package puts both binaries in /usr/bin; `npm test` installs it (infra.sh --test-tools). */
export function prometheusBinary(name: 'prometheus' | 'promtool'): string {
  for (const dir of (process.env.PATH ?? '').split(':').concat('/usr/bin', '/usr/sbin')) {
    const candidate = path.join(dir, name);
    if (dir && fs.existsSync(candidate)) return candidate;
  }
  throw new Error(
    `${name} not found: run \`bash deploy/local/infra.sh up --test-tools\` (Debian package prometheus)`,
  );
}

export function promtool(args: string[], input?: string) {
  const r = spawnSync(prometheusBinary('promtool'), args, { input, encoding: 'utf8', cwd: ROOT });
  return { status: r.status, output: `${r.stdout ?? ''}${r.stderr ?? ''}` };
}

export interface ScrapeTarget {
  job: string;
  /** host:port of the /metrics endpoint */
  address: string;
}

export interface RunningPrometheus {
  url: string;
  /** PromQL instant query over the HTTP API; resolves to the result vector. */
  query(expr: string): Promise<{ metric: Record<string, string>; value: [number, string] }[]>;
  stop(): Promise<void>;
}

/**
 * A real Prometheus on a free port with a generated scrape config (one job per target, 1 s scrapes)
 * and the repository's rule files, in a temporary directory removed on stop. The rule groups'
 * evaluation interval is shortened to 1 s in the copy, so recording rules produce series within
 * the test's deadlines; the expressions are the files' own.
 */
export async function startPrometheus(targets: ScrapeTarget[]): Promise<RunningPrometheus> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lingua-prometheus-'));
  const rules: string[] = [];
  for (const file of fs.readdirSync(RULES_DIR).filter((f) => f.endsWith('.yml'))) {
    const copy = path.join(dir, file);
    fs.writeFileSync(
      copy,
      fs.readFileSync(path.join(RULES_DIR, file), 'utf8').replace(/interval: \w+/g, 'interval: 1s'),
    );
    rules.push(copy);
  }
  const config = [
    'global:',
    '  scrape_interval: 1s',
    '  scrape_timeout: 1s',
    '  evaluation_interval: 1s',
    'rule_files:',
    ...rules.map((r) => `  - ${JSON.stringify(r)}`),
    'scrape_configs:',
    ...targets.flatMap((t) => [
      `  - job_name: ${JSON.stringify(t.job)}`,
      '    static_configs:',
      `      - targets: [${JSON.stringify(t.address)}]`,
    ]),
  ].join('\n');
  fs.writeFileSync(path.join(dir, 'prometheus.yml'), config);
  const port = await freePort();
  let log = '';
  const child: ChildProcess = spawn(
    prometheusBinary('prometheus'),
    [
      `--config.file=${path.join(dir, 'prometheus.yml')}`,
      `--storage.tsdb.path=${path.join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=warn',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  child.stdout?.on('data', (d: Buffer) => (log += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (log += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await exited;
    }
    fs.rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitFor(
      async () => {
        if (child.exitCode !== null) throw new Error(`prometheus exited: ${log}`);
        expect((await fetch(`${url}/-/ready`)).status).toBe(200);
      },
      { timeoutMs: 30_000, intervalMs: 200 },
    );
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    url,
    async query(expr) {
      const res = await fetch(`${url}/api/v1/query?query=${encodeURIComponent(expr)}`);
      const body = (await res.json()) as { status: string; error?: string; data: { result: never[] } };
      if (body.status !== 'success') throw new Error(`${expr}: ${body.error}`);
      return body.data.result;
    },
    stop,
  };
}
