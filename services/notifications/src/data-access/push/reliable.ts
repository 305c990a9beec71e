import { setTimeout as sleep } from 'node:timers/promises';
import {
  type PushMessage,
  type PushOutcome,
  type PushSender,
  pushRetryDelayMs,
} from '../../domain/push-sender';

export interface ReliabilityOptions {
  /** Attempts per message, the first included. */
  maxAttempts: number;
  /** Requests in flight to this provider at once, across every caller of this replica. */
  concurrency: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** A Retry-After longer than this is not waited for here: the outcome is `retry` with it. */
  maxWaitMs: number;
  random?: () => number;
}

/**
 * One provider made safe to call at any rate: at most `concurrency` requests in flight (the others
 * queue in order), and `retry` outcomes (429, 5xx, network) tried again after a back-off that
 * honours Retry-After, up to `maxAttempts`. A waiting retry does not hold a slot.
 */
export function reliablePushSender(
  provider: { send(m: PushMessage): Promise<PushOutcome> },
  options: ReliabilityOptions,
): PushSender {
  const limit = concurrencyLimit(options.concurrency);
  return {
    async send(message) {
      for (let attempt = 1; ; attempt++) {
        const result = await limit(() => provider.send(message));
        if (result.outcome !== 'retry' || attempt >= options.maxAttempts) return result;
        const delay = pushRetryDelayMs(
          attempt,
          result.retryAfterMs,
          { baseMs: options.baseDelayMs, maxMs: options.maxDelayMs },
          options.random,
        );
        if (delay > options.maxWaitMs) return result;
        await sleep(delay);
      }
    },
  };
}

/** A FIFO bound on concurrent calls (p-limit's behaviour, without a dependency for ten lines). */
export function concurrencyLimit(max: number) {
  let active = 0;
  const queue: (() => void)[] = [];
  return async <T>(task: () => Promise<T>): Promise<T> => {
    if (active >= max) await new Promise<void>((resolve) => queue.push(resolve));
    else active++;
    try {
      return await task();
    } finally {
      const next = queue.shift();
      if (next)
        next(); // the slot passes straight to the next waiter
      else active--;
    }
  };
}
