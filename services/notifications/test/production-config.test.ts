import { generateCallKeys } from '@lingua/grpc';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../../..');

// The built entry points (npm test builds first), started as a supervisor would: the development
// defaults (public keys, sandbox verifiers, private webhook targets) need an explicit NODE_ENV.
function boot(entry: string, env: Record<string, string | undefined>) {
  const merged: NodeJS.ProcessEnv = { ...process.env, ...env };
  for (const [k, v] of Object.entries(merged)) if (v === undefined) delete merged[k];
  return spawnSync(process.execPath, [path.join(ROOT, entry)], {
    env: merged,
    encoding: 'utf8',
    timeout: 20_000,
  });
}

describe('environment at boot', () => {
  it('When NODE_ENV is missing, Then notifications and subscriptions exit 1 naming it', () => {
    for (const entry of ['services/notifications/dist/main.js', 'services/subscriptions/dist/main.js']) {
      const run = boot(entry, { NODE_ENV: undefined });
      expect(run.status).toBe(1);
      expect(run.stderr).toMatch(
        /NODE_ENV: missing: set NODE_ENV=production, development or test explicitly/,
      );
    }
  });

  it('When a secret is one of the repository placeholders, Then the service exits 1 naming it, in development too', () => {
    const run = boot('services/notifications/dist/main.js', {
      NODE_ENV: 'development',
      NOTIFICATIONS_ASSERTION_KEY: 'ci-placeholder-assertion-key-0123456789',
    });
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/NOTIFICATIONS_ASSERTION_KEY: is a placeholder published in this repository/);
  });

  it('When production allows private webhook targets, Then notifications exits 1 naming WEBHOOK_ALLOW_PRIVATE_URLS', () => {
    const run = boot('services/notifications/dist/main.js', {
      NODE_ENV: 'production',
      NOTIFICATIONS_ASSERTION_KEY: randomBytes(32).toString('hex'),
      NOTIFICATIONS_GRPC_SIGNING_KEY: generateCallKeys().signingKey,
      EMAIL_LINK_KEY: randomBytes(32).toString('base64'),
      SMTP_HOST: 'smtp.example.com',
      MAIL_FROM: 'Lingua <no-reply@example.com>',
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
    });
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/WEBHOOK_ALLOW_PRIVATE_URLS: must not be true when NODE_ENV=production/);
  });
});
