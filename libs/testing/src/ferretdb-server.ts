import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { startRestartableProcess } from './restartable-process';

/** The binary deploy/local/infra.sh builds (see there for why it is built, not downloaded). */
export function ferretDbBinary(): string {
  const dir = process.env.LINGUA_TOOLS_DIR ?? path.join(homedir(), '.cache', 'lingua-tools');
  const bin = path.join(dir, 'ferretdb-v1.24.2');
  if (!existsSync(bin))
    throw new Error(`FerretDB not found at ${bin}; run \`npm run infra:up\` once to build it`);
  return bin;
}

/** A private FerretDB on SQLite, for tests that take the database away and bring it back. */
export async function startFerretDb() {
  const proc = await startRestartableProcess(ferretDbBinary(), (port, dir) => [
    '--handler=sqlite',
    `--sqlite-url=file:${dir}/`,
    `--state-dir=${dir}`,
    `--listen-addr=127.0.0.1:${port}`,
    '--debug-addr=',
    '--telemetry=disable',
    '--log-level=error',
  ]);
  return { ...proc, url: `mongodb://127.0.0.1:${proc.port}` };
}
