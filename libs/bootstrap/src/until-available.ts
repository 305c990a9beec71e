import { setTimeout as delay } from 'node:timers/promises';
import type { Logger } from '@lingua/logger';

export interface RetryOptions {
  logger: Logger;
  /** Aborting (SIGTERM while starting) ends the wait with the signal's reason. */
  signal?: AbortSignal | undefined;
  firstDelayMs?: number;
  maxDelayMs?: number;
}

/**
 * Runs `attempt` until it succeeds, with exponential back-off (0.5 s doubling up to 15 s by default),
 * logging each failure: a dependency that is down at start keeps the process alive and not ready
 * (Kubernetes holds it out of the Service) instead of exiting into a crash loop.
 */
export async function untilAvailable<T>(
  what: string,
  attempt: () => Promise<T>,
  options: RetryOptions,
): Promise<T> {
  const max = options.maxDelayMs ?? 15_000;
  let wait = options.firstDelayMs ?? 500;
  for (let n = 1; ; n++) {
    options.signal?.throwIfAborted();
    try {
      return await (options.signal ? unlessAborted(attempt(), options.signal) : attempt());
    } catch (err) {
      options.signal?.throwIfAborted();
      options.logger.warn({ err, attempt: n, retryInMs: wait }, `${what} unavailable at start; retrying`);
      await delay(wait, undefined, options.signal ? { signal: options.signal } : {});
      wait = Math.min(max, wait * 2);
    }
  }
}

/**
 * `work`, or the abort's reason as soon as `signal` aborts: a SIGTERM while an attempt hangs (a
 * driver waiting on a socket that never answers) ends the start instead of waiting for it — the
 * process exits, and with it whatever the attempt holds.
 */
function unlessAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err);
      },
    );
  });
}
