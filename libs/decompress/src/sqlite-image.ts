import { malformed, type OutputBudget } from './budget';

const HEADER_BYTES = 100;
const MAGIC = Buffer.from('SQLite format 3\0', 'latin1');

/**
 * The size a SQLite database file declares in its header (https://www.sqlite.org/fileformat.html
 * §1.3): page size × page count, when the count is valid (non-zero and written by the same
 * version as the change counter); undefined when it is not. Throws 400 for a file that is not
 * SQLite at all.
 */
export function sqliteDeclaredBytes(header: Uint8Array, what: string): number | undefined {
  const h = Buffer.from(header.buffer, header.byteOffset, header.byteLength);
  if (h.length < HEADER_BYTES || !h.subarray(0, MAGIC.length).equals(MAGIC)) throw malformed(what, 'SQLite');
  const rawPageSize = h.readUInt16BE(16);
  const pageSize = rawPageSize === 1 ? 65_536 : rawPageSize;
  if (pageSize < 512 || pageSize > 65_536 || (pageSize & (pageSize - 1)) !== 0)
    throw malformed(what, 'SQLite');
  const pages = h.readUInt32BE(28);
  const valid = pages > 0 && h.readUInt32BE(24) === h.readUInt32BE(92);
  return valid ? pages * pageSize : undefined;
}

/**
 * Reads a SQLite database file from decoded chunks into one buffer, checking its header as soon
 * as it has arrived: 400 for what is not SQLite, 413 when the size it declares is beyond the
 * budget (before the rest is decoded), 400 when more bytes come than it declared. The bytes
 * themselves are counted by the decoder that produced them.
 */
export async function readSqliteImage(
  chunks: AsyncIterable<Uint8Array>,
  budget: OutputBudget,
): Promise<Buffer> {
  const parts: Uint8Array[] = [];
  let size = 0;
  let declared: number | undefined;
  let checked = false;
  for await (const chunk of chunks) {
    parts.push(chunk);
    size += chunk.byteLength;
    if (!checked && size >= HEADER_BYTES) {
      checked = true;
      const head = Buffer.concat(parts);
      parts.length = 0;
      parts.push(head);
      declared = sqliteDeclaredBytes(head, budget.what);
      if (declared !== undefined) budget.checkDeclared(declared - size);
    }
    if (declared !== undefined && size > declared) throw malformed(budget.what, 'SQLite');
  }
  if (!checked) throw malformed(budget.what, 'SQLite');
  return Buffer.concat(parts);
}
