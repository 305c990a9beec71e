// A MongoDB wire-protocol tap: a TCP proxy between the services and FerretDB that passes every byte
// through unchanged and keeps one sample of each distinct query shape the clients send (OP_MSG
// commands: find, aggregate, count, update, delete, findAndModify, distinct). The journey bench runs
// the mix through it once, then asks the database for the plan of each shape (explain.js), so the plans
// cover the queries the mix really issues rather than a list someone has to keep up to date.
const net = require('node:net');
const { BSON } = require('mongodb');

const OP_MSG = 2013;
const QUERY_COMMANDS = ['find', 'aggregate', 'count', 'update', 'delete', 'findAndModify', 'distinct'];

/** The shape of a value: field names and operators kept, values replaced by their type. */
function shapeOf(value) {
  if (Array.isArray(value)) return value.length === 0 ? [] : [shapeOf(value[0])];
  if (value instanceof Date) return 'date';
  if (value === null) return 'null';
  if (typeof value === 'object' && value._bsontype === undefined)
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, shapeOf(v)]));
  return typeof value === 'object' ? value._bsontype : typeof value;
}

/**
 * The queries inside one command document: [{ db, collection, op, filter, sort, pipeline, upsert }];
 * with `commands` including `insert`, inserts too: [{ db, collection, op: 'insert', document }].
 */
function queriesOf(doc, sequences, commands = QUERY_COMMANDS) {
  // the command's name is its first field (a findAndModify also has an `update` field)
  const op = commands.find((c) => c === Object.keys(doc)[0]);
  if (!op) return [];
  const base = { db: doc.$db, collection: doc[op], op };
  switch (op) {
    case 'find':
      return [
        { ...base, filter: doc.filter ?? {}, sort: doc.sort, limit: doc.limit, projection: doc.projection },
      ];
    case 'count':
    case 'distinct':
      return [{ ...base, filter: doc.query ?? {}, key: doc.key }];
    case 'findAndModify':
      return [{ ...base, filter: doc.query ?? {}, sort: doc.sort, ...(doc.upsert && { upsert: true }) }];
    case 'aggregate':
      return [{ ...base, pipeline: doc.pipeline }];
    case 'update':
    case 'delete': {
      const statements =
        doc[op === 'update' ? 'updates' : 'deletes'] ??
        sequences[op === 'update' ? 'updates' : 'deletes'] ??
        [];
      return statements.map((s) => ({ ...base, filter: s.q ?? {}, ...(s.upsert && { upsert: true }) }));
    }
    case 'insert':
      return (doc.documents ?? sequences.documents ?? []).map((d) => ({ ...base, document: d }));
  }
  return [];
}

/** OP_MSG body: flags, then sections (kind 0: the command; kind 1: a named document sequence). */
function parseOpMsg(body) {
  let offset = 4; // flagBits
  let command;
  const sequences = {};
  while (offset < body.length) {
    const kind = body[offset++];
    if (kind === 0) {
      const size = body.readInt32LE(offset);
      command = BSON.deserialize(body.subarray(offset, offset + size));
      offset += size;
    } else if (kind === 1) {
      const size = body.readInt32LE(offset);
      const end = offset + size;
      let p = offset + 4;
      const nameEnd = body.indexOf(0, p);
      const name = body.toString('utf8', p, nameEnd);
      p = nameEnd + 1;
      const docs = [];
      while (p < end) {
        const n = body.readInt32LE(p);
        docs.push(BSON.deserialize(body.subarray(p, p + n)));
        p += n;
      }
      sequences[name] = docs;
      offset = end;
    } else break; // a checksum, or a kind this tap does not know
  }
  return { command, sequences };
}

/**
 * Starts the tap on a free port in front of `target` ("host:port"). Resolves with { port, shapes, close }:
 * `shapes` maps a shape key to { count, sample } (the first query seen of that shape). `commands`
 * (default: the reads and writes by filter) adds `insert` for the shard-key test, whose shape is the
 * inserted document's top-level field names.
 */
async function startCapture(target, { commands = QUERY_COMMANDS } = {}) {
  const [host, port] = [
    target.slice(0, target.lastIndexOf(':')),
    Number(target.slice(target.lastIndexOf(':') + 1)),
  ];
  const shapes = new Map();
  const sockets = new Set();
  const note = (q) => {
    const key = JSON.stringify({
      db: q.db,
      collection: q.collection,
      op: q.op,
      filter: shapeOf(q.filter),
      sort: q.sort,
      pipeline: q.pipeline && shapeOf(q.pipeline),
      upsert: q.upsert,
      fields: q.document && Object.keys(q.document).sort(),
    });
    const seen = shapes.get(key);
    if (seen) seen.count++;
    else shapes.set(key, { count: 1, sample: q });
  };
  const server = net.createServer((client) => {
    const upstream = net.connect(port, host);
    sockets.add(client).add(upstream);
    let pending = Buffer.alloc(0);
    client.on('data', (chunk) => {
      upstream.write(chunk);
      pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
      while (pending.length >= 16) {
        const length = pending.readInt32LE(0);
        if (pending.length < length) break;
        if (pending.readInt32LE(12) === OP_MSG) {
          try {
            const { command, sequences } = parseOpMsg(pending.subarray(16, length));
            if (command) for (const q of queriesOf(command, sequences, commands)) note(q);
          } catch {
            /* not a command this tap can read: it passed through all the same */
          }
        }
        pending = pending.subarray(length);
      }
    });
    upstream.pipe(client);
    const close = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('close', close).on('error', close);
    upstream.on('close', close).on('error', close);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: server.address().port,
    shapes,
    close: () =>
      new Promise((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

module.exports = { startCapture, shapeOf, queriesOf, QUERY_COMMANDS };
