import { freePort, isolatedServiceEnv } from '@lingua/testing';

// The launcher is plain CommonJS (it runs before anything is built), so it is required as is.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { startStack } = require('../../deploy/local/start-stack.js') as {
  startStack(o: { env: Record<string, string>; infra: boolean; quiet: boolean }): Promise<{
    stop(): Promise<void>;
  }>;
};

describe('the local launcher (start-stack.js), quiet as the tests and benches run it', () => {
  it('When a process exits during start-up, Then the error names it with the last lines of its log', async () => {
    const env = isolatedServiceEnv({
      GATEWAY_PORT: String(await freePort()),
      SMTP_PORT: String(await freePort()),
      FLASHCARDS_HTTP_PORT: 'not-a-port',
    });
    await expect(startStack({ env, infra: false, quiet: true })).rejects.toThrow(
      /flashcards exited \(1\) during start-up; its last log lines:[\s\S]*FLASHCARDS_HTTP_PORT/,
    );
  }, 60_000);
});
