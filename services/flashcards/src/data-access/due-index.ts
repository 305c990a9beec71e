import { createHash, randomUUID } from 'node:crypto';
import { isAbandonment } from '@lingua/errors';
import type { Logger } from '@lingua/logger';
import type { RedisClient } from '@lingua/redis';
import type { CardDoc } from './card.model';

/** The card shape the index caches (the repository's `Card`, without importing it: no cycle). */
export type IndexedCard = Omit<CardDoc, '_id'> & { id: string };

/** One entry of a rebuild: what the due read model needs of an active card. */
export interface DueEntry {
  id: string;
  due: number;
  favorite: boolean;
  /** The card document's write version (`_rev`, see card.repository.ts). */
  version: number;
}

/** A card as one database write left it, with that write's version of the card. */
export interface VersionedCard {
  card: IndexedCard;
  version: number;
}

/** A card's version once it is deleted: no later write of it is ever applied. */
const DELETED_VERSION = String(Number.MAX_SAFE_INTEGER);

/** What the database holds of a card for the window check: enough to tell whether the index is right. */
export interface CardStamp {
  id: string;
  userId: string;
  isArchived: boolean;
  due: number;
  favorite: boolean;
  version: number;
}

/** Where the index reads the truth from (MongoDB). */
export interface DueIndexSource {
  /** Every active (non-archived) card of the user: id, due date, favourite flag. */
  activeEntries(userId: string): Promise<DueEntry[]>;
  // Each read names the user: the cards are sharded by user (ADR 0030), and another user's card is
  // absent from this user's index anyway, as a deleted one is.
  /** One of the user's cards by id (any state) or null. */
  byId(userId: string, id: string): Promise<IndexedCard | null>;
  /** The stamps of these cards of the user (any state; absent = deleted): one `_id $in` query, a few fields. */
  stamps(userId: string, ids: string[]): Promise<CardStamp[]>;
  /** These cards of the user (any state) with their versions, to repair the index with. */
  versioned(userId: string, ids: string[]): Promise<VersionedCard[]>;
}

export interface DueIndexOptions {
  client: RedisClient;
  source: DueIndexSource;
  logger: Logger;
  /** Separates databases sharing one Redis (tests, bench). */
  namespace: string;
  /**
   * Lifetime of a user's index, seconds from its build: writes never extend it, so whatever it missed
   * (a crash between the two writes, a Redis failover losing one) is gone after at most this long.
   */
  ttlSeconds: number;
  /** How long a read waits for another request's rebuild before answering from MongoDB. */
  waitMs: number;
  /**
   * A card shown within this many ms after this process found it right in the database (at the
   * version the index still holds) is not checked again; 0 = every answer is checked.
   */
  checkMs?: number;
  /** Decoded cached cards kept in this process (see decodedCardMemo); default 5000. */
  decodedCards?: number;
}

export interface DueRange {
  from?: Date;
  to: Date;
  favoritesOnly?: boolean;
  limit: number;
}

const DATE_FIELDS = ['lastReviewedAt', 'nextReviewDate', 'createdAt', 'updatedAt'] as const;
const REBUILD_ATTEMPTS = 3;
const ZADD_CHUNK = 1000;
const LOCK_MS = 120_000;
/** The index's data outlives its `ready` marker by this much, so a read never sees ready over emptied data. */
const DATA_MARGIN_S = 60;
/** Users whose last window check this process remembers (the oldest is forgotten first). */
const VERIFIED_USERS = 10_000;

/** Fills cache misses only if no write happened since the read began (the generation is unchanged). */
const FILL_IF_SAME_GENERATION = `
if (redis.call('GET', KEYS[1]) or '0') ~= ARGV[1] then return 0 end
for i = 3, #ARGV, 2 do redis.call('HSETNX', KEYS[2], ARGV[i], ARGV[i + 1]) end
if redis.call('TTL', KEYS[2]) == -1 then redis.call('EXPIRE', KEYS[2], ARGV[2]) end
return 1`;
/**
 * ready, generation, the window (id, score, …), the cached cards of those ids and the versions the
 * index holds of them, atomically. KEYS: ready, gen, due or fav, cards, ver.
 */
