import { randomBytes } from 'node:crypto';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import {
  brotliCompressSync,
  constants,
  deflateSync,
  gzipSync,
  zstdCompressSync,
  createZstdCompress,
} from 'node:zlib';
import { Zip, ZipDeflate, zipSync, strToU8 } from 'fflate';
import { AppError } from '@lingua/errors';
import {
  DECOMPRESS_CHANNEL,
  OutputBudget,
  type RefusedExpansion,
  decodeAll,
  decodeStream,
  readSqliteImage,
  unzip,
} from './index';

const MB = 1024 * 1024;
const zeros = (n: number) => Buffer.alloc(n);

/** A zstd frame written by a streaming encoder: no Frame_Content_Size in its header. */
async function zstdStreamed(data: Buffer): Promise<Buffer> {
  const encoder = createZstdCompress();
  const out: Buffer[] = [];
  encoder.on('data', (c: Buffer) => out.push(c));
  const done = new Promise((resolve) => encoder.on('end', resolve));
  encoder.end(data);
  await done;
  return Buffer.concat(out);
}

/** What the budget refused, as published on the diagnostics channel. */
function watchRefusals() {
  const seen: RefusedExpansion[] = [];
  const listener = (message: unknown) => seen.push(message as RefusedExpansion);
  subscribe(DECOMPRESS_CHANNEL, listener);
  return { seen, stop: () => unsubscribe(DECOMPRESS_CHANNEL, listener) };
}

async function refusal(promise: Promise<unknown>): Promise<AppError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AppError);
  return err as AppError;
}

describe('OutputBudget', () => {
  it('When output stays within the limit, Then it is counted; past it, Then 413 with the limit', () => {
    const budget = new OutputBudget(100, 'The body');
    budget.spend(60);
    budget.spend(40);
    expect(budget.usedBytes).toBe(100);
    expect(() => budget.spend(1)).toThrow(AppError);
    try {
      budget.spend(1);
    } catch (err) {
      expect((err as AppError).status).toBe(413);
      expect((err as AppError).code).toBe('PAYLOAD_TOO_LARGE');
      expect((err as AppError).details).toEqual({ max_bytes: 100 });
    }
  });

  it('When a header declares more than is left of the budget, Then 413 before anything is decoded', () => {
    const budget = new OutputBudget(100, 'The body');
    budget.spend(30);
    expect(() => budget.checkDeclared(70)).not.toThrow();
    expect(() => budget.checkDeclared(71)).toThrow(/larger than/);
  });
});

