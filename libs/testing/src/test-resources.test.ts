import { connect } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import { MongoClient } from 'mongodb';
import { createClient } from 'redis';
import { mongoUrl, natsUrl, redisUrl, uniqueName } from './infrastructure';

// plain CommonJS beside the jest environment that uses it
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { olderThan, removeResources, removeStaleResources } = require('./test-resources') as {
  olderThan: (maxAgeMs: number, now?: number) => (name: string) => boolean;
  removeResources: (names: string[]) => Promise<void>;
  removeStaleResources: (maxAgeMs: number) => Promise<{ streams: number; databases: number; keys: number }>;
};

const HOUR = 3_600_000;
/** A name uniqueName makes, with its time put `ago` ms back: the parser follows the real format. */
const madeAgo = (prefix: string, ago: number) => {
  const name = uniqueName(prefix);
  const time = /_([0-9a-z]+)_[0-9a-f]{6}$/.exec(name)![1]!;
  return name.replace(`_${time}_`, `_${(Date.now() - ago).toString(36)}_`);
};

describe('leftovers of interrupted test runs', () => {
  it('When a name carries a time, Then only one older than the limit counts as left over', () => {
    const now = Date.UTC(2026, 10, 29, 12);
    const stale = olderThan(6 * HOUR, now);
    expect(stale(`T_rab12cd_${(now - 7 * HOUR).toString(36)}_0a1b2c`)).toBe(true);
    expect(stale(`t_rab12cd_${(now - 5 * HOUR).toString(36)}_0a1b2c_flashcards`)).toBe(false);
    // no run id and time: a name some other user of the server made
    expect(stale('CLUSTER_EVENTS')).toBe(false);
    expect(stale('identity:account-mails:lTSnXU66niyzSvPbzxzijJzVbxCnS2iHclLufqzFS7s')).toBe(false);
    // letters that read as base 36 but not as a time since 2020
    expect(stale('x_rab12cd_zzzz0000_0a1b2c')).toBe(false);
  });

  it('When a run was killed seven hours ago, Then the next run removes its stream, database and key, and keeps those of a run still going', async () => {
    const old = { stream: madeAgo('T', 7 * HOUR), db: madeAgo('t', 7 * HOUR), key: madeAgo('k', 7 * HOUR) };
    const fresh = { stream: uniqueName('T'), db: uniqueName('t'), key: uniqueName('k') };
    const nats = await connect({ servers: natsUrl() });
    const mongo = new MongoClient(mongoUrl());
    const redis = createClient({ url: redisUrl() });
    await Promise.all([mongo.connect(), redis.connect()]);
    try {
      const jsm = await jetstreamManager(nats);
      for (const { stream, db, key } of [old, fresh]) {
        await jsm.streams.add({ name: stream, subjects: [`${stream}.>`], max_bytes: 1024 * 1024 });
        await mongo.db(db).collection('c').insertOne({ a: 1 });
        await redis.set(key, 'v', { EX: 600 });
      }

      const removed = await removeStaleResources(6 * HOUR);

      expect(removed.streams).toBeGreaterThanOrEqual(1);
      const streams: string[] = [];
      for await (const s of jsm.streams.list()) streams.push(s.config.name);
      expect(streams).not.toContain(old.stream);
      expect(streams).toContain(fresh.stream);
      const { databases } = await mongo.db('admin').admin().listDatabases({ nameOnly: true });
      const names = databases.map((d) => d.name);
      expect(names).not.toContain(old.db);
      expect(names).toContain(fresh.db);
      expect(await redis.exists(old.key)).toBe(0);
      expect(await redis.exists(fresh.key)).toBe(1);
    } finally {
      // the old names are no uniqueName of this run: the file's own clean-up would not find them
      await removeResources([old.stream, old.db, old.key]);
      await Promise.allSettled([nats.close(), mongo.close(), redis.quit()]);
    }
  });
});
