import type { Connection } from 'mongoose';
import type { CardCounters } from '../domain/ports';
import type { Logger } from '@lingua/logger';
import { isDuplicateKeyError } from '@lingua/mongo';
import type { CardCountsStore } from '../domain/card-stats.use-case';
import { type CardCounts, isNoChange, NO_COUNTS } from '../domain/cards/card-counts';
import { MASTERED_AT } from '../domain/scheduling/mastery';
import { type CardCountersDoc, cardCountersModel } from './card-counters.model';
import { cardModel } from './card.model';

const REBUILD_ATTEMPTS = 3;

export type { CardCounters };

const countsOfDoc = (d: Pick<CardCountersDoc, 'total' | 'mastered' | 'favorite'>): CardCounts => ({
  total: d.total,
  mastered: d.mastered,
  favorite: d.favorite,
});

/** Counters no set of cards can produce: they drifted (see README), so they are recounted. */
const impossible = (c: CardCounts) =>
  c.total < 0 || c.mastered < 0 || c.favorite < 0 || c.mastered > c.total || c.favorite > c.total;

/**
 * The per-user card counters (card-counters.model.ts). The card repository calls `add` after each
 * card write; readers call `read`, then `rebuild` when it answers null. Single-document `$inc` only:
 * no transactions (the local FerretDB has none), so a card write and its counter change are two
 * writes, and anything that cannot tell its exact change drops the document to be recounted.
 */
export function cardCounters(
  connection: Connection,
  logger?: Logger,
  options: { maxAgeMs?: number; now?: () => number } = {},
): CardCounters {
  const now = options.now ?? Date.now;
  const counters = cardCountersModel(connection).collection;
  const Cards = cardModel(connection);

  /** The truth, from the cards: three counts over the user's active cards (index prefix userId+isArchived). */
  async function countActive(userId: string): Promise<CardCounts> {
    const active = { userId, isArchived: false };
    const [total, mastered, favorite] = await Promise.all([
      Cards.countDocuments(active),
      Cards.countDocuments({ ...active, masteryLevel: { $gte: MASTERED_AT } }),
      Cards.countDocuments({ ...active, isFavorite: true }),
    ]);
    return { total, mastered, favorite };
  }

  async function drop(userId: string): Promise<void> {
    try {
      await counters.deleteOne({ _id: userId } as never);
    } catch (err) {
      logger?.error({ err, userId }, 'card counters: cannot drop counters that may be wrong');
    }
  }

  const store = {
    /**
     * After a card write: applies its change to the user's counters. Never upserts (a missing
     * document is rebuilt from a count on the next read, which already includes this write) and
     * never throws (the card write succeeded): a failure drops the document instead.
     */
    async add(userId: string, change: CardCounts): Promise<void> {
      if (isNoChange(change)) return;
      try {
        await counters.updateOne({ _id: userId } as never, { $inc: { ...change, version: 1 } });
      } catch (err) {
        logger?.warn({ err, userId }, 'card counters: $inc failed after the card write; dropping them');
        await drop(userId);
      }
    },

    /** After a write whose change to the counts is not known card by card: recount on the next read. */
    invalidate: drop,

    async read(userId: string): Promise<CardCounts | null> {
      const doc = await counters.findOne<CardCountersDoc>({ _id: userId } as never);
      if (!doc?.ready) return null;
      const counts = countsOfDoc(doc);
      if (impossible(counts)) {
        logger?.warn({ userId, counts }, 'card counters drifted; recounting');
        await drop(userId);
        return null;
      }
      // counted too long ago: a change the counters missed (a crash between a card write and its
      // $inc) shows no longer than this (counters from before countedAt are recounted once)
      if (options.maxAgeMs !== undefined && now() - (doc.countedAt?.getTime() ?? 0) > options.maxAgeMs) {
        await drop(userId);
        return null;
      }
      return counts;
    },

    /**
     * Counts the user's cards and stores the result, unless a card write changed the counters while
     * counting (`version` moved): then it counts again. Users without cards get no document.
     */
    async rebuild(userId: string): Promise<CardCounts> {
      if ((await Cards.countDocuments({ userId, isArchived: false })) === 0) return NO_COUNTS;
      for (let attempt = 0; attempt < REBUILD_ATTEMPTS; attempt++) {
        let doc: CardCountersDoc | null;
        try {
          // the placeholder exists before the count, so every write from now on bumps its version
          doc = (await counters.findOneAndUpdate(
            { _id: userId } as never,
            { $setOnInsert: { ...NO_COUNTS, version: 0, ready: false } },
            { upsert: true, returnDocument: 'after' },
          )) as unknown as CardCountersDoc | null;
        } catch (err) {
          if (isDuplicateKeyError(err)) continue; // another rebuild created it at the same moment
          throw err;
        }
        if (!doc) continue;
        if (doc.ready) return countsOfDoc(doc); // another request finished first
        const counted = await countActive(userId);
        const r = await counters.updateOne({ _id: userId, version: doc.version, ready: false } as never, {
          $set: { ...counted, ready: true, countedAt: new Date(now()) },
        });
        if (r.matchedCount === 1) return counted;
      }
      // cards kept changing while counting: answer a fresh count, store nothing (the next read retries)
      return countActive(userId);
    },

    /** On user.deleted (after the cards). */
    async deleteAllOfUser(userId: string): Promise<number> {
      return (await counters.deleteMany({ _id: userId } as never)).deletedCount;
    },
  };
  return store satisfies CardCountsStore;
}
