import type { Connection } from 'mongoose';
import {
  addCounts,
  countsDelta,
  isNoChange,
  negateCounts,
  sumCounts,
  touchesCounts,
} from '../domain/cards/card-counts';
import type { Card, CardCounters, CardReadModels, CardRepository, CardWrite } from '../domain/ports';
import { cardCounters } from './card-counters.repository';
import { type CardStore, cardStore } from './card.repository';
import type { DueIndex } from './due-index';

/**
 * The read models derived from card writes: the owner's card counters (MongoDB) and the due index
 * (Redis), updated together (one round trip for both). Neither throws for its own failure: the
 * counters drop themselves to be recounted, the due index invalidates itself.
 */
export function cardReadModels(counters: CardCounters, dueIndex?: DueIndex): CardReadModels {
  return {
    async written(userId: string, writes: CardWrite[]): Promise<void> {
      if (writes.length === 0) return;
      const change = writes.map((w) => countsDelta(w.before, w.card)).reduce(addCounts);
      await Promise.all([
        isNoChange(change) ? undefined : counters.add(userId, change),
        dueIndex?.cardsWritten(
          userId,
          writes.map((w) => ({ card: w.card, version: w.revision })),
        ),
      ]);
    },
  };
}

export type { CardReadModels, CardWrite };

/**
 * The domain's CardRepository: the card store (persistence only) with the read models kept around
 * each of its writes, and answering the reads they serve (the due read model first, the counter for
 * the total of all cards).
 */
export function cardRepository(
  connection: Connection,
  dueIndex?: DueIndex,
  counters: CardCounters = cardCounters(connection),
  store: CardStore = cardStore(connection),
): CardRepository {
  const readModels = cardReadModels(counters, dueIndex);
  const invalidateDerived = async (userId: string) => {
    await Promise.all([counters.invalidate(userId), dueIndex?.invalidate(userId)]);
  };
  return {
    ...store,

    async insert(card, events) {
      const inserted = await store.insert(card, events);
      await readModels.written(inserted.userId, [{ before: null, card: inserted, revision: 0 }]);
      return inserted;
    },

    async insertMany(cards) {
      const users = [...new Set(cards.map((c) => c.userId))];
      let written: Card[];
      try {
        written = await store.insertMany(cards);
      } catch (err) {
        // some of the cards may be in the database, some not: the next read rebuilds from the truth
        await Promise.all(users.map(invalidateDerived));
        throw err;
      }
      await Promise.all(
        users.map((userId) =>
          readModels.written(
            userId,
            written.filter((c) => c.userId === userId).map((card) => ({ before: null, card, revision: 0 })),
          ),
        ),
      );
    },

    async findActive(userId, id) {
      const card = await store.findActive(userId, id);
      // a 404: if the due read model still lists the card, it missed a write (repaired there)
      if (!card) await dueIndex?.notFound(userId, id);
      return card;
    },

    list: (userId, filter, page) =>
      store.list(userId, filter, page, async () => {
        // all the user's active cards: the total is the counter, not a count of every card (it grows with them)
        const c = await counters.read(userId);
        return (c ?? (await counters.rebuild(userId))).total;
      }),

    /** The due read model answers (see due-index.ts); MongoDB when it cannot, and for one set. */
    async due(userId, q) {
      if (dueIndex && !q.setId) {
        const cards = await dueIndex.due(userId, q);
        if (cards) return cards;
      }
      return store.due(userId, q);
    },

    async countDue(userId, to, setId) {
      if (dueIndex && !setId) {
        const count = await dueIndex.countDue(userId, to);
        if (count !== null) return count;
      }
      return store.countDue(userId, to, setId);
    },

    /** `write`, then the read models. */
    async update(userId, id, set, options) {
      const written = await store.write(userId, id, set, options);
      if (!written) return null;
      await readModels.written(userId, [written]);
      return written.card;
    },

    async updateMany(userId, ids, set) {
      try {
        return await store.updateMany(userId, ids, set);
      } finally {
        // the prior and new states are not returned: the next reads rebuild from the truth
        await Promise.all([
          touchesCounts(set) ? counters.invalidate(userId) : undefined,
          dueIndex?.invalidate(userId),
        ]);
      }
    },

    /**
     * After a bulk write elsewhere changed these cards' content (not their schedule or state); that
     * write must `$inc` their `_rev` (`CARD_REVISION_INC`), whose new values are read back here.
     */
    async contentChanged(userId, ids) {
      if (!dueIndex || ids.length === 0) return;
      await dueIndex.contentChanged(userId, await store.revisions(userId, ids));
    },

    /**
     * After a bulk write elsewhere whose effect is not known card by card (e.g. a rolled-back import):
     * the due index and the counters are rebuilt from the cards on their next read.
     */
    invalidateDerived,

    async deleteSetCards(userId, setId) {
      let removed: Awaited<ReturnType<CardStore['deleteSetCards']>>;
      try {
        removed = await store.deleteSetCards(userId, setId);
      } catch (err) {
        await invalidateDerived(userId);
        throw err;
      }
      const { cards, deleted } = removed;
      // a card added to the set between the read and the delete is not in `cards`: rebuild from the truth
      if (deleted !== cards.length) await invalidateDerived(userId);
      else
        await Promise.all([
          counters.add(userId, negateCounts(sumCounts(cards))),
          dueIndex?.cardsDeleted(
            userId,
            cards.map((c) => c._id),
          ),
        ]);
      return cards.filter((c) => !c.isArchived).length;
    },

    async deleteAllOfUser(userId) {
      try {
        return await store.deleteAllOfUser(userId);
      } finally {
        await dueIndex?.invalidate(userId);
      }
    },
  };
}
