import {
  documentHasShardKey,
  filterIsTargeted,
  renderShardScript,
  type ShardDeclaration,
  uniqueIndexConflicts,
  upsertIsTargeted,
} from './shard-keys';

const declarations: ShardDeclaration[] = [
  { collection: 'cards', key: { userId: 1, _id: 1 }, why: 'ranges' },
  { collection: 'tokens', key: { userId: 'hashed' }, why: 'spread' },
  { collection: 'users', unsharded: 'unique e-mail' },
];

describe('shard keys', () => {
  it('When a unique index does not start with the shard key, Then it is a conflict; on _id, on the key or unsharded it is not', () => {
    expect(
      uniqueIndexConflicts(declarations, [
        { collection: 'cards', key: { userId: 1, _id: 1, n: 1 }, unique: true },
        { collection: 'cards', key: { userId: 1, word: 1 }, unique: true },
        { collection: 'cards', key: { _id: 1, word: 1 }, unique: true },
        { collection: 'tokens', key: { userId: 1, day: 1 }, unique: true },
        { collection: 'tokens', key: { tokenKey: 1 }, unique: true },
        { collection: 'tokens', key: { tokenKey: 1 } },
        { collection: 'users', key: { email: 1 }, unique: true },
      ]),
    ).toEqual([
      { collection: 'cards', index: { userId: 1, word: 1 }, shardKey: { userId: 1, _id: 1 } },
      { collection: 'tokens', index: { tokenKey: 1 }, shardKey: { userId: 'hashed' } },
    ]);
  });

  it('When a filter pins the first field of a ranged key or every hashed field, Then it is targeted; otherwise broadcast', () => {
    const ranged = { userId: 1, _id: 1 } as const;
    expect(filterIsTargeted(ranged, { userId: 'u1', isArchived: false })).toBe(true);
    expect(filterIsTargeted(ranged, { userId: { $in: ['u1', 'u2'] } })).toBe(true);
    expect(filterIsTargeted(ranged, { $and: [{ userId: { $eq: 'u1' } }, { x: 1 }] })).toBe(true);
    expect(filterIsTargeted(ranged, { _id: 'c1' })).toBe(false);
    expect(filterIsTargeted(ranged, { userId: { $ne: 'u1' } })).toBe(false);
    expect(filterIsTargeted({ userId: 'hashed' }, { userId: 'u1' })).toBe(true);
    expect(filterIsTargeted({ userId: 'hashed' }, { _outboxPending: true })).toBe(false);
    expect(filterIsTargeted({ userId: 'hashed' }, { userId: { $gt: 'a' } })).toBe(false);
    expect(upsertIsTargeted(ranged, { userId: 'u1' })).toBe(false);
    expect(upsertIsTargeted(ranged, { userId: 'u1', _id: 'c1' })).toBe(true);
    expect(documentHasShardKey(ranged, { userId: 'u1', _id: 'c1' })).toBe(true);
    expect(documentHasShardKey(ranged, { _id: 'c1' })).toBe(false);
  });

  it('When the script is rendered, Then it shards each sharded collection on its key and names the unsharded ones with why', () => {
    const script = renderShardScript([
      { env: 'FLASHCARDS_MONGO_DB', defaultName: 'lingua_flashcards', declarations },
    ]);
    expect(script).toContain("  [flashcards, 'tokens', { userId: 'hashed' }],");
    expect(script).toContain('//   lingua_flashcards.users: unique e-mail');
    expect(script).toContain('sh.shardCollection(ns, key);');
  });
});
