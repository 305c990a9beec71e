// Plumbing shared by the benchmarks: free ports, a built service in its own process, percentiles.
const net = require('node:net');
const { spawn } = require('node:child_process');

const freePort = () =>
  new Promise((resolve, reject) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });

/**
 * Runs `script` (a service's dist/main.js, or a bench script in service mode) in its own process
 * with `env`, and resolves once `${url}${healthPath}` answers 200.
 */
async function startProcess({
  script,
  args = [],
  env,
  port,
  name,
  healthPath = '/health/ready',
  stdio,
  tries = 300,
}) {
  const child = spawn(process.execPath, [script, ...args], {
    env: { ...process.env, LOG_LEVEL: 'warn', ...env },
    stdio: stdio ?? ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < tries; i++) {
    if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode}`);
    try {
      if ((await fetch(`${url}${healthPath}`, { signal: AbortSignal.timeout(2_000) })).ok)
        return { url, child };
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  child.kill();
  throw new Error(`${name} did not become ready`);
}

/** The p-th percentile of an ascending array. */
const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

module.exports = { freePort, startProcess, percentile };
