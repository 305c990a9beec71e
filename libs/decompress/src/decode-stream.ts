import { Readable, type Transform } from 'node:stream';
import {
  constants,
  createBrotliDecompress,
  createGunzip,
  createInflate,
  createInflateRaw,
  createZstdDecompress,
} from 'node:zlib';
import { isAppError } from '@lingua/errors';
import { malformed, type OutputBudget } from './budget';

/** The content codings we decode: HTTP's (RFC 9110 §8.4.1, `deflate` = zlib format) and raw deflate (zip). */
export const CONTENT_CODINGS = ['identity', 'gzip', 'deflate', 'deflate-raw', 'br', 'zstd'] as const;
export type ContentCoding = (typeof CONTENT_CODINGS)[number];

export const isContentCoding = (value: string): value is ContentCoding =>
  (CONTENT_CODINGS as readonly string[]).includes(value);

/** Output chunk of the decoders: the budget is checked at least this often. */
const CHUNK_BYTES = 64 * 1024;
/**
 * zstd frames name their window, which the decoder allocates: 2^25 (32 MB) is above what zstd's
 * levels 1-19 use (at most 2^23) and below the library's default cap (2^27).
 */
const ZSTD_WINDOW_LOG_MAX = 25;

type Source = Iterable<Uint8Array> | AsyncIterable<Uint8Array>;

function decoderFor(coding: Exclude<ContentCoding, 'identity'>): Transform {
  const options = { chunkSize: CHUNK_BYTES };
  switch (coding) {
    case 'gzip':
      return createGunzip(options); // every member of a multi-member file
    case 'deflate':
      return createInflate(options);
    case 'deflate-raw':
      return createInflateRaw(options);
    case 'br':
      return createBrotliDecompress(options);
    case 'zstd':
      return createZstdDecompress({
        ...options,
        params: { [constants.ZSTD_d_windowLogMax]: ZSTD_WINDOW_LOG_MAX },
      });
  }
}

const FORMAT_NAMES: Record<ContentCoding, string> = {
  identity: 'uncompressed',
  gzip: 'gzip',
  deflate: 'deflate',
  'deflate-raw': 'deflate',
  br: 'brotli',
  zstd: 'zstd',
};

/**
 * Decodes `source` as it arrives, asynchronously (node:zlib works on the thread pool and waits for
 * the reader), and counts every output chunk against `budget`: it stops with 413 once the output
 * passes the budget, whatever the input's headers declared, and with 400 on input it cannot decode.
 * Errors of the source itself (a client gone) pass as they are. Stopping early (return, throw)
 * destroys the decoder and the source.
 */
export async function* decodeStream(
  source: Source,
  coding: ContentCoding,
  budget: OutputBudget,
): AsyncGenerator<Buffer> {
  if (coding === 'identity') {
    for await (const chunk of source) {
      budget.spend(chunk.byteLength);
      yield Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    }
    return;
  }
  if (coding === 'zstd') {
    yield* zstdFrames(source, budget);
    return;
  }
  yield* run(decoderFor(coding), source, coding, budget);
}

/** Reads the whole decoded output into one buffer (the budget bounds its size). */
export async function decodeAll(
  source: Source | Uint8Array,
  coding: ContentCoding,
  budget: OutputBudget,
): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const chunk of decodeStream(source instanceof Uint8Array ? [source] : source, coding, budget))
    parts.push(chunk);
  return Buffer.concat(parts);
}

async function* run(
  decoder: Transform,
  source: Source,
  coding: ContentCoding,
  budget: OutputBudget,
): AsyncGenerator<Buffer> {
  let sourceError: unknown;
  async function* watched() {
    try {
      yield* source;
    } catch (err) {
      sourceError = err ?? new Error('source failed');
      throw err;
    }
  }
  const input = Readable.from(watched(), { objectMode: false });
  input.on('error', (err) => decoder.destroy(err));
  input.pipe(decoder);
  try {
    for await (const chunk of decoder as AsyncIterable<Buffer>) {
      budget.spend(chunk.length);
      yield chunk;
    }
  } catch (err) {
    if (sourceError !== undefined) throw sourceError;
    if (isAppError(err)) throw err;
    throw malformed(budget.what, FORMAT_NAMES[coding], err);
  } finally {
    input.destroy();
    decoder.destroy();
  }
}

/**
 * node:zlib's zstd decoder ends at the end of the first frame; a zstd file may hold several
 * (RFC 8878 §3.1): each frame gets a decoder of its own, started where the previous one stopped
 * reading (`bytesWritten`). The compressed input is held whole for that, within the budget too.
 */
async function* zstdFrames(source: Source, budget: OutputBudget): AsyncGenerator<Buffer> {
  const parts: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of source) {
    size += chunk.byteLength;
    // compressed input larger than the output may be is not worth holding
    if (size > budget.maxBytes) budget.checkDeclared(size);
    parts.push(chunk);
  }
  const data = Buffer.concat(parts);
  parts.length = 0;
  if (data.length === 0) throw malformed(budget.what, 'zstd');
  for (let offset = 0; offset < data.length;) {
    const decoder = decoderFor('zstd') as Transform & { bytesWritten: number };
    yield* run(decoder, [data.subarray(offset)], 'zstd', budget);
    if (decoder.bytesWritten === 0) throw malformed(budget.what, 'zstd');
    offset += decoder.bytesWritten;
  }
}
