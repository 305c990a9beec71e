// What a test run leaves on the shared servers, found by name. Every name a test makes comes from
// uniqueName(), which embeds the run's id (LINGUA_TEST_RUN, set once per run by the global setup),
// so this run's leftovers can be told from another run's even on a machine shared with others.
// Plain CommonJS: used by the jest environment (each suite's teardown) and the global teardown.
const { MongoClient } = require('mongodb');
const { createClient } = require('redis');
const { connect } = require('@nats-io/transport-node');
const { jetstreamManager } = require('@nats-io/jetstream');

const mongoUrl = () => process.env.MONGO_URL ?? `mongodb://127.0.0.1:${process.env.FERRETDB_PORT ?? 27017}`;
const natsUrl = () => process.env.NATS_URL ?? `nats://127.0.0.1:${process.env.NATS_PORT ?? 4222}`;
const redisUrl = () => process.env.REDIS_URL ?? `redis://127.0.0.1:${process.env.REDIS_PORT ?? 6379}`;

/** A name (stream, database, key) belongs to one of `needles` when it contains it, case aside. */
const matcher = (needles) => {
  const lower = needles.map((n) => n.toLowerCase());
  return (name) => {
    const n = name.toLowerCase();
    return lower.some((needle) => n.includes(needle));
  };
};

async function withClients(fn) {
  const mongo = new MongoClient(mongoUrl(), { serverSelectionTimeoutMS: 5_000 });
  const redis = createClient({
    url: redisUrl(),
    socket: { connectTimeout: 5_000, reconnectStrategy: false },
  });
  const nats = await connect({ servers: natsUrl(), timeout: 5_000 });
  try {
    await Promise.all([mongo.connect(), redis.connect()]);
    return await fn({ mongo, redis, jsm: await jetstreamManager(nats) });
  } finally {
    await Promise.allSettled([mongo.close(), redis.isOpen ? redis.quit() : undefined, nats.close()]);
  }
}

/** This run's streams (and their consumers), databases and Redis keys whose names match. */
async function find({ mongo, redis, jsm }, belongs) {
  const streams = [];
  for await (const s of jsm.streams.list()) if (belongs(s.config.name)) streams.push(s.config.name);
  const { databases } = await mongo.db('admin').admin().listDatabases({ nameOnly: true });
  const dbs = databases.map((d) => d.name).filter(belongs);
  const keys = [];
  for await (const batch of redis.scanIterator({ COUNT: 1000 }))
    for (const key of Array.isArray(batch) ? batch : [batch]) if (belongs(key)) keys.push(key);
  return { streams, databases: dbs, keys };
}

/** Removes what the names (made by uniqueName) label: streams, databases, Redis keys. */
async function removeResources(names) {
  if (names.length === 0) return;
  await withClients(async (clients) => remove(clients, await find(clients, matcher(names))));
}

async function remove(clients, found) {
  for (const s of found.streams) await clients.jsm.streams.delete(s).catch(() => undefined);
  for (const d of found.databases)
    await clients.mongo
      .db(d)
      .dropDatabase()
      .catch(() => undefined);
  for (let i = 0; i < found.keys.length; i += 500) await clients.redis.del(found.keys.slice(i, i + 500));
}

/**
 * A name uniqueName made (`<prefix>_<run>_<ms since the epoch, base 36>_<hex>`) whose time is more
 * than `maxAgeMs` ago: what an interrupted run left (its suites' clean-up never ran). No run lasts
 * that long, so a run still going is never touched.
 */
const olderThan = (maxAgeMs, now = Date.now()) => {
  const made = /_r[0-9a-z]{6}_([0-9a-z]{8,9})_[0-9a-f]{6}/i;
  return (name) => {
    const m = made.exec(name);
    if (!m) return false;
    const at = parseInt(m[1], 36);
    // a plausible time (after 2020), not some other base-36 run of letters
    return at > Date.UTC(2020, 0, 1) && at < now - maxAgeMs;
  };
};

/** Removes what interrupted runs left more than `maxAgeMs` ago; returns how much of each kind. */
async function removeStaleResources(maxAgeMs) {
  return withClients(async (clients) => {
    const found = await find(clients, olderThan(maxAgeMs));
    await remove(clients, found);
    return { streams: found.streams.length, databases: found.databases.length, keys: found.keys.length };
  });
}

/** What is still there of a run: empty lists when every suite removed what it made. */
async function leftoversOf(runId) {
  return withClients((clients) => find(clients, matcher([runId])));
}

module.exports = { removeResources, removeStaleResources, leftoversOf, olderThan };