const READ_WINDOW = `
if redis.call('EXISTS', KEYS[1]) == 0 then return {0, false, {}, {}, {}} end
local gen = redis.call('GET', KEYS[2])
local flat = redis.call('ZRANGEBYSCORE', KEYS[3], ARGV[1], ARGV[2], 'WITHSCORES', 'LIMIT', 0, tonumber(ARGV[3]))
if #flat == 0 then return {1, gen, flat, {}, {}} end
local ids = {}
for i = 1, #flat, 2 do ids[#ids + 1] = flat[i] end
return {1, gen, flat, redis.call('HMGET', KEYS[4], unpack(ids)), redis.call('HMGET', KEYS[5], unpack(ids))}`;
const READ_WINDOW_SHA = createHash('sha1').update(READ_WINDOW).digest('hex');
/**
 * Applies card writes unless the index already holds a newer version of the card: two writes of one
 * card whose Redis updates land in the opposite order of their database writes leave the newer
 * state, never the older. KEYS: due, fav, cards, ver, gen, dirty, ready. ARGV: ttl, then per card
 * id, version, archived (1/0), score, favourite (1/0), JSON. Returns how many were applied.
 */
const WRITE_IF_NEWER = `
local applied = 0
for i = 2, #ARGV, 6 do
  local id = ARGV[i]
  local known = tonumber(redis.call('HGET', KEYS[4], id) or '-1')
  if tonumber(ARGV[i + 1]) >= known then
    redis.call('HSET', KEYS[4], id, ARGV[i + 1])
    if ARGV[i + 2] == '1' then
      redis.call('ZREM', KEYS[1], id)
      redis.call('ZREM', KEYS[2], id)
      redis.call('HDEL', KEYS[3], id)
    else
      redis.call('ZADD', KEYS[1], ARGV[i + 3], id)
      if ARGV[i + 4] == '1' then redis.call('ZADD', KEYS[2], ARGV[i + 3], id) else redis.call('ZREM', KEYS[2], id) end
      redis.call('HSET', KEYS[3], id, ARGV[i + 5])
    end
    applied = applied + 1
  end
end
redis.call('INCR', KEYS[5])
redis.call('SET', KEYS[6], '1', 'EX', 600)
-- the model's lifetime runs from its build: a write never extends it (only gives a new key one)
for k = 1, 3 do if redis.call('TTL', KEYS[k]) == -1 then redis.call('EXPIRE', KEYS[k], ARGV[1]) end end
redis.call('EXPIRE', KEYS[4], ARGV[1])
redis.call('EXPIRE', KEYS[5], ARGV[1])
return applied`;
/**
 * Forgets cached card texts after a content-only write, unless a newer write of the card is already
 * in (its text then carries the new content). KEYS: cards, ver, gen, dirty. ARGV: ttl, id, version, …
 */
const CONTENT_CHANGED = `
for i = 2, #ARGV, 2 do
  local known = tonumber(redis.call('HGET', KEYS[2], ARGV[i]) or '-1')
  if tonumber(ARGV[i + 1]) >= known then
    redis.call('HSET', KEYS[2], ARGV[i], ARGV[i + 1])
    redis.call('HDEL', KEYS[1], ARGV[i])
  end
end
redis.call('INCR', KEYS[3])
redis.call('SET', KEYS[4], '1', 'EX', 600)
redis.call('EXPIRE', KEYS[2], ARGV[1])
redis.call('EXPIRE', KEYS[3], ARGV[1])
return 1`;
/** Releases the rebuild lock only when it is still ours. */
const RELEASE_LOCK = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;

const toJson = (card: IndexedCard) => JSON.stringify(card);
const fromJson = (text: string): IndexedCard => {
  const card = JSON.parse(text) as Record<string, unknown>;
  for (const f of DATE_FIELDS) if (typeof card[f] === 'string') card[f] = new Date(card[f]);
  return card as unknown as IndexedCard;
};

function deepFreeze<T>(value: T): T {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return value;
  for (const v of Object.values(value)) deepFreeze(v);
  return Object.freeze(value);
}

/**
 * Decoded cards by their exact cached JSON: the same text always decodes to the same card, so a hot due
 * list is parsed once, not on every read (JSON.parse and date revival were a large share of a due
 * request's CPU). The cards are shared between requests, hence frozen (read-only; Date objects too,
 * by convention). The oldest entry goes first when full.
 */
