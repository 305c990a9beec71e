import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { constants, gunzipSync, inflateRawSync } from 'node:zlib';

/** Random access to the text of a dictd `.dict.dz` (or plain `.dict`) file. */
export interface DictText {
  /** `length` bytes of the uncompressed text from `offset`, as UTF-8 */
  read(offset: number, length: number): string;
  close(): void;
}

/** Inflated chunks kept per file (64 KB each: 4 MB): a headword's entries lie scattered in the text. */
const CACHED_CHUNKS = 64;

const FTEXT_FLAGS = { FHCRC: 2, FEXTRA: 4, FNAME: 8, FCOMMENT: 16 } as const;

interface RandomAccess {
  chunkLength: number;
  /** file offset of each compressed chunk, plus the end of the last */
  chunkStarts: number[];
}

/**
 * The dictzip header: a gzip member whose FEXTRA field holds an "RA" subfield (version 1, the
 * uncompressed chunk length, the chunk count, then each chunk's compressed size). Chunks are deflated
 * with a full flush between them, so each one inflates on its own. Undefined when the file is not
 * dictzip (plain gzip): the caller then inflates it whole.
 */
export function parseDictzipHeader(head: Buffer): RandomAccess | undefined {
  if (head.length < 10 || head[0] !== 0x1f || head[1] !== 0x8b || head[2] !== 8) return undefined;
  const flags = head[3]!;
  if (!(flags & FTEXT_FLAGS.FEXTRA)) return undefined;
  const xlen = head.readUInt16LE(10);
  let pos = 12;
  const extraEnd = pos + xlen;
  let ra: { chunkLength: number; sizes: number[] } | undefined;
  while (pos + 4 <= extraEnd) {
    const si1 = head[pos]!;
    const si2 = head[pos + 1]!;
    const len = head.readUInt16LE(pos + 2);
    if (si1 === 0x52 && si2 === 0x41 && head.readUInt16LE(pos + 4) === 1) {
      const chunkLength = head.readUInt16LE(pos + 6);
      const count = head.readUInt16LE(pos + 8);
      const sizes = Array.from({ length: count }, (_, i) => head.readUInt16LE(pos + 10 + 2 * i));
      ra = { chunkLength, sizes };
    }
    pos += 4 + len;
  }
  if (!ra) return undefined;
  pos = extraEnd;
  if (flags & FTEXT_FLAGS.FNAME) pos = head.indexOf(0, pos) + 1;
  if (flags & FTEXT_FLAGS.FCOMMENT) pos = head.indexOf(0, pos) + 1;
  if (flags & FTEXT_FLAGS.FHCRC) pos += 2;
  const chunkStarts = [pos];
  for (const size of ra.sizes) chunkStarts.push(chunkStarts.at(-1)! + size);
  return { chunkLength: ra.chunkLength, chunkStarts };
}

/**
 * Opens a dictd body. A dictzip file is read chunk by chunk through one file descriptor (the recently used chunks are kept), so even the 60 MB German texts cost no memory up front; a plain
 * gzip file is inflated once; an uncompressed `.dict` is read as is.
 */
export function openDictText(path: string): DictText {
  const fd = openSync(path, 'r');
  const size = fstatSync(fd).size;
  const headLength = Math.min(size, 1 << 17); // the RA table of a 64 MB text is about 2 × 3 600 bytes
  const head = Buffer.alloc(headLength);
  readSync(fd, head, 0, headLength, 0);
  if (head[0] !== 0x1f || head[1] !== 0x8b) {
    return {
      read(offset, length) {
        const out = Buffer.alloc(length);
        const n = readSync(fd, out, 0, length, offset);
        return out.subarray(0, n).toString('utf8');
      },
      close: () => closeSync(fd),
    };
  }
  const ra = parseDictzipHeader(head);
  if (!ra) {
    const whole = Buffer.alloc(size);
    readSync(fd, whole, 0, size, 0);
    closeSync(fd);
    const text = gunzipSync(whole);
    return { read: (offset, length) => text.subarray(offset, offset + length).toString('utf8'), close() {} };
  }
  const recent = new Map<number, Buffer>();
  const chunk = (i: number): Buffer => {
    const hit = recent.get(i);
    if (hit) {
      recent.delete(i);
      recent.set(i, hit);
      return hit;
    }
    const start = ra.chunkStarts[i]!;
    const compressed = Buffer.alloc(ra.chunkStarts[i + 1]! - start);
    readSync(fd, compressed, 0, compressed.length, start);
    const plain = inflateRawSync(compressed, { finishFlush: constants.Z_SYNC_FLUSH });
    recent.set(i, plain);
    if (recent.size > CACHED_CHUNKS) recent.delete(recent.keys().next().value!);
    return plain;
  };
  const chunkCount = ra.chunkStarts.length - 1;
  return {
    read(offset, length) {
      const first = Math.floor(offset / ra.chunkLength);
      const last = Math.min(chunkCount - 1, Math.floor((offset + length - 1) / ra.chunkLength));
      const parts: Buffer[] = [];
      for (let i = first; i <= last; i++) parts.push(chunk(i));
      const joined = parts.length === 1 ? parts[0]! : Buffer.concat(parts);
      const from = offset - first * ra.chunkLength;
      return joined.subarray(from, from + length).toString('utf8');
    },
    close: () => closeSync(fd),
  };
}
