import { type AsyncFlateStreamHandler, Unzip, type UnzipDecoder, type UnzipFile } from 'fflate';
import { isAppError } from '@lingua/errors';
import { malformed, type OutputBudget } from './budget';
import { ChunkQueue } from './chunk-queue';
import { decodeStream } from './decode-stream';

type Source = Iterable<Uint8Array> | AsyncIterable<Uint8Array>;

export interface UnzipOptions {
  /** Entries to decode; the others are skipped without being decoded or kept. */
  select(name: string): boolean;
  /** Counts the decoded bytes of every selected entry together. */
  budget: OutputBudget;
  /**
   * Receives each selected entry's decoded bytes as they are inflated; must read them to the end
   * (or throw). Runs while the archive still arrives.
   */
  onEntry(name: string, content: AsyncIterable<Buffer>): Promise<void>;
}

/**
 * fflate's streaming Unzip reads the archive's structure (local headers, data descriptors of
 * streamed archives); these decoders only hand the entry's bytes on as they are, so that inflating
 * happens in decodeStream (node:zlib, asynchronous, counted) and never in one synchronous step.
 */
function passThrough(compression: number) {
  return class implements UnzipDecoder {
    static readonly compression = compression;
    ondata: AsyncFlateStreamHandler = () => undefined;
    push(chunk: Uint8Array, final: boolean) {
      // fflate hands over slices of its own (never shared) buffers
      this.ondata(null, chunk as Uint8Array<ArrayBuffer>, final);
    }
  };
}
const STORED = 0;
/** A local file header (PK\x03\x04) or the end record of an empty archive (PK\x05\x06). */
const isZipStart = (chunk: Uint8Array) =>
  chunk[0] === 0x50 &&
  chunk[1] === 0x4b &&
  ((chunk[2] === 3 && chunk[3] === 4) || (chunk[2] === 5 && chunk[3] === 6));
const DEFLATE = 8;

/**
 * Unzips an archive as it arrives and passes the selected entries, inflated and counted against
 * one budget, to `onEntry`. 413 once the selected entries together pass the budget (or an entry's
 * header declares more than is left of it), 400 for a broken archive or an entry compressed by
 * another method than stored or deflate. Errors of the source pass as they are.
 */
export async function unzip(source: Source, options: UnzipOptions): Promise<void> {
  const { budget } = options;
  let failure: unknown;
  const fail = (err: unknown) => {
    failure ??= err;
  };
  const open: ChunkQueue[] = [];
  // one entry read at a time, in archive order: entries never decode side by side, so the budget
  // is passed by at most one decoder's chunk (later entries' compressed bytes wait in their queues)
  let readers: Promise<void> = Promise.resolve();

  const onFile = (entry: UnzipFile) => {
    if (failure !== undefined) return;
    if (!options.select(entry.name)) {
      // started with nowhere to go, so the parser does not keep its bytes
      entry.ondata = () => undefined;
      try {
        entry.start();
      } catch {
        // a compression method we never decode: its bytes are skipped all the same
      }
      return;
    }
    if (entry.compression !== STORED && entry.compression !== DEFLATE) {
      fail(malformed(budget.what, 'zip', `entry ${entry.name}: compression method ${entry.compression}`));
      return;
    }
    try {
      if (entry.originalSize !== undefined) budget.checkDeclared(entry.originalSize);
    } catch (err) {
      fail(err);
      return;
    }
    const queue = new ChunkQueue();
    open.push(queue);
    entry.ondata = (err, chunk, final) => {
      if (err) return queue.fail(malformed(budget.what, 'zip', err));
      queue.push(chunk);
      if (final) queue.end();
    };
    const content = decodeStream(queue, entry.compression === DEFLATE ? 'deflate-raw' : 'identity', budget);
    readers = readers.then(() =>
      failure === undefined
        ? options.onEntry(entry.name, content).catch((err: unknown) => {
            fail(err);
            queue.fail(err);
          })
        : undefined,
    );
    entry.start();
  };

  const unzipper = new Unzip(onFile);
  unzipper.register(passThrough(STORED));
  unzipper.register(passThrough(DEFLATE));
  const push = (chunk: Uint8Array, final: boolean) => {
    try {
      unzipper.push(chunk, final);
    } catch (err) {
      fail(isAppError(err) ? err : malformed(budget.what, 'zip', err));
    }
    if (failure !== undefined) throw failure;
  };
  // fflate reads anything without zip signatures as an empty archive: the first bytes must be zip's
  let head: Uint8Array | undefined = new Uint8Array(0);
  try {
    for await (const chunk of source) {
      if (head) {
        head = Buffer.concat([head, chunk]);
        if (head.byteLength < 4) continue;
        if (!isZipStart(head)) throw malformed(budget.what, 'zip');
        push(head, false);
        head = undefined;
      } else push(chunk, false);
    }
    if (head) throw malformed(budget.what, 'zip');
    push(new Uint8Array(0), true);
    // an entry the archive ended in the middle of
    for (const queue of open)
      if (queue.isOpen) queue.fail(malformed(budget.what, 'zip', 'the archive ends inside an entry'));
  } catch (err) {
    for (const queue of open) queue.fail(err);
    await readers;
    throw err;
  }
  await readers;
  if (failure !== undefined) throw failure;
}