describe('decodeStream', () => {
  const text = Buffer.from('Der Hund läuft. '.repeat(5000));

  it.each([
    ['gzip', gzipSync(text)],
    ['deflate', deflateSync(text)],
    ['br', brotliCompressSync(text)],
    ['zstd', zstdCompressSync(text)],
    ['identity', text],
  ] as const)('When %s input is within the budget, Then it decodes to the original', async (coding, data) => {
    const budget = new OutputBudget(MB, 'The body');
    expect(await decodeAll(data, coding, budget)).toEqual(text);
    expect(budget.usedBytes).toBe(text.length);
  });

  it('When a file holds several gzip members or zstd frames, Then all of them are decoded and counted', async () => {
    const a = Buffer.from('hello ');
    const b = Buffer.from('world');
    expect(
      (
        await decodeAll(Buffer.concat([gzipSync(a), gzipSync(b)]), 'gzip', new OutputBudget(MB, 'x'))
      ).toString(),
    ).toBe('hello world');
    const frames = Buffer.concat([zstdCompressSync(a), await zstdStreamed(b), zstdCompressSync(a)]);
    const budget = new OutputBudget(MB, 'x');
    expect((await decodeAll(frames, 'zstd', budget)).toString()).toBe('hello worldhello ');
    expect(budget.usedBytes).toBe(17);
  });

  it.each([
    ['gzip', () => gzipSync(zeros(64 * MB), { level: 9 })],
    ['deflate', () => deflateSync(zeros(64 * MB), { level: 9 })],
    ['br', () => brotliCompressSync(zeros(64 * MB), { params: { [constants.BROTLI_PARAM_QUALITY]: 5 } })],
    ['zstd', () => zstdCompressSync(zeros(64 * MB))],
  ] as const)(
    'When %s input expands past the budget (a bomb), Then decoding stops there with 413',
    async (coding, make) => {
      const bomb = make();
      expect(bomb.length).toBeLessThan(200_000);
      const watch = watchRefusals();
      try {
        const budget = new OutputBudget(MB, 'The body');
        const err = await refusal(decodeAll(bomb, coding, budget));
        expect(err.status).toBe(413);
        // stopped at the first chunk past the limit, not at the 64 MB the input holds
        expect(budget.usedBytes).toBeLessThanOrEqual(MB + 64 * 1024);
        expect(watch.seen).toEqual([{ what: 'The body', maxBytes: MB, producedBytes: budget.usedBytes }]);
      } finally {
        watch.stop();
      }
    },
  );

  it('When zstd frames declare no content size, or each stays small but together they pass the budget, Then 413', async () => {
    const noSize = await zstdStreamed(zeros(32 * MB));
    expect(noSize[4]! >> 6).toBe(0); // Frame_Content_Size_Flag 0: the size is not declared
    const one = new OutputBudget(MB, 'x');
    expect((await refusal(decodeAll(noSize, 'zstd', one))).status).toBe(413);
    expect(one.usedBytes).toBeLessThanOrEqual(MB + 64 * 1024);

    const small = zstdCompressSync(zeros(256 * 1024));
    const many = new OutputBudget(MB, 'x');
    expect((await refusal(decodeAll(Buffer.concat(Array(20).fill(small)), 'zstd', many))).status).toBe(413);
    expect(many.usedBytes).toBeLessThanOrEqual(MB + 256 * 1024);
  });

  it('When a bomb is decoded, Then the event loop keeps turning meanwhile (no synchronous inflate)', async () => {
    let turns = 0;
    const timer = setInterval(() => turns++, 0);
    try {
      await refusal(decodeAll(gzipSync(zeros(64 * MB)), 'gzip', new OutputBudget(16 * MB, 'x')));
    } finally {
      clearInterval(timer);
    }
    expect(turns).toBeGreaterThan(1);
  });

  it.each([
    ['gzip', Buffer.from('not gzip at all')],
    ['gzip', gzipSync(text).subarray(0, 100)],
    ['deflate', Buffer.from('not deflate')],
    ['br', Buffer.from([0xff, 0xff, 0xff, 0xff])],
    ['zstd', Buffer.from('not zstd, no magic')],
    ['zstd', zstdCompressSync(text).subarray(0, 20)],
    ['zstd', Buffer.alloc(0)],
  ] as const)('When %s input is malformed or truncated, Then 400', async (coding, data) => {
    const err = await refusal(decodeAll(data, coding, new OutputBudget(MB, 'The body')));
    expect(err.status).toBe(400);
    expect(err.message).toMatch(/^The body is not valid/);
  });

  it('When the source itself fails (the client went away), Then its error passes as it is', async () => {
    const gone = new Error('aborted');
    async function* source() {
      yield gzipSync(text).subarray(0, 50);
      throw gone;
    }
    await expect(decodeAll(source(), 'gzip', new OutputBudget(MB, 'x'))).rejects.toBe(gone);
  });

  it('When the reader stops early, Then the source is not read further', async () => {
    let pulled = 0;
    function* source() {
      const data = gzipSync(randomBytes(MB));
      for (let i = 0; i < data.length; i += 100) {
        pulled++;
        yield data.subarray(i, i + 100);
      }
    }
    for await (const chunk of decodeStream(source(), 'gzip', new OutputBudget(64 * MB, 'x'))) {
      expect(chunk.length).toBeGreaterThan(0);
      break;
    }
    expect(pulled).toBeLessThan(1_000); // of 10 000
  });
});