export function decodedCardMemo(maxEntries: number) {
  // keyed by card id, not by the text: hashing a ~700-byte string per card was a tenth of a due
  // request's CPU; comparing the stored text with the new one is a plain memory compare
  const memo = new Map<string, { text: string; card: IndexedCard }>();
  return (id: string, text: string): IndexedCard => {
    const hit = memo.get(id);
    if (hit !== undefined && hit.text === text) return hit.card;
    const card = deepFreeze(fromJson(text));
    if (hit === undefined && memo.size >= maxEntries) memo.delete(memo.keys().next().value as string);
    memo.set(id, { text, card });
    return card;
  };
}

export type DueIndex = ReturnType<typeof createDueIndex>;

/** The Redis keys of one user's due index (exported for tests and operations). */
export function dueIndexKeys(namespace: string, userId: string) {
  const base = `flashcards:due:{${namespace}:${userId}}`;
  return {
    due: `${base}:due`,
    fav: `${base}:fav`,
    cards: `${base}:cards`,
    ready: `${base}:ready`,
    gen: `${base}:gen`,
    dirty: `${base}:dirty`,
    lock: `${base}:lock`,
    /** card id → the version of the last write applied (refuses older ones; kept across drops) */
    ver: `${base}:ver`,
  };
}

/**
 * The due read model in Redis, kept by the card repository on every card write. Why: built when
 * FerretDB v1 scanned the collection for every query; on FerretDB 2 the index serves the due
 * filter but not its sort, and the read model still answers 14-50x more due requests per second
 * (measured side by side: `BENCH_COMPARE_DUE_INDEX=true node bench/flashcards-due.js`, README).
 *
 * Per user (keys `flashcards:due:{<db>:<user>}:*`):
 * - `due`: sorted set of the active cards, score = nextReviewDate in ms; `fav`: the same for favourites;
 * - `cards`: hash card id → the card as JSON (written by writers, filled by readers on a miss);
 * - `ready`: present once the index was built from MongoDB (an absent marker means "rebuild first");
 * - `gen`: bumped by every write, so a reader never caches a card it read before a concurrent write;
 * - `dirty`: set by every write, so a rebuild that raced with writes is not trusted;
 * - `lock`: one rebuild at a time;
 * - `ver`: card id → version of the last write applied; an older write arriving late is refused.
 *
 * MongoDB stays the source of truth: a failed Redis write after the MongoDB write drops the user's
 * index (rebuilt on the next read), and every answer is checked against the cards it returns; a
 * mismatch drops the index and that request is answered from MongoDB. `null` from a read means
 * "answer from MongoDB".
 */
