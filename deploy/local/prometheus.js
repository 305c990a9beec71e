// A local Prometheus over the stack `npm start` runs (LINGUA_PROMETHEUS=1 npm start): Debian's
// prometheus binary, scraping each process's metrics port on 127.0.0.1, with the repository's
// rules and alerts, data in $LINGUA_DATA_DIR/prometheus. Off by default.
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '../..');
const DEPLOYABLES = [
  ['gateway', 'GATEWAY_METRICS_PORT', 9400],
  ['identity', 'IDENTITY_METRICS_PORT', 9401],
  ['flashcards', 'FLASHCARDS_METRICS_PORT', 9402],
  ['subscriptions', 'SUBSCRIPTIONS_METRICS_PORT', 9403],
  ['ai', 'AI_METRICS_PORT', 9404],
  ['notifications', 'NOTIFICATIONS_METRICS_PORT', 9405],
];

function binary() {
  for (const dir of [...(process.env.PATH ?? '').split(':'), '/usr/bin']) {
    const candidate = path.join(dir, 'prometheus');
    if (dir && fs.existsSync(candidate)) return candidate;
  }
  return undefined;
}

/** Starts Prometheus on PROMETHEUS_PORT (default 9090); resolves to { url, stop() }. */
async function startLocalPrometheus(env = process.env) {
  const bin = binary();
  if (!bin) throw new Error('prometheus not found: bash deploy/local/infra.sh up --test-tools installs it');
  const dir = path.join(env.LINGUA_DATA_DIR ?? path.join(ROOT, '.data'), 'prometheus');
  fs.mkdirSync(dir, { recursive: true });
  const config = [
    'global: { scrape_interval: 5s, evaluation_interval: 15s }',
    `rule_files: [${JSON.stringify(path.join(ROOT, 'deploy/prometheus/rules/*.yml'))}]`,
    'scrape_configs:',
    ...DEPLOYABLES.map(
      ([name, variable, port]) =>
        `  - { job_name: lingua-${name}, static_configs: [{ targets: ['127.0.0.1:${env[variable] ?? port}'] }] }`,
    ),
  ].join('\n');
  fs.writeFileSync(path.join(dir, 'prometheus.yml'), `${config}\n`);
  const port = Number(env.PROMETHEUS_PORT ?? 9090);
  const child = spawn(
    bin,
    [
      `--config.file=${path.join(dir, 'prometheus.yml')}`,
      `--storage.tsdb.path=${path.join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=warn',
    ],
    { stdio: ['ignore', 'inherit', 'inherit'] },
  );
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`prometheus exited with ${child.exitCode}`);
    try {
      if ((await fetch(`${url}/-/ready`)).ok) break;
    } catch {
      /* not up yet */
    }
    if (Date.now() > deadline) {
      child.kill('SIGTERM');
      throw new Error(`prometheus not ready on ${url} after 30 s`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return {
    url,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

module.exports = { startLocalPrometheus };
