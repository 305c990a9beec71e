import { createLogger } from '@lingua/logger';
import { untilAvailable } from './until-available';

const logger = createLogger('until-available-test', { level: 'silent' });

describe('untilAvailable', () => {
  it('When the attempt hangs and the start is aborted (SIGTERM while starting), Then the wait ends at once with the reason', async () => {
    const starting = new AbortController();
    const never = new Promise<never>(() => undefined);
    const waiting = untilAvailable('database', () => never, { logger, signal: starting.signal });
    // the attempt is under way and hangs: the abort comes while it waits
    const t = performance.now();
    starting.abort(new Error('SIGTERM while starting'));
    await expect(waiting).rejects.toThrow('SIGTERM while starting');
    expect(performance.now() - t).toBeLessThan(1_000);
  });

  it('When the dependency comes up after failures, Then the attempt result is returned', async () => {
    let n = 0;
    const value = await untilAvailable(
      'database',
      async () => {
        if (++n < 3) throw new Error('down');
        return 'up';
      },
      { logger, firstDelayMs: 1, signal: new AbortController().signal },
    );
    expect([value, n]).toEqual(['up', 3]);
  });
});