describe('unzip', () => {
  async function entries(
    archive: Uint8Array | Uint8Array[],
    budget: OutputBudget,
    select: (name: string) => boolean = () => true,
  ) {
    const seen: Record<string, Buffer> = {};
    await unzip(Array.isArray(archive) ? archive : [archive], {
      select,
      budget,
      onEntry: async (name, content) => {
        const parts: Buffer[] = [];
        for await (const chunk of content) parts.push(chunk);
        seen[name] = Buffer.concat(parts);
      },
    });
    return seen;
  }

  /** An archive written as a stream: sizes only in data descriptors after each entry. */
  function streamed(files: Record<string, Uint8Array>): Uint8Array[] {
    const parts: Uint8Array[] = [];
    const zip = new Zip((err, chunk) => {
      if (err) throw err;
      parts.push(chunk);
    });
    for (const [name, data] of Object.entries(files)) {
      const entry = new ZipDeflate(name);
      zip.add(entry);
      entry.push(data, true);
    }
    zip.end();
    return parts;
  }

  it('When entries are stored or deflated, Then the selected ones arrive inflated and the others are skipped', async () => {
    const archive = zipSync({
      'a.txt': [strToU8('alpha '.repeat(1000)), { level: 6 }],
      'b.bin': [strToU8('beta'), { level: 0 }],
      'media/1.jpg': [zeros(100_000), { level: 6 }],
    });
    const budget = new OutputBudget(MB, 'The package');
    const seen = await entries(archive, budget, (n) => !n.startsWith('media/'));
    expect(Object.keys(seen).sort()).toEqual(['a.txt', 'b.bin']);
    expect(seen['a.txt']!.toString()).toBe('alpha '.repeat(1000));
    expect(seen['b.bin']!.toString()).toBe('beta');
    expect(budget.usedBytes).toBe(6004);
  });

  it('When an archive arrives in small pieces with sizes after the data, Then it is read all the same', async () => {
    const parts = streamed({ 'x.txt': strToU8('x'.repeat(70_000)), 'y.txt': strToU8('yy') });
    const bytes = Buffer.concat(parts);
    const pieces = Array.from({ length: Math.ceil(bytes.length / 7) }, (_, i) =>
      bytes.subarray(i * 7, i * 7 + 7),
    );
    const seen = await entries(pieces, new OutputBudget(MB, 'x'));
    expect(seen['x.txt']!.length).toBe(70_000);
    expect(seen['y.txt']!.toString()).toBe('yy');
  });

  it('When a zip entry inflates past the budget with no size declared, Then inflating stops there with 413', async () => {
    const budget = new OutputBudget(MB, 'The package');
    const err = await refusal(entries(streamed({ 'c.bin': zeros(64 * MB) }), budget));
    expect(err.status).toBe(413);
    expect(budget.usedBytes).toBeLessThanOrEqual(MB + 64 * 1024);
  });

  it('When each entry is small but the entries together pass the budget, Then 413', async () => {
    const files = Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`f${i}`, zeros(200 * 1024)]));
    const budget = new OutputBudget(MB, 'The package');
    expect((await refusal(entries(streamed(files), budget))).status).toBe(413);
    expect(budget.usedBytes).toBeLessThanOrEqual(MB + 64 * 1024);
  });

  it('When an entry declares more than the budget, Then 413 before it is inflated', async () => {
    const budget = new OutputBudget(MB, 'The package');
    expect((await refusal(entries(zipSync({ big: zeros(2 * MB) }), budget))).status).toBe(413);
    expect(budget.usedBytes).toBe(0);
  });

  it.each([
    ['not a zip', [strToU8('hello, not a zip at all, just some text here')]],
    [
      'cut inside an entry',
      [zipSync({ a: [strToU8('abc'.repeat(10_000)), { level: 0 }] }).subarray(0, 5_000)],
    ],
    [
      'an entry compressed by another method',
      (() => {
        const z = zipSync({ a: [strToU8('abc'), { level: 0 }] });
        z[8] = 12; // bzip2
        return [z];
      })(),
    ],
  ])('When the archive is %s, Then 400', async (_what, parts) => {
    const err = await refusal(entries(parts, new OutputBudget(MB, 'The package')));
    expect(err.status).toBe(400);
  });

  it('When the reader of an entry fails, Then unzip fails with its error', async () => {
    const boom = new AppError('INVALID_INPUT', 'not what we wanted');
    await expect(
      unzip([zipSync({ a: strToU8('abc') })], {
        select: () => true,
        budget: new OutputBudget(MB, 'x'),
        onEntry: async () => {
          throw boom;
        },
      }),
    ).rejects.toBe(boom);
  });
});

describe('readSqliteImage', () => {
  /** A SQLite header declaring `pages` pages of 4096 bytes, with a valid in-header size. */
  function sqliteHeader(pages: number): Buffer {
    const h = Buffer.alloc(100);
    h.write('SQLite format 3\0', 'latin1');
    h.writeUInt16BE(4096, 16);
    h.writeUInt32BE(7, 24);
    h.writeUInt32BE(pages, 28);
    h.writeUInt32BE(7, 92);
    return h;
  }
  async function* arriving(...parts: Buffer[]) {
    yield* parts;
  }

  it('When the file is as large as its header says, Then it is returned whole', async () => {
    const file = Buffer.concat([sqliteHeader(2), zeros(2 * 4096 - 100)]);
    expect(
      await readSqliteImage(arriving(file.subarray(0, 50), file.subarray(50)), new OutputBudget(MB, 'x')),
    ).toEqual(file);
  });

  it('When the header declares more pages than the budget allows, Then 413 after the header', async () => {
    let pulled = 0;
    async function* rest() {
      yield sqliteHeader(1_000_000);
      for (;;) {
        pulled++;
        yield zeros(4096);
      }
    }
    expect((await refusal(readSqliteImage(rest(), new OutputBudget(MB, 'x')))).status).toBe(413);
    expect(pulled).toBe(0);
  });

  it('When more bytes come than the header declared, or the file is not SQLite, Then 400', async () => {
    const over = Buffer.concat([sqliteHeader(1), zeros(4096)]);
    expect((await refusal(readSqliteImage(arriving(over), new OutputBudget(MB, 'x')))).status).toBe(400);
    expect((await refusal(readSqliteImage(arriving(zeros(4096)), new OutputBudget(MB, 'x')))).status).toBe(
      400,
    );
    expect((await refusal(readSqliteImage(arriving(zeros(10)), new OutputBudget(MB, 'x')))).status).toBe(400);
  });
});
