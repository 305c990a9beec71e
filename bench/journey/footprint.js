// What one window of the journey mix costs besides CPU, for the capacity model (scripts/capacity.js):
// Redis commands (INFO commandstats), NATS messages (the streams' and consumers' sequences), database
// operations (FerretDB's serverStatus opcounters), documents written by collection and the bytes
// each takes (collStats), the memory of every process (procfs), and what the due read model and the
// other keys of the signed-in users hold in Redis (MEMORY USAGE). Each meter is read before and after
// the window; `footprint(before, after, calls)` divides the differences by the calls answered.
const fs = require('node:fs');
const { performance } = require('node:perf_hooks');
const { MongoClient } = require('mongodb');
const { createClient } = require('redis');

/** Commands of a connection's upkeep (hand-shake, sign-in, monitoring), not the application's. */
const NOT_OPERATIONS = new Set([
  'ismaster',
  'hello',
  'ping',
  'endsessions',
  'serverstatus',
  'buildinfo',
  'saslstart',
  'saslcontinue',
  'getparameter',
  'connectionstatus',
  'getlog',
]);

/** Resident and peak resident memory (VmRSS, VmHWM) of a process in MB; null when it is gone. */
function memoryOf(pid) {
  try {
    const text = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (field) => Number(new RegExp(`^${field}:\\s+(\\d+)`, 'm').exec(text)?.[1] ?? 0);
    return { rssMb: Math.round(kb('VmRSS') / 1024), peakRssMb: Math.round(kb('VmHWM') / 1024) };
  } catch {
    return null;
  }
}

/** `cmdstat_get:calls=12,usec=...` lines of INFO commandstats → { get: 12, ... }. */
function parseCommandStats(info) {
  const out = {};
  for (const m of info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) out[m[1]] = Number(m[2]);
  return out;
}

/**
 * Opens the meters: a Redis client, a MongoDB client on the bench's FerretDB and a JetStream manager.
 * `streams` are the stack's event streams; `dbs` the data set's databases by service.
 */
async function openMeters({ redisUrl, mongoUrl, natsUrl, streams, dbs }) {
  const redis = createClient({ url: redisUrl });
  redis.on('error', () => undefined);
  await redis.connect();
  const mongo = new MongoClient(mongoUrl, { serverSelectionTimeoutMS: 10_000 });
  await mongo.connect();
  const { connect } = require('@nats-io/transport-node');
  const { jetstreamManager } = require('@nats-io/jetstream');
  const nc = await connect({ servers: natsUrl, timeout: 5_000 });
  const jsm = await jetstreamManager(nc);

  async function natsCounts() {
    let published = 0;
    let delivered = 0;
    for (const name of streams) {
      const info = await jsm.streams.info(name).catch(() => null);
      if (!info) continue;
      published += info.state.last_seq;
      for await (const c of jsm.consumers.list(name)) delivered += c.delivered.consumer_seq;
    }
    return { published, delivered };
  }

  /** Documents by collection, and the commands that took (the meter's own, not the stack's). */
  async function documentCounts() {
    const out = {};
    const commands = { listCollections: 0, aggregate: 0 };
    for (const [service, db] of Object.entries(dbs)) {
      commands.listCollections++;
      for (const { name } of await mongo.db(db).listCollections({}, { nameOnly: true }).toArray()) {
        commands.aggregate++;
        // counted, not estimated: FerretDB's estimate of a large collection lags its inserts
        out[`${service}.${name}`] = await mongo.db(db).collection(name).countDocuments({});
      }
    }
    return { out, commands };
  }

  return {
    /**
     * The counters now. The database's are FerretDB's commands by name (serverStatus
     * `metrics.commands`; it keeps no opcounters), read last: between two readings it counts the
     * later reading's own commands (`ownCommands`), which perCall takes off.
     */
    async read() {
      const docs = await documentCounts();
      const nats = await natsCounts();
      const redisStats = parseCommandStats(await redis.info('commandstats'));
      const status = await mongo.db('admin').command({ serverStatus: 1 });
      const db = Object.fromEntries(
        Object.entries(status.metrics?.commands ?? {})
          .filter(([name]) => !NOT_OPERATIONS.has(name.toLowerCase()))
          .map(([name, c]) => [name, c.total]),
      );
      return { redis: redisStats, nats, db, docs: docs.out, ownCommands: docs.commands };
    },
    /** Bytes per document (data and indexes) of the collections named `service.collection`. */
    async bytesPerDocument(names) {
      const out = {};
      for (const full of names) {
        const [service, collection] = full.split('.');
        const s = await mongo
          .db(dbs[service])
          .command({ collStats: collection })
          .catch(() => null);
        if (!s || !s.count) continue;
        out[full] = {
          count: s.count,
          dataBytes: Math.round(s.size / s.count),
          indexBytes: Math.round((s.totalIndexSize ?? 0) / s.count),
        };
      }
      return out;
    },
    /**
     * What the signed-in users hold in Redis now: the due read model of each (keys
     * `flashcards:due:{<flashcards db>:<user>}:*`) and the keys under the rate-limit prefix, in bytes
     * (MEMORY USAGE), with the active cards of the users that have a model built.
     */
    async redisHeld({ namespace, userIds, rateLimitPrefix }) {
      let dueBytes = 0;
      let indexed = 0;
      const withIndex = [];
      for (const id of userIds) {
        let bytes = 0;
        for await (const keys of redis.scanIterator({
          MATCH: `flashcards:due:{${namespace}:${id}}:*`,
          COUNT: 100,
        }))
          for (const key of [keys].flat()) bytes += (await redis.memoryUsage(key)) ?? 0;
        if (bytes > 0) {
          indexed++;
          withIndex.push(id);
          dueBytes += bytes;
        }
      }
      const cards = await mongo
        .db(dbs.flashcards)
        .collection('cards')
        .countDocuments({ userId: { $in: withIndex }, isArchived: false });
      let otherBytes = 0;
      let otherKeys = 0;
      for await (const keys of redis.scanIterator({ MATCH: `${rateLimitPrefix}*`, COUNT: 500 }))
        for (const key of [keys].flat()) {
          otherKeys++;
          otherBytes += (await redis.memoryUsage(key)) ?? 0;
        }
      return {
        usersWithDueModel: indexed,
        theirActiveCards: cards,
        dueModelBytes: dueBytes,
        otherKeys,
        otherBytes,
      };
    },
    async close() {
      await redis.quit().catch(() => undefined);
      await mongo.close();
      await nc.close();
    },
  };
}

