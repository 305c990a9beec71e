import { channel } from 'node:diagnostics_channel';
import { AppError } from '@lingua/errors';

/**
 * Published when a budget refuses more output: `{ what, maxBytes, producedBytes }`. Lets tests and
 * operators see where a decoder stopped without the decoders knowing who listens (no cost unheard).
 */
export const DECOMPRESS_CHANNEL = 'lingua.decompress.refused';
const refused = channel(DECOMPRESS_CHANNEL);

export interface RefusedExpansion {
  what: string;
  maxBytes: number;
  /** Output produced before the refusal, the chunk that crossed the limit included. */
  producedBytes: number;
}

const mb = (bytes: number) => `${Math.round((bytes / 1024 / 1024) * 10) / 10} MB`;

/**
 * The most bytes one piece of client input may expand to, counted over every decoder that works on
 * it (all frames, all archive entries, all layers), so that no header, frame or entry count can
 * raise it. One budget per request or upload.
 */
export class OutputBudget {
  private produced = 0;

  /** @param what names the input in messages ("The Anki package", "The request body"). */
  constructor(
    readonly maxBytes: number,
    readonly what: string,
  ) {}

  get usedBytes(): number {
    return this.produced;
  }

  /** Counts `bytes` more output; throws 413 as soon as the total passes the limit. */
  spend(bytes: number): void {
    this.produced += bytes;
    if (this.produced > this.maxBytes) {
      if (refused.hasSubscribers)
        refused.publish({
          what: this.what,
          maxBytes: this.maxBytes,
          producedBytes: this.produced,
        } satisfies RefusedExpansion);
      throw this.tooLarge();
    }
  }

  /** Refuses input whose own header already declares more than the budget (before decoding it). */
  checkDeclared(bytes: number): void {
    if (bytes > this.maxBytes - this.produced) throw this.tooLarge();
  }

  private tooLarge(): AppError {
    return new AppError(
      'PAYLOAD_TOO_LARGE',
      `${this.what} is larger than ${mb(this.maxBytes)} decompressed`,
      {
        details: { max_bytes: this.maxBytes },
      },
    );
  }
}

/** Input a decoder cannot read: the client's mistake (400). */
export function malformed(what: string, format: string, cause?: unknown): AppError {
  return new AppError('INVALID_INPUT', `${what} is not valid ${format} data`, {
    ...(cause !== undefined && { cause }),
  });
}

/** True for the 400 of `malformed` (callers may put their own words on it). */
export const isMalformed = (err: unknown): err is AppError =>
  err instanceof AppError && err.code === 'INVALID_INPUT';
