/**
 * For `pipeline(body, res).catch(ignoreClientGone)` on a streamed answer: the client going away
 * mid-download (ERR_STREAM_PREMATURE_CLOSE) is not a server error; anything else (the source
 * failing) still is, and reaches the error handler (which closes the half-sent answer).
 */
export function ignoreClientGone(err: unknown): void {
  if ((err as { code?: unknown } | undefined)?.code === 'ERR_STREAM_PREMATURE_CLOSE') return;
  throw err;
}