/**
 * What one Redis (single-threaded: one core) answers at most, on this machine: redis-benchmark's
 * operations a second for the commands the stack uses most (SET, GET, INCR, ZADD, HSET; 50
 * connections, no pipelining), in a database of its own whose few fixed keys it deletes after.
 */
function redisCeiling(redisUrl) {
  const { execFileSync } = require('node:child_process');
  const url = new URL(redisUrl);
  const args = ['-h', url.hostname, '-p', url.port || '6379', '--dbnum', '9'];
  if (url.password) args.push('-a', decodeURIComponent(url.password));
  const csv = execFileSync(
    'redis-benchmark',
    [...args, '-q', '-n', '100000', '-c', '50', '-t', 'set,get,incr,zadd,hset', '--csv'],
    {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    },
  );
  execFileSync(
    'redis-cli',
    [
      ...args.map((a) => (a === '--dbnum' ? '-n' : a)),
      'del',
      'key:__rand_int__',
      'counter:__rand_int__',
      'myzset',
      'myhash',
    ],
    {
      stdio: 'ignore',
    },
  );
  const perS = {};
  for (const m of csv.matchAll(/^"([A-Z]+)[^"]*","([\d.]+)"/gm))
    perS[m[1].toLowerCase()] = Math.round(Number(m[2]));
  const rates = Object.values(perS);
  // the harmonic mean: a mix of these commands in equal numbers
  const mixed = rates.length / rates.reduce((a, r) => a + 1 / r, 0);
  return { commandsPerS: perS, mixedPerS: Math.round(mixed) };
}

/**
 * What JetStream ingests at most here: `count` events of `bytes` each published to a file stream of
 * its own (one replica), up to 512 awaiting their acknowledgement, and the NATS server's CPU per
 * message over it (`cpuMs()`: the server's CPU time so far). The stream is deleted after.
 */
async function natsCeiling({ natsUrl, stream, cpuMs, count = 20_000, bytes = 400 }) {
  const { connect } = require('@nats-io/transport-node');
  const { jetstream, jetstreamManager } = require('@nats-io/jetstream');
  const nc = await connect({ servers: natsUrl, timeout: 5_000 });
  const subject = `${stream.toLowerCase()}.ceiling`;
  try {
    const jsm = await jetstreamManager(nc);
    await jsm.streams.add({ name: stream, subjects: [subject], storage: 'file', num_replicas: 1 });
    const js = jetstream(nc);
    const payload = new Uint8Array(bytes).fill(120);
    const cpu0 = cpuMs();
    const started = performance.now();
    const inFlight = new Set();
    for (let i = 0; i < count; i++) {
      const p = js.publish(subject, payload, { msgID: `c${i}` }).finally(() => inFlight.delete(p));
      inFlight.add(p);
      if (inFlight.size >= 512) await Promise.race(inFlight);
    }
    await Promise.all(inFlight);
    const seconds = (performance.now() - started) / 1000;
    const serverMs = cpuMs() - cpu0;
    return {
      publishedPerS: Math.round(count / seconds),
      serverCpuUsPerMessage: Number(((serverMs * 1000) / count).toFixed(1)),
      messages: count,
      bytes,
    };
  } finally {
    await jetstreamManager(nc)
      .then((jsm) => jsm.streams.delete(stream))
      .catch(() => undefined);
    await nc.close();
  }
}

const round = (x, digits = 3) => Number(x.toFixed(digits));

/** Differences per answered call, rounded; `docs` as documents written per call by collection. */
function perCall(before, after, calls) {
  const diff = (a, b) =>
    Object.fromEntries(
      Object.keys(b)
        .map((k) => [k, (b[k] ?? 0) - (a[k] ?? 0)])
        .filter(([, v]) => v > 0)
        .map(([k, v]) => [k, round(v / calls, 4)]),
    );
  // the meter's own commands are not the stack's: one INFO per reading, and the later reading's
  // listCollections, counts and serverStatus
  const redis = diff({ ...before.redis, info: (before.redis.info ?? 0) + 1 }, after.redis);
  const own = after.ownCommands ?? {};
  const db = diff(
    Object.fromEntries(Object.keys(after.db).map((k) => [k, (before.db[k] ?? 0) + (own[k] ?? 0)])),
    after.db,
  );
  return {
    redisCommands: redis,
    natsMessages: diff(before.nats, after.nats),
    dbOperations: db,
    documentsWritten: diff(before.docs, after.docs),
  };
}

module.exports = { openMeters, perCall, memoryOf, parseCommandStats, redisCeiling, natsCeiling };
