import { DELETED_USERS_COLLECTION } from './deleted-users';
import type { IndexSpec } from './indexes';

/**
 * How one collection of a service is laid out across shards, declared next to the service's index
 * list (`data-access/indexes.ts`): either its shard key and why, or why it stays unsharded (on the
 * database's primary shard). Every collection the service writes has one declaration; the mongosh
 * script in `deploy/mongo/` is rendered from these (renderShardScript), and the journey test checks
 * the queries the services really send against them.
 */
export type ShardDeclaration =
  | {
      collection: string;
      /** `hashed` spreads one field's values evenly; `1` keeps ranges together (chunks split within a user). */
      key: Record<string, 1 | 'hashed'>;
      why: string;
    }
  | { collection: string; unsharded: string };

/**
 * What every service keeps besides its own data, declared the same way in each: the tombstones of
 * deleted accounts, and the ids of the events its consumers handled (`@lingua/events` names that
 * collection; pass its name).
 */
export const platformShardDeclarations = (processedEventsCollection: string): ShardDeclaration[] => [
  {
    collection: DELETED_USERS_COLLECTION,
    unsharded:
      'one small tombstone per deleted account, read by _id when an event or a request names the user',
  },
  {
    collection: processedEventsCollection,
    key: { _id: 'hashed' },
    why: 'grows with the event volume (every handled event for PROCESSED_EVENTS_TTL_HOURS), read and written by _id only',
  },
];

export type ShardedDeclaration = Extract<ShardDeclaration, { key: unknown }>;

export const isSharded = (d: ShardDeclaration): d is ShardedDeclaration => 'key' in d;

/**
 * Per sharded collection, its shard key's fields other than `_id`: what a read or write that names a
 * document by `_id` must add to its filter to go to one shard (the outbox relay's, ADR 0030).
 */
export function shardKeyFields(declarations: readonly ShardDeclaration[]): Record<string, string[]> {
  return Object.fromEntries(
    declarations
      .filter(isSharded)
      .map((d) => [d.collection, Object.keys(d.key).filter((f) => f !== '_id')] as const)
      .filter(([, fields]) => fields.length > 0),
  );
}

/** A unique index a sharded cluster refuses: its fields do not start with the shard key's fields. */
export interface UniqueIndexConflict {
  collection: string;
  index: Record<string, 1 | -1>;
  shardKey: Record<string, 1 | 'hashed'>;
}

/**
 * The unique indexes that cannot exist on their sharded collection. MongoDB accepts a unique index
 * only when the shard key's fields are a prefix of its fields (a shard can check uniqueness only
 * among the documents it holds), or when it is on `_id` (unique per shard only).
 */
export function uniqueIndexConflicts(
  declarations: readonly ShardDeclaration[],
  indexes: readonly IndexSpec[],
): UniqueIndexConflict[] {
  const conflicts: UniqueIndexConflict[] = [];
  for (const index of indexes) {
    if (!index.unique) continue;
    const declared = declarations.find((d) => d.collection === index.collection);
    if (!declared || !isSharded(declared)) continue;
    const fields = Object.keys(index.key);
    const shardFields = Object.keys(declared.key);
    const prefix = shardFields.every((f, i) => fields[i] === f);
    if (!prefix && fields[0] !== '_id')
      conflicts.push({ collection: index.collection, index: index.key, shardKey: declared.key });
  }
  return conflicts;
}

const isOperatorObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' &&
  v !== null &&
  !Array.isArray(v) &&
  !(v instanceof Date) &&
  (v as { _bsontype?: unknown })._bsontype === undefined &&
  Object.keys(v).some((k) => k.startsWith('$'));

/** Whether `filter` pins `field` to one value or a list of values (what mongos can route). */
function pins(filter: Record<string, unknown>, field: string): boolean {
  if (field in filter) {
    const v = filter[field];
    if (!isOperatorObject(v)) return true;
    return '$eq' in v || '$in' in v;
  }
  const and = filter.$and;
  return Array.isArray(and) && and.some((f) => typeof f === 'object' && f !== null && pins(f, field));
}

/**
 * Whether a query with this filter is sent to the shards that own the key's values only (targeted)
 * rather than to every shard (broadcast): it must pin the shard key's first field, and every hashed
 * field (a hashed value says nothing about a range).
 */
