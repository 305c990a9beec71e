import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import {
  brotliCompressSync,
  constants,
  createZstdCompress,
  deflateSync,
  gzipSync,
  zstdCompressSync,
} from 'node:zlib';
import { Zip, ZipDeflate, zipSync } from 'fflate';
import { type RunningService, startService } from '@lingua/bootstrap';
import { DECOMPRESS_CHANNEL, type RefusedExpansion } from '@lingua/decompress';
import { freePort, isolatedServiceEnv, signTestToken } from '@lingua/testing';
import { DEV_JWT_SECRET, loadGatewayConfig } from '../../gateway/src/config';
import { type RunningGateway, startGateway } from '../../gateway/src/server';
import { cardModel } from '../../services/flashcards/src/data-access/card.model';
import { loadServiceConfig } from '../../services/flashcards/src/config';
import { defineFlashcardsService } from '../../services/flashcards/src/start';

/*
 * Small compressed inputs that expand to hundreds of MB, sent through the gateway by a free user as
 * an app would: each is refused (413 past the budget, 400 when what it expands to is not what it
 * claims to be) in the spec's envelope, the decoder stops at the budget, and the process that
 * decodes (here: this one, the stack runs in-process) does not grow by what the bomb holds.
 */
jest.setTimeout(120_000);

const MB = 1024 * 1024;
/** A free user's upload limit (10 MB) × the Anki factor (4): the budget of an import. */
const IMPORT_BUDGET = 40 * MB;
/** Growth allowed while a bomb is refused; the bombs below hold 128 MB or more. */
const GROWTH_LIMIT = 8 * MB;

let flashcards: RunningService;
let gateway: RunningGateway;
const free = signTestToken(DEV_JWT_SECRET);

beforeAll(async () => {
  const env = isolatedServiceEnv();
  flashcards = await startService(defineFlashcardsService(loadServiceConfig(env)));
  const nowhere = async () => `http://127.0.0.1:${await freePort()}`;
  gateway = await startGateway(
    loadGatewayConfig({
      ...env,
      GATEWAY_PORT: '0',
      FLASHCARDS_HTTP_URL: flashcards.httpUrl,
      IDENTITY_HTTP_URL: await nowhere(),
      SUBSCRIPTIONS_HTTP_URL: await nowhere(),
      AI_HTTP_URL: await nowhere(),
      NOTIFICATIONS_HTTP_URL: await nowhere(),
    }),
  );
}, 60_000);

afterAll(async () => {
  await gateway?.stop();
  await flashcards?.deps.mongo.connection.dropDatabase().catch(() => undefined);
  await flashcards?.stop();
});

// ---------------------------------------------------------------------------------------------
// Measuring

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

interface Measured<T> {
  result: T;
  /** Peak growth over the call of memory held in ArrayBuffers and Buffers (decoded output lives there). */
  arrayBuffers: number;
  rss: number;
  /** What the budgets refused meanwhile, and after how many bytes. */
  refusals: RefusedExpansion[];
}

async function measured<T>(work: () => Promise<T>): Promise<Measured<T>> {
  gc();
  const before = process.memoryUsage();
  let peak = { ...before };
  const sample = () => {
    const now = process.memoryUsage();
    peak = {
      ...peak,
      rss: Math.max(peak.rss, now.rss),
      arrayBuffers: Math.max(peak.arrayBuffers, now.arrayBuffers),
    };
  };
  const timer = setInterval(sample, 1);
  const refusals: RefusedExpansion[] = [];
  const listener = (message: unknown) => refusals.push(message as RefusedExpansion);
  subscribe(DECOMPRESS_CHANNEL, listener);
  try {
    const result = await work();
    sample();
    return {
      result,
      arrayBuffers: peak.arrayBuffers - before.arrayBuffers,
      rss: peak.rss - before.rss,
      refusals,
    };
  } finally {
    clearInterval(timer);
    unsubscribe(DECOMPRESS_CHANNEL, listener);
  }
}

const figures = (what: string, m: Measured<unknown>) =>
  // the figures of the report (run with DECOMPRESSION_FIGURES=1)
  process.env.DECOMPRESSION_FIGURES &&
  process.stdout.write(
    `${what}: arrayBuffers +${(m.arrayBuffers / MB).toFixed(1)} MB, rss +${(m.rss / MB).toFixed(1)} MB\n`,
  );

// ---------------------------------------------------------------------------------------------
// Bombs

/** A zstd frame from a streaming encoder: its header declares no content size. */
async function zstdWithoutSize(chunks: Iterable<Buffer>): Promise<Buffer> {
  const encoder = createZstdCompress();
  const out: Buffer[] = [];
  encoder.on('data', (c: Buffer) => out.push(c));
  const done = new Promise((resolve, reject) => encoder.on('end', resolve).on('error', reject));
  for (const chunk of chunks) encoder.write(chunk);
  encoder.end();
  await done;
  return Buffer.concat(out);
}

