import { aiProviderCalls, aiProviderDuration, secondsSince } from '@lingua/metrics';
import type { AiProvider } from '../domain/providers/ai-provider';

/**
 * The provider with every method counted and timed (lingua_ai_provider_calls_total by provider,
 * operation and outcome; lingua_ai_provider_call_duration_seconds). The operation label is the
 * method's name, so the label set is the interface's methods and nothing else.
 */
export function measuredProvider(provider: string, inner: AiProvider): AiProvider {
  const wrapped = new Map<PropertyKey, unknown>();
  return new Proxy(inner, {
    get(target, prop, receiver) {
      const value: unknown = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function' || typeof prop !== 'string') return value;
      if (!wrapped.has(prop)) {
        const fn = value as (...args: unknown[]) => unknown;
        const labels = { provider, operation: prop };
        const done = (started: bigint, outcome: 'ok' | 'error') => {
          aiProviderCalls.inc({ ...labels, outcome });
          aiProviderDuration.observe(labels, secondsSince(started));
        };
        wrapped.set(prop, function (this: unknown, ...args: unknown[]) {
          const started = process.hrtime.bigint();
          let result: unknown;
          try {
            result = fn.apply(this === receiver ? target : this, args);
          } catch (err) {
            done(started, 'error');
            throw err;
          }
          if (result instanceof Promise)
            return result.then(
              (v) => (done(started, 'ok'), v),
              (err: unknown) => {
                done(started, 'error');
                throw err;
              },
            );
          done(started, 'ok');
          return result;
        });
      }
      return wrapped.get(prop);
    },
  });
}
