import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { startRestartableProcess } from './restartable-process';

const FERRETDB_VERSION = 'v2.7.0';

/** The binary deploy/local/infra.sh builds (see there for why it is built, not downloaded). */
export function ferretDbBinary(): string {
  const dir = process.env.LINGUA_TOOLS_DIR ?? path.join(homedir(), '.cache', 'lingua-tools');
  const bin = path.join(dir, `ferretdb-${FERRETDB_VERSION}`);
  if (!existsSync(bin))
    throw new Error(`FerretDB not found at ${bin}; run \`npm run infra:up\` once to build it`);
  return bin;
}

/** The private PostgreSQL cluster with DocumentDB that infra.sh runs (`infra.sh pg-url`). */
export const documentDbUrl = () =>
  process.env.LINGUA_PG_URL ?? `postgres://lingua@127.0.0.1:${process.env.LINGUA_PG_PORT ?? 55432}/lingua`;

/**
 * A FerretDB process of the test's own in front of the shared PostgreSQL cluster, for tests that take
 * the database away (stop) and bring it back (start). FerretDB keeps no data itself, so a restart is
 * exactly what a service sees when its database server restarts.
 */
export async function startFerretDb() {
  const proc = await startRestartableProcess(ferretDbBinary(), (port, dir) => [
    `--postgresql-url=${documentDbUrl()}`,
    '--no-auth',
    `--state-dir=${dir}`,
    `--listen-addr=127.0.0.1:${port}`,
    '--debug-addr=',
    '--telemetry=disable',
    '--log-level=error',
  ]);
  return { ...proc, url: `mongodb://127.0.0.1:${proc.port}` };
}