export function filterIsTargeted(
  shardKey: Record<string, 1 | 'hashed'>,
  filter: Record<string, unknown>,
): boolean {
  return Object.entries(shardKey).every(
    ([field, kind], i) => (i > 0 && kind !== 'hashed') || pins(filter, field),
  );
}

/** Whether an upsert can run on the sharded collection: MongoDB wants the whole shard key pinned. */
export const upsertIsTargeted = (shardKey: Record<string, 1 | 'hashed'>, filter: Record<string, unknown>) =>
  Object.keys(shardKey).every((field) => pins(filter, field));

/** Whether an inserted document carries every field of the shard key (else it lands on the null chunk). */
export const documentHasShardKey = (shardKey: Record<string, 1 | 'hashed'>, doc: Record<string, unknown>) =>
  Object.keys(shardKey).every((field) => doc[field] !== undefined && doc[field] !== null);

/** One service's database and its declarations, as the mongosh script needs them. */
export interface ShardedDatabase {
  /** The environment variable that names the database (`IDENTITY_MONGO_DB`) and its default. */
  env: string;
  defaultName: string;
  declarations: readonly ShardDeclaration[];
}

/**
 * The mongosh script that shards every declared collection (deploy/mongo/shard-collections.js). It
 * is generated so that it cannot drift from the code; test/platform/shard-keys.test.ts compares.
 */
export function renderShardScript(databases: readonly ShardedDatabase[]): string {
  // written as prettier formats it, so that `npm run lint` passes on the committed file
  const literal = (key: Record<string, 1 | 'hashed'>) =>
    `{ ${Object.entries(key)
      .map(([f, v]) => `${/^[A-Za-z_$][\w$]*$/.test(f) ? f : `'${f}'`}: ${v === 1 ? 1 : `'hashed'`}`)
      .join(', ')} }`;
  const variable = (d: ShardedDatabase) => d.env.replace(/_MONGO_DB$/, '').toLowerCase();
  const unsharded = databases.flatMap((d) =>
    d.declarations
      .filter((c) => !isSharded(c))
      .map((c) => `//   ${d.defaultName}.${c.collection}: ${(c as { unsharded: string }).unsharded}`),
  );
  return `${[
    '// GENERATED from the shard declarations in services/*/src/data-access/indexes.ts: do not edit.',
    '// Regenerate: SHARD_SCRIPT_WRITE=1 npx jest test/platform/shard-keys.test.ts (ADR 0030).',
    '//',
    '// Run against a mongos, once, before the services start (or later: a collection that already',
    '// has data is sharded on the index made here). Idempotent: sharded collections are skipped.',
    '//   mongosh "mongodb://<admin>@<mongos>/admin" deploy/mongo/shard-collections.js',
    "// Database names follow the services' settings: IDENTITY_MONGO_DB=... in the environment.",
    '//',
    '// Left unsharded, on their database primary shard:',
    ...unsharded,
    '',
    '/* global db, sh, print -- mongosh */',
    "const env = (name, fallback) => (typeof process !== 'undefined' && process.env[name]) || fallback;",
    ...databases.map((d) => `const ${variable(d)} = env('${d.env}', '${d.defaultName}');`),
    '',
    'const collections = [',
    ...databases.flatMap((d) =>
      d.declarations
        .filter(isSharded)
        .map((c) => `  [${variable(d)}, '${c.collection}', ${literal(c.key)}],`),
    ),
    '];',
    '',
    'for (const [name, collection, key] of collections) {',
    '  const ns = `${name}.${collection}`;',
    "  if (db.getSiblingDB('config').collections.findOne({ _id: ns, unsplittable: { $ne: true } })?.key) {",
    '    print(`${ns}: already sharded`);',
    '    continue;',
    '  }',
    '  sh.enableSharding(name);',
    '  // a non-empty collection can be sharded only on an existing index of its key',
    '  db.getSiblingDB(name).getCollection(collection).createIndex(key);',
    '  sh.shardCollection(ns, key);',
    '  print(`${ns}: sharded on ${JSON.stringify(key)}`);',
    '}',
  ].join('\n')}\n`;
}