/** `mb` MB of zeros in 1 MB chunks, after `head`. */
function* zerosAfter(head: Buffer, mb: number) {
  yield head;
  const zeros = Buffer.alloc(MB);
  for (let i = 0; i < mb; i++) yield zeros;
}

/** A SQLite header: 4096-byte pages; `pages` counts when `valid` (version-valid-for = change counter). */
function sqliteHeader(pages: number, valid = true): Buffer {
  const h = Buffer.alloc(100);
  h.write('SQLite format 3\0', 'latin1');
  h.writeUInt16BE(4096, 16);
  h.writeUInt32BE(5, 24);
  h.writeUInt32BE(pages, 28);
  h.writeUInt32BE(valid ? 5 : 4, 92);
  return h;
}

/** A zip written as a stream: its entries declare no sizes before their data. */
function streamedZip(name: string, chunks: Iterable<Buffer>): Buffer {
  const parts: Uint8Array[] = [];
  const zip = new Zip((err, chunk) => {
    if (err) throw err;
    parts.push(chunk);
  });
  const entry = new ZipDeflate(name, { level: 6 });
  zip.add(entry);
  for (const chunk of chunks) entry.push(chunk);
  entry.push(new Uint8Array(0), true);
  zip.end();
  return Buffer.concat(parts);
}

