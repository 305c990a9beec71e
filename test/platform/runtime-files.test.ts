import { execFileSync, spawn } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort, isolatedServiceEnv, waitFor } from '@lingua/testing';

// The image holds only what deploy/docker/collect-runtime.sh collects (plus node_modules and
// proto/). Each deployable must boot from exactly that: a file read at boot that the script leaves
// out (subscriptions' catalogue, before) makes the container exit 1. Files read only once the
// database answers are not covered here.

const ROOT = path.resolve(__dirname, '../..');
const DEPLOYABLES: [string, string][] = [
  ['services/identity', 'IDENTITY'],
  ['services/flashcards', 'FLASHCARDS'],
  ['services/subscriptions', 'SUBSCRIPTIONS'],
  ['services/ai', 'AI'],
  ['services/notifications', 'NOTIFICATIONS'],
];

let tree: string;
beforeAll(() => {
  tree = mkdtempSync(path.join(tmpdir(), 'lingua-runtime-'));
  for (const [servicePath] of DEPLOYABLES)
    execFileSync('sh', [path.join(ROOT, 'deploy/docker/collect-runtime.sh'), servicePath, tree], {
      cwd: ROOT,
    });
  cpSync(path.join(ROOT, 'proto'), path.join(tree, 'proto'), { recursive: true });
  // the repository's packages stand in for the image's production install (links to libs/ resolve
  // to the collected dist/ through each lib's package.json)
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(tree, 'node_modules'));
  for (const dir of ['libs', 'services', 'gateway'])
    execFileSync('sh', [
      '-c',
      `cd "${ROOT}" && find ${dir} -maxdepth 2 -name package.json -exec cp --parents {} "${tree}" \\;`,
    ]);
});
afterAll(() => rmSync(tree, { recursive: true, force: true }));

it.each(DEPLOYABLES)(
  'When %s starts from the collected files only, Then it answers its liveness probe',
  async (servicePath, svc) => {
    const port = await freePort();
    // no database answers there: the service reads its files, listens and waits, creating nothing
    const nowhere = `mongodb://127.0.0.1:${await freePort()}`;
    const proc = spawn(process.execPath, ['dist/main.js'], {
      cwd: path.join(tree, servicePath),
      env: {
        ...process.env,
        ...isolatedServiceEnv({ MONGO_URL: nowhere, [`${svc}_HTTP_PORT`]: String(port) }),
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    proc.stderr.on('data', (chunk) => (stderr += chunk));
    let exit: number | null | undefined;
    proc.once('exit', (code) => (exit = code));
    try {
      await waitFor(
        async () => {
          expect({ exit, stderr: stderr.slice(0, 500) }).toEqual({
            exit: undefined,
            stderr: expect.any(String),
          });
          expect((await fetch(`http://127.0.0.1:${port}/health/live`)).status).toBe(200);
        },
        { timeoutMs: 30_000 },
      );
    } finally {
      proc.kill('SIGTERM');
      if (exit === undefined) await new Promise((resolve) => proc.once('exit', resolve));
    }
  },
  60_000,
);
