import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import path from 'node:path';
import { freePort, waitForPort } from './nats-server';

/** The binary deploy/local/infra.sh builds (see there for why it is built, not downloaded). */
export function ferretDbBinary(): string {
  const dir = process.env.LINGUA_TOOLS_DIR ?? path.join(homedir(), '.cache', 'lingua-tools');
  const bin = path.join(dir, 'ferretdb-v1.24.2');
  if (!existsSync(bin))
    throw new Error(`FerretDB not found at ${bin}; run \`npm run infra:up\` once to build it`);
  return bin;
}

/**
 * A private FerretDB, for tests that must take the database away and bring it back; its SQLite
 * files survive stop/start like a real restart.
 */
export async function startFerretDb() {
  const port = await freePort();
  const dataDir = mkdtempSync(path.join(tmpdir(), 'lingua-ferretdb-'));
  let proc: ChildProcess | undefined;
  const start = async () => {
    proc = spawn(
      ferretDbBinary(),
      [
        '--handler=sqlite',
        `--sqlite-url=file:${dataDir}/`,
        `--state-dir=${dataDir}`,
        `--listen-addr=127.0.0.1:${port}`,
        '--debug-addr=',
        '--telemetry=disable',
        '--log-level=error',
      ],
      { stdio: 'ignore' },
    );
    await waitForPort(port, 15_000);
  };
  const stop = async () => {
    const p = proc;
    proc = undefined;
    if (!p || p.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      p.once('exit', () => resolve());
      p.kill('SIGTERM');
    });
  };
  await start();
  return {
    url: `mongodb://127.0.0.1:${port}`,
    start,
    stop,
    async dispose() {
      await stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