async function importFile(bytes: Uint8Array, name: string) {
  const form = new FormData();
  form.append('file', new Blob([bytes as BlobPart]), name);
  const res = await fetch(`${gateway.url}/api/import/cards`, {
    method: 'POST',
    headers: free.headers,
    body: form,
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const activeCards = () => cardModel(flashcards.deps.mongo.connection).countDocuments({ userId: free.sub });

describe('Anki packages through the gateway', () => {
  it('When collection.anki21b is a zstd frame without a content size that expands to 128 MB of zeros, Then 400 at its first bytes and memory stays flat', async () => {
    const anki21b = await zstdWithoutSize(zerosAfter(Buffer.alloc(0), 128));
    const apkg = zipSync({ 'collection.anki21b': anki21b });
    expect(apkg.length).toBeLessThan(10_000);

    const m = await measured(() => importFile(apkg, 'bomb.apkg'));
    figures('anki21b zstd, 128 MB of zeros', m);

    expect(m.result.status).toBe(400);
    expect(m.result.body).toMatchObject({ success: false, error: { code: 'VAL002' } });
    expect(m.arrayBuffers).toBeLessThan(GROWTH_LIMIT);
    expect(await activeCards()).toBe(0);
  });

  it('When collection.anki21b expands to a SQLite header declaring 1 GB, Then 413 right after the header', async () => {
    const anki21b = await zstdWithoutSize(zerosAfter(sqliteHeader(262_144), 128));
    const apkg = zipSync({ 'collection.anki21b': anki21b });

    const m = await measured(() => importFile(apkg, 'bomb.apkg'));
    figures('anki21b zstd, SQLite header declaring 1 GB', m);

    expect(m.result.status).toBe(413);
    expect(m.result.body).toMatchObject({
      success: false,
      error: { code: 'VAL002', details: { max_bytes: IMPORT_BUDGET } },
    });
    expect(m.arrayBuffers).toBeLessThan(GROWTH_LIMIT);
  });

  it('When collection.anki21b expands past the budget with no usable size anywhere, Then 413 once the decoded bytes reach the budget', async () => {
    const anki21b = await zstdWithoutSize(zerosAfter(sqliteHeader(0, false), 256));
    const apkg = zipSync({ 'collection.anki21b': anki21b });
    expect(apkg.length).toBeLessThan(20_000);

    const m = await measured(() => importFile(apkg, 'bomb.apkg'));
    figures('anki21b zstd, 256 MB behind a header without a size', m);

    expect(m.result.status).toBe(413);
    expect(m.result.body).toMatchObject({ error: { code: 'VAL002', details: { max_bytes: IMPORT_BUDGET } } });
    // the decoders stopped at the budget (one chunk past it), not at the 256 MB the package holds
    expect(m.refusals).toHaveLength(1);
    expect(m.refusals[0]!.producedBytes).toBeGreaterThan(IMPORT_BUDGET);
    expect(m.refusals[0]!.producedBytes).toBeLessThanOrEqual(IMPORT_BUDGET + 64 * 1024);
    // what the budget lets through is held at most once, never the bomb
    expect(m.arrayBuffers).toBeLessThan(IMPORT_BUDGET + GROWTH_LIMIT);
  });

  it('When a zip entry streamed without sizes inflates to 128 MB, Then 413 or 400 before it is inflated whole', async () => {
    const declared = streamedZip('collection.anki2', zerosAfter(sqliteHeader(262_144), 128));
    const zeros = streamedZip('collection.anki21', zerosAfter(Buffer.alloc(0), 128));
    expect(declared.length).toBeLessThan(200_000);

    const m = await measured(async () => [
      await importFile(declared, 'bomb.apkg'),
      await importFile(zeros, 'bomb.apkg'),
    ]);
    figures('zip entry, deflate, 128 MB (twice)', m);

    expect(m.result.map((r) => r.status)).toEqual([413, 400]);
    expect(m.result[0]!.body).toMatchObject({
      error: { code: 'VAL002', details: { max_bytes: IMPORT_BUDGET } },
    });
    expect(m.arrayBuffers).toBeLessThan(GROWTH_LIMIT);
  });

  it('When a collection is a small database whose notes are a view that expands to 256 MB, Then 400 without running it', async () => {
    const { sqlJs } = await import('../../services/flashcards/src/domain/portability/sql-js');
    const SQL = await sqlJs();
    const db = new SQL.Database();
    db.run(`
      CREATE TABLE col (id integer primary key, models text);
      INSERT INTO col VALUES (1, '{}');
      CREATE VIEW notes AS WITH RECURSIVE n(id) AS (SELECT 1 UNION ALL SELECT id + 1 FROM n WHERE id < 256)
        SELECT id, 1 AS mid, '' AS tags, zeroblob(1048576) AS flds FROM n;
    `);
    const apkg = zipSync({ 'collection.anki2': db.export() });
    db.close();

    const m = await measured(() => importFile(apkg, 'view.apkg'));
    figures('collection with a view of 256 MB', m);

    expect(m.result.status).toBe(400);
    expect(m.result.body).toMatchObject({ success: false, error: { code: 'VAL002' } });
    expect(m.arrayBuffers).toBeLessThan(GROWTH_LIMIT);
  });
});

describe('Compressed request bodies through the gateway', () => {
  const encode: Record<string, (data: Buffer) => Buffer> = {
    gzip: (data) => gzipSync(data, { level: 9 }),
    deflate: (data) => deflateSync(data, { level: 9 }),
    br: (data) => brotliCompressSync(data, { params: { [constants.BROTLI_PARAM_QUALITY]: 5 } }),
    zstd: (data) => zstdCompressSync(data),
  };
  const codings = Object.keys(encode);

  const post = async (body: Buffer, coding: string) => {
    const res = await fetch(`${gateway.url}/api/flashcards`, {
      method: 'POST',
      headers: { ...free.headers, 'content-type': 'application/json', 'content-encoding': coding },
      body,
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };

  it.each(codings)(
    'When a JSON body with Content-Encoding %s expands to 64 MB, Then 413 and memory stays flat',
    async (coding) => {
      // valid JSON all the way: 64 MB of whitespace inside an object
      const json = Buffer.alloc(64 * MB, 0x20);
      json[0] = 0x7b;
      json[json.length - 1] = 0x7d;
      const body = encode[coding]!(json);
      expect(body.length).toBeLessThan(200_000);

      const m = await measured(() => post(body, coding));
      figures(`JSON body, ${coding}, 64 MB`, m);

      expect(m.result.status).toBe(413);
      // Group B's envelope: the message in `error`
      expect(m.result.body).toEqual({
        success: false,
        error: 'The request body is larger than 1 MB decompressed',
      });
      expect(m.refusals).toHaveLength(1);
      expect(m.refusals[0]!.producedBytes).toBeLessThanOrEqual(MB + 64 * 1024);
      expect(m.arrayBuffers).toBeLessThan(GROWTH_LIMIT);
    },
  );

  it.each(codings)(
    'When a JSON body within the limit is sent with Content-Encoding %s, Then the card is created from it',
    async (coding) => {
      const word = `komprimiert-${coding}`;
      const card = { word, translation: 'compressed', definition: 'sent compressed' };
      const created = await post(encode[coding]!(Buffer.from(JSON.stringify(card))), coding);

      expect(created.status).toBe(200);
      expect(created.body).toMatchObject({ success: true, data: { word, translation: 'compressed' } });
    },
  );

  it('When a body is sent with a coding we do not decode, or is not what its coding says, Then 415 or 400', async () => {
    expect((await post(Buffer.from('{}'), 'compress')).status).toBe(415);
    expect((await post(Buffer.from('{"word":"x"}'), 'gzip')).status).toBe(400);
  });
});
