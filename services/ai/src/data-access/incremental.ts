/**
 * Work done in slices: a generator that yields between slices. `step()` runs one slice (for a
 * background warm-up that gives the event loop back between slices, so health checks and requests
 * are answered meanwhile); `result()` finishes whatever is left at once (a request that needs the
 * data now) and returns the outcome.
 */
export interface Incremental<T> {
  /** runs one slice; true when the work is done */
  step(): boolean;
  result(): T;
}

export function incremental<T>(work: () => Generator<void, T>): Incremental<T> {
  let generator: Generator<void, T> | undefined;
  let done = false;
  let value: T;
  const advance = () => {
    generator ??= work();
    const next = generator.next();
    if (next.done) {
      done = true;
      value = next.value;
    }
  };
  return {
    step() {
      if (!done) advance();
      return done;
    },
    result() {
      while (!done) advance();
      return value;
    },
  };
}
