import { spawnSync } from 'node:child_process';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');

// Runs the built entry point (npm test builds first), as a supervisor would.
function boot(entry: string, env: Record<string, string | undefined>) {
  const merged: NodeJS.ProcessEnv = { ...process.env, ...env };
  for (const [k, v] of Object.entries(merged)) if (v === undefined) delete merged[k];
  return spawnSync(process.execPath, [path.join(ROOT, entry)], {
    env: merged,
    encoding: 'utf8',
    timeout: 20_000,
  });
}

describe('configuration at boot', () => {
  it('When a service gets a malformed port, Then it exits with code 1 naming the variable', () => {
    const run = boot('services/identity/dist/main.js', { IDENTITY_HTTP_PORT: 'eighty' });
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/IDENTITY_HTTP_PORT/);
  });

  it('When production runs without JWT_SECRET, Then the service refuses to start and says why', () => {
    const run = boot('services/flashcards/dist/main.js', { NODE_ENV: 'production', JWT_SECRET: undefined });
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/JWT_SECRET: .*required when NODE_ENV=production/);
  });

  it('When the gateway gets a bad service URL, Then it exits with code 1 naming the variable', () => {
    const run = boot('gateway/dist/main.js', { AI_HTTP_URL: 'not a url' });
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/AI_HTTP_URL/);
  });
});
