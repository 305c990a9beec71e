/** Polls until the assertion stops throwing (for effects that arrive asynchronously, e.g. events). */
export async function waitFor<T>(
  assertion: () => T | Promise<T>,
  options: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<T> {
  const deadline = Date.now() + (options.timeoutMs ?? 10_000);
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      return await assertion();
    } catch (err) {
      lastError = err;
      await new Promise((r) => setTimeout(r, options.intervalMs ?? 50));
    }
  }
  throw lastError;
}