export function createDueIndex(opts: DueIndexOptions) {
  const { client, source, logger } = opts;
  const keysOf = (userId: string) => dueIndexKeys(opts.namespace, userId);
  /** Users whose index could not be dropped after a failed write: dropped before this process reads it again. */
  const pendingDrops = new Set<string>();
  const decode = decodedCardMemo(opts.decodedCards ?? 5000);
  const dataTtl = opts.ttlSeconds + DATA_MARGIN_S;
  const checkMs = opts.checkMs ?? 0;
  /** Per user: when this process last checked the index against the database, and the versions it found right. */
  const verified = new Map<string, { at: number; versions: Map<string, number> }>();
  const inflight = new Map<string, { ids: Set<string>; stamps: Promise<Map<string, CardStamp>> }>();

  async function drop(userId: string): Promise<boolean> {
    const k = keysOf(userId);
    try {
      await client
        .multi()
        .del([k.ready, k.due, k.fav, k.cards])
        .incr(k.gen)
        .expire(k.gen, dataTtl)
        .set(k.dirty, '1', { EX: 600 })
        .exec();
      pendingDrops.delete(userId);
      return true;
    } catch (err) {
      pendingDrops.add(userId);
      logger.error({ err, userId }, 'due index: cannot drop a stale index; this process will not read it');
      return false;
    }
  }

  /** Applies writes to the index; on failure the index is dropped, never left stale. */
  async function write(userId: string, apply: (k: ReturnType<typeof keysOf>) => Promise<unknown>) {
    try {
      await apply(keysOf(userId));
    } catch (err) {
      logger.warn({ err, userId }, 'due index: write failed after the database write; dropping the index');
      await drop(userId);
    }
  }

  async function rebuildOnce(userId: string): Promise<boolean> {
    const k = keysOf(userId);
    await client.del(k.dirty);
    const entries = await source.activeEntries(userId);
    const m = client.multi().del([k.ready, k.due, k.fav, k.cards]);
    for (let i = 0; i < entries.length; i += ZADD_CHUNK) {
      const chunk = entries.slice(i, i + ZADD_CHUNK);
      m.zAdd(
        k.due,
        chunk.map((e) => ({ score: e.due, value: e.id })),
      );
      const favs = chunk.filter((e) => e.favorite);
      if (favs.length)
        m.zAdd(
          k.fav,
          favs.map((e) => ({ score: e.due, value: e.id })),
        );
    }
    // the versions read with the truth: a write older than them, still on its way, is refused
    for (let i = 0; i < entries.length; i += ZADD_CHUNK)
      m.hSet(
        k.ver,
        Object.fromEntries(entries.slice(i, i + ZADD_CHUNK).map((e) => [e.id, String(e.version)])),
      );
    m.incr(k.gen);
    for (const key of [k.due, k.fav, k.gen, k.ver]) m.expire(key, dataTtl);
    await m.exec();
    // a write between our read of MongoDB and the replacement above may have been overwritten
    if ((await client.get(k.dirty)) !== null) return false;
    // the model's one lifetime: set here only, never renewed (see ttlSeconds)
    await client.set(k.ready, '1', { EX: opts.ttlSeconds });
    return true;
  }

  /** Builds the user's index from MongoDB unless another request is doing it (then waits for that one). */
  async function ensureBuilt(userId: string): Promise<boolean> {
    const k = keysOf(userId);
    const token = randomUUID();
    const acquired = await client.set(k.lock, token, { NX: true, PX: LOCK_MS });
    if (acquired === null) {
      const until = Date.now() + opts.waitMs;
      while (Date.now() < until) {
        await new Promise((r) => setTimeout(r, 25));
        if ((await client.exists(k.ready)) === 1) return true;
      }
      return false;
    }
    try {
      for (let attempt = 0; attempt < REBUILD_ATTEMPTS; attempt++) if (await rebuildOnce(userId)) return true;
      return false;
    } finally {
      await client.eval(RELEASE_LOCK, { keys: [k.lock], arguments: [token] }).catch(() => undefined);
    }
  }

  /** The window's ids, scores and cached cards in one round trip, after building the index if needed. */
  async function window(userId: string, key: 'due' | 'fav', r: DueRange) {
    const k = keysOf(userId);
    for (let attempt = 0; attempt < 2; attempt++) {
      const [ready, gen, flat, cached, versions] = (await evalCached(READ_WINDOW, READ_WINDOW_SHA, {
        keys: [k.ready, k.gen, k[key], k.cards, k.ver],
        arguments: [r.from ? String(r.from.getTime()) : '-inf', String(r.to.getTime()), String(r.limit)],
      })) as [number, string | null, string[], (string | null)[], (string | null)[]];
      if (ready === 1) {
        const members: WindowMember[] = [];
        for (let i = 0; i < flat.length; i += 2) {
          const version = versions[i / 2];
          members.push({
            value: flat[i]!,
            score: Number(flat[i + 1]),
            cached: cached[i / 2] ?? null,
            version: version == null ? null : Number(version),
          });
        }
        return { gen: gen ?? '0', members };
      }
      if (attempt === 0 && !(await ensureBuilt(userId))) return null;
    }
    return null;
  }

  /** The cards of the window, from the cache or, on a miss, by `findOne({_id})`; null when inconsistent. */
  async function cardsOf(userId: string, gen: string, members: WindowMember[]) {
    const k = keysOf(userId);
    if (members.length === 0) return [];
    // only the misses wait for MongoDB (in parallel); a warm list is decoded synchronously
    const missing = members.filter((m) => !m.cached);
    const read = new Map(
      await Promise.all(missing.map(async (m) => [m.value, await source.byId(userId, m.value)] as const)),
    );
    const fill: string[] = [];
    const out: IndexedCard[] = [];
    for (const m of members) {
      const card = m.cached ? decode(m.value, m.cached) : read.get(m.value);
      // the answer must agree with the truth it shows: owner, active, same due date
      if (!card || card.userId !== userId || card.isArchived || card.nextReviewDate.getTime() !== m.score)
        return null;
      if (!m.cached) fill.push(card.id, toJson(card));
      out.push(card);
    }
    if (fill.length)
      await client.eval(FILL_IF_SAME_GENERATION, {
        keys: [k.gen, k.cards],
        arguments: [gen, String(dataTtl), ...fill],
      });
    return out;
  }

  /**
   * The window against the database, in one `_id $in` query of a few fields: the ids whose entry is
   * not what the database holds (deleted, archived, another due date or favourite flag, or a write
   * the index missed: a newer version), for a crash between the two writes or a Redis failover.
   */
  async function staleOf(userId: string, members: WindowMember[], favoritesOnly: boolean) {
    if (members.length === 0) return [];
    // entries this process found right within checkMs, at the version the index still holds, are not
    // asked again: a hot due list costs one query per user per checkMs, not one per read
    const now = Date.now();
    const known = verified.get(userId);
    const fresh = known !== undefined && now - known.at < checkMs;
    const unchecked = fresh
      ? members.filter((m) => m.version === null || known.versions.get(m.value) !== m.version)
      : members;
    if (unchecked.length === 0) return [];
    const stamps = await stampsOf(
      userId,
      unchecked.map((m) => m.value),
    );
    const stale = unchecked.filter((m) => {
      const s = stamps.get(m.value);
      return (
        !s ||
        s.userId !== userId ||
        s.isArchived ||
        s.due !== m.score ||
        (favoritesOnly && !s.favorite) ||
        (m.version !== null && s.version !== m.version)
      );
    });
    if (stale.length === 0) {
      const versions = fresh ? known.versions : new Map<string, number>();
      for (const m of unchecked) if (m.version !== null) versions.set(m.value, m.version);
      if (!fresh && verified.size >= VERIFIED_USERS) verified.delete(verified.keys().next().value as string);
      verified.set(userId, fresh ? known : { at: now, versions });
    }
    return stale.map((m) => m.value);
  }

  /**
   * The cards' stamps, one query per user at a time: concurrent reads of the same window (a hot due
   * list) share the query in flight instead of each sending their own.
   */
  async function stampsOf(userId: string, ids: string[]): Promise<Map<string, CardStamp>> {
    const flying = inflight.get(userId);
    if (flying && ids.every((id) => flying.ids.has(id))) return flying.stamps;
    const entry = {
      ids: new Set(ids),
      stamps: source.stamps(userId, ids).then((list) => new Map(list.map((s) => [s.id, s]))),
    };
    inflight.set(userId, entry);
    try {
      return await entry.stamps;
    } finally {
      if (inflight.get(userId) === entry) inflight.delete(userId);
    }
  }

  /** Puts the database's state of these cards into the user's index (a deleted one: removed for good). */
  async function repair(userId: string, ids: string[]) {
    const found = await source.versioned(userId, ids);
    const own = found.filter((v) => v.card.userId === userId);
    const gone = ids.filter((id) => !found.some((v) => v.card.id === id));
    const foreign = found.filter((v) => v.card.userId !== userId).map((v) => v.card.id);
    if (own.length) await index.cardsWritten(userId, own);
    if (gone.length) await index.cardsDeleted(userId, gone);
    if (foreign.length)
      await write(userId, (k) =>
        client.multi().zRem(k.due, foreign).zRem(k.fav, foreign).hDel(k.cards, foreign).exec(),
      );
  }

  /** EVALSHA (the hot read sends 40 bytes, not the script), loading the script when Redis lacks it. */
  async function evalCached(script: string, sha: string, args: { keys: string[]; arguments: string[] }) {
    try {
      return await client.evalSha(sha, args);
    } catch (err) {
      if (!String((err as Error)?.message).startsWith('NOSCRIPT')) throw err;
      return client.eval(script, args);
    }
  }

  async function usable(userId: string): Promise<boolean> {
    return !pendingDrops.has(userId) || (await drop(userId));
  }

  const index = {
    /**
     * Active cards due in the range, earliest first; null: answer from MongoDB. Cards served from the
     * cache are shared and frozen: read them, never change them.
     */
    async due(userId: string, r: DueRange): Promise<IndexedCard[] | null> {
      try {
        if (!(await usable(userId))) return null;
        const w = await window(userId, r.favoritesOnly ? 'fav' : 'due', r);
        if (!w) return null;
        const [cards, stale] = await Promise.all([
          cardsOf(userId, w.gen, w.members),
          staleOf(userId, w.members, r.favoritesOnly === true),
        ]);
        if (stale.length > 0) {
          // this answer from the database; the index repaired for the next one
          logger.warn(
            { userId, cards: stale.length },
            'due index missed writes of cards it shows; repairing',
          );
          await repair(userId, stale);
          return null;
        }
        if (cards === null || (r.favoritesOnly && cards.some((c) => !c.isFavorite))) {
          logger.warn({ userId }, 'due index disagrees with the database; dropping it');
          await drop(userId);
          return null;
        }
        return cards;
      } catch (err) {
        if (isAbandonment(err)) throw err; // the request is over: no fallback work for it
        logger.warn({ err, userId }, 'due index unavailable; answering from the database');
        return null;
      }
    },

    /** Number of active cards due up to `to`; null: count in MongoDB. */
    async countDue(userId: string, to: Date): Promise<number | null> {
      const k = keysOf(userId);
      try {
        if (!(await usable(userId))) return null;
        for (let attempt = 0; attempt < 2; attempt++) {
          const [ready, count] = (await client
            .multi()
            .exists(k.ready)
            .zCount(k.due, '-inf', to.getTime())
            .exec()) as unknown as [number, number];
          if (ready === 1) return count;
          if (attempt === 0 && !(await ensureBuilt(userId))) return null;
        }
        return null;
      } catch (err) {
        if (isAbandonment(err)) throw err; // the request is over: no fallback work for it
        logger.warn({ err, userId }, 'due index unavailable; counting in the database');
        return null;
      }
    },

    /**
     * After database writes that returned the cards' new state (active or archived), each with the
     * card's version after that write; a write older than one already applied is ignored.
     */
    async cardsWritten(userId: string, written: VersionedCard[]): Promise<void> {
      if (written.length === 0) return;
      await write(userId, (k) => {
        const args = [String(dataTtl)];
        for (const { card, version } of written)
          args.push(
            card.id,
            String(version),
            card.isArchived ? '1' : '0',
            String(card.nextReviewDate.getTime()),
            card.isFavorite ? '1' : '0',
            toJson(card),
          );
        return client.eval(WRITE_IF_NEWER, {
          keys: [k.due, k.fav, k.cards, k.ver, k.gen, k.dirty, k.ready],
          arguments: args,
        });
      });
    },

    /** After cards were deleted from the database: no later (delayed) write of them is applied. */
    async cardsDeleted(userId: string, ids: string[]): Promise<void> {
      if (ids.length === 0) return;
      await write(userId, async (k) => {
        const m = client.multi().zRem(k.due, ids).zRem(k.fav, ids).hDel(k.cards, ids);
        m.hSet(k.ver, Object.fromEntries(ids.map((id) => [id, DELETED_VERSION])));
        m.incr(k.gen).set(k.dirty, '1', { EX: 600 });
        // bookkeeping only: the model's own keys keep the lifetime of their build
        for (const key of [k.gen, k.ver]) m.expire(key, dataTtl);
        await m.exec();
      });
    },

    /**
     * A card the user asked for answered 404 (deleted, archived, not theirs): if the index still lists
     * it, it missed that write, and the database's state replaces its entry.
     */
    async notFound(userId: string, id: string): Promise<void> {
      try {
        if (pendingDrops.has(userId)) return;
        if ((await client.zScore(keysOf(userId).due, id)) === null) return;
        logger.warn({ userId, cardId: id }, 'due index listed a card that is not found; repairing');
        await repair(userId, [id]);
      } catch (err) {
        if (isAbandonment(err)) throw err;
        logger.warn({ err, userId }, 'due index: cannot repair after a 404; dropping the index');
        await drop(userId);
      }
    },

    /** After a write that changed cards' content but not their schedule, archive or favourite state. */
    async contentChanged(userId: string, changed: { id: string; version: number }[]): Promise<void> {
      if (changed.length === 0) return;
      await write(userId, (k) =>
        client.eval(CONTENT_CHANGED, {
          keys: [k.cards, k.ver, k.gen, k.dirty],
          arguments: [String(dataTtl), ...changed.flatMap((c) => [c.id, String(c.version)])],
        }),
      );
    },

    /** Drops the user's index (the next read rebuilds it from MongoDB). */
    invalidate: (userId: string) => drop(userId).then(() => undefined),

    /** Builds the user's index from MongoDB now (bench seeding, operations); false if it could not. */
    rebuild: (userId: string) => ensureBuilt(userId),
  };
  return index;
}

/** One entry of a read window: card id, score, cached JSON, the version the index holds. */
interface WindowMember {
  value: string;
  score: number;
  cached: string | null;
  version: number | null;
}
