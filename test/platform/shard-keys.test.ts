import fs from 'node:fs';
import path from 'node:path';
import vm from 'node:vm';
import { type IndexSpec, isSharded, renderShardScript, uniqueIndexConflicts } from '@lingua/mongo';
import { aiIndexes } from '../../services/ai/src/data-access/indexes';
import { flashcardsIndexes } from '../../services/flashcards/src/data-access/indexes';
import { identityIndexes } from '../../services/identity/src/data-access/indexes';
import { notificationsIndexes } from '../../services/notifications/src/data-access/indexes';
import { subscriptionsIndexes } from '../../services/subscriptions/src/data-access/indexes';
import { SHARD_DECLARATIONS, SHARDED_DATABASES } from './shard-declarations';

// Issue 40 item 2: the shard declarations next to each service's index list are complete, their
// unique indexes can exist on a sharded cluster, and deploy/mongo/shard-collections.js is the script
// rendered from them. The queries are checked against them in shard-keys-journey.test.ts.

const SCRIPT = path.join(__dirname, '../../deploy/mongo/shard-collections.js');
const DOC = path.join(__dirname, '../../docs/operations/sharding.md');

const INDEXES: Record<keyof typeof SHARD_DECLARATIONS, IndexSpec[]> = {
  identity: identityIndexes,
  flashcards: flashcardsIndexes,
  subscriptions: subscriptionsIndexes,
  ai: aiIndexes,
  notifications: notificationsIndexes({
    NOTIFICATIONS_RETENTION_DAYS: 90,
    WEBHOOK_DELIVERY_RETENTION_DAYS: 30,
  }),
};

describe('shard declarations', () => {
  it('When a service declares an index, Then its collection has one shard declaration with a reason', () => {
    const missing: string[] = [];
    const twice: string[] = [];
    for (const [service, indexes] of Object.entries(INDEXES)) {
      const declared = SHARD_DECLARATIONS[service as keyof typeof INDEXES].map((d) => d.collection);
      twice.push(...declared.filter((c, i) => declared.indexOf(c) !== i).map((c) => `${service}.${c}`));
      for (const c of new Set(indexes.map((i) => i.collection)))
        if (!declared.includes(c)) missing.push(`${service}.${c}`);
    }
    expect({ missing, twice }).toEqual({ missing: [], twice: [] });
    for (const d of Object.values(SHARD_DECLARATIONS).flat())
      expect([d.collection, (isSharded(d) ? d.why : d.unsharded).length > 20]).toEqual([d.collection, true]);
  });

  it('When a collection is sharded, Then each of its unique indexes starts with the shard key (else the cluster refuses it)', () => {
    const conflicts = Object.entries(INDEXES).flatMap(([service, indexes]) =>
      uniqueIndexConflicts(SHARD_DECLARATIONS[service as keyof typeof INDEXES], indexes).map(
        (c) => `${service}.${c.collection} ${JSON.stringify(c.index)} on ${JSON.stringify(c.shardKey)}`,
      ),
    );
    expect(conflicts).toEqual([]);
  });

  it('When the declarations change, Then deploy/mongo/shard-collections.js is rendered from them (SHARD_SCRIPT_WRITE=1 rewrites it)', () => {
    const rendered = renderShardScript(SHARDED_DATABASES);
    if (process.env.SHARD_SCRIPT_WRITE === '1') fs.writeFileSync(SCRIPT, rendered);
    expect(fs.readFileSync(SCRIPT, 'utf8')).toBe(rendered);
  });

  it('When the declarations change, Then the table in docs/operations/sharding.md shows each collection with its key', () => {
    const rows = fs
      .readFileSync(DOC, 'utf8')
      .split('\n')
      .filter((line) => line.startsWith('|'))
      .map((line) => line.split('|').map((cell) => cell.trim()));
    const keyText = (key: Record<string, 1 | 'hashed'>) =>
      `\`{${Object.entries(key)
        .map(([f, v]) => `${f}: ${v}`)
        .join(', ')}}\``;
    const wrong = Object.entries(SHARD_DECLARATIONS).flatMap(([service, declarations]) =>
      declarations
        .filter((d) => {
          const row = rows.find((r) => r[1] === service && r[2] === d.collection);
          return row?.[3] !== (isSharded(d) ? keyText(d.key) : 'unsharded');
        })
        .map((d) => `${service}.${d.collection}`),
    );
    expect(wrong).toEqual([]);
  });

  it('When the script runs in mongosh, Then it shards each declared collection once, on its key, in the databases the environment names', () => {
    const calls: string[] = [];
    const sharded = new Set(['lingua_ai.images']);
    const collection = (db: string, name: string) => ({
      createIndex: (key: object) => calls.push(`createIndex ${db}.${name} ${JSON.stringify(key)}`),
    });
    vm.runInNewContext(fs.readFileSync(SCRIPT, 'utf8'), {
      process: { env: { FLASHCARDS_MONGO_DB: 'cards_db' } },
      print: () => undefined,
      sh: {
        enableSharding: (db: string) => calls.push(`enableSharding ${db}`),
        shardCollection: (ns: string, key: object) =>
          calls.push(`shardCollection ${ns} ${JSON.stringify(key)}`),
      },
      db: {
        getSiblingDB: (db: string) =>
          db === 'config'
            ? { collections: { findOne: (q: { _id: string }) => (sharded.has(q._id) ? { key: {} } : null) } }
            : { getCollection: (name: string) => collection(db, name) },
      },
    });
    expect(calls).toContain('shardCollection cards_db.cards {"userId":1,"_id":1}');
    expect(calls).toContain('createIndex cards_db.cards {"userId":1,"_id":1}');
    expect(calls).toContain('shardCollection lingua_identity.refresh_families {"_id":"hashed"}');
    expect(calls.filter((c) => c.includes('lingua_ai.images '))).toEqual([]);
    const declaredSharded = Object.values(SHARD_DECLARATIONS).flat().filter(isSharded).length;
    expect(calls.filter((c) => c.startsWith('shardCollection'))).toHaveLength(declaredSharded - 1);
  });
});
