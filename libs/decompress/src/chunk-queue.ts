/**
 * Chunks handed over by a synchronous producer (a parser's callback) to an async reader. Once the
 * reader stops, further chunks are dropped rather than kept.
 */
export class ChunkQueue implements AsyncIterable<Uint8Array> {
  private readonly chunks: Uint8Array[] = [];
  private ended = false;
  private failure: unknown;
  private closed = false;
  private wake: (() => void) | undefined;

  get isOpen(): boolean {
    return !this.ended && this.failure === undefined && !this.closed;
  }

  push(chunk: Uint8Array): void {
    if (!this.isOpen) return;
    // the parser may reuse its buffer after the callback: keep a copy
    if (chunk.byteLength > 0) this.chunks.push(chunk.slice());
    this.notify();
  }

  end(): void {
    this.ended = true;
    this.notify();
  }

  fail(err: unknown): void {
    if (!this.isOpen) return;
    this.failure = err;
    this.notify();
  }

  private notify() {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Uint8Array> {
    try {
      for (;;) {
        const chunk = this.chunks.shift();
        if (chunk) {
          yield chunk;
          continue;
        }
        if (this.failure !== undefined) throw this.failure;
        if (this.ended) return;
        await new Promise<void>((resolve) => (this.wake = resolve));
      }
    } finally {
      this.closed = true;
      this.chunks.length = 0;
    }
  }
}
