import { passwordHashDuration } from '@lingua/metrics';
import type { PasswordHasher } from '../domain/password-hasher';

/**
 * The hasher, timed (lingua_identity_password_hash_duration_seconds by operation). bcrypt runs on
 * libuv's pool; under load, the time a call waits for a free thread shows here as growth over the
 * cost's own duration.
 */
export function measuredHasher(inner: PasswordHasher): PasswordHasher {
  const timed =
    <A extends unknown[], R>(operation: string, fn: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      const end = passwordHashDuration.startTimer({ operation });
      try {
        return await fn(...args);
      } finally {
        end();
      }
    };
  return { hash: timed('hash', inner.hash), verify: timed('verify', inner.verify) };
}
