import type { Connection, QueryFilter } from 'mongoose';
import type { AnyDomainEvent } from '@lingua/contracts';
import { stageEvents } from '@lingua/events';
import type {
  Card,
  CardListFilter,
  CardRepository,
  CardWrite,
  DueQuery,
  LastReview,
  NewCard,
  SetTally,
  SetTallyRule,
} from '../domain/ports';
import { type CardDoc, cardModel } from './card.model';
import type { DueIndexSource } from './due-index';

export type { Card, CardListFilter, CardRepository, DueQuery, NewCard };

/** Escapes a user's text for use inside a RegExp: special characters match literally. */
export const escapeRegex = (text: string) => text.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');

export const wordKeyOf = (word: string) => word.trim().toLowerCase();

/**
 * Every write of a card document `$inc`s its `_rev` in the same atomic update (absent = 0 for cards
 * older than the field), so the due read model can order writes that reach Redis out of order.
 */
type StoredCard = CardDoc & {
  _outbox?: unknown;
  _outboxPending?: unknown;
  _rev?: number;
  _lastReview?: LastReview;
};
const REV = { _rev: 1 } as const;

const toCard = (doc: CardDoc): Card => {
  const { _id, ...rest } = doc as StoredCard;
  delete rest._outbox;
  delete rest._outboxPending;
  delete rest._rev;
  delete rest._lastReview;
  return { id: _id, ...rest };
};

/** What every bulk write of cards outside this repository adds to its update (see `_rev` above). */
export const CARD_REVISION_INC = { $inc: REV };

/**
 * The cards' persistence, and nothing else: the read models derived from card writes (counters, due
 * index) are kept by card-read-models.ts around it. Where a write's effect matters to them, it is
 * returned (the prior state, the revision, the written cards).
 */
export type CardStore = Omit<
  CardRepository,
  'update' | 'insertMany' | 'list' | 'contentChanged' | 'invalidateDerived' | 'deleteSetCards'
> & {
  insertMany(cards: NewCard[]): Promise<Card[]>;
  /** `totalOfAll`: the total when the filter selects all the user's active cards (the counter). */
  list(
    userId: string,
    filter: CardListFilter,
    page: { skip: number; limit: number },
    totalOfAll?: () => Promise<number>,
  ): Promise<{ items: Card[]; total: number }>;
  revisions(userId: string, ids: string[]): Promise<{ id: string; version: number }[]>;
  deleteSetCards(
    userId: string,
    setId: string,
  ): Promise<{
    cards: { _id: string; isArchived: boolean; isFavorite: boolean; masteryLevel: number }[];
    deleted: number;
  }>;
};

/**
 * Data access for cards; every query is scoped to the owner, so another user's card is simply "not found".
 * Each card write is one atomic single-document update (libs/mongo/README.md, "Database guarantees we
 * rely on"), so it and the outbox relay's `$pull` of a published event never undo each other.
 * The read models of the cards are not kept here (card-read-models.ts, around this store).
 */
export function cardStore(connection: Connection): CardStore {
  const Cards = cardModel(connection);
  const active = (userId: string, id: string) => ({ _id: id, userId, isArchived: false });

  /**
   * Persists a change to an active card of the user, or null when it does not exist (or belongs to
   * someone else, or is archived). `where` makes it a compare-and-set, so two concurrent reviews
   * cannot both apply to the same prior state. Events are staged in the same write. The card's prior
   * state comes back from the write itself, so the read models get its exact change.
   */
  async function write(
    userId: string,
    id: string,
    set: Partial<Omit<CardDoc, '_id' | 'userId'>>,
    options: {
      where?: Partial<Pick<CardDoc, 'timesReviewed' | 'isFavorite'>>;
      events?: AnyDomainEvent[];
      lastReview?: LastReview;
    } = {},
  ): Promise<CardWrite | null> {
    const $set: Record<string, unknown> = { ...set };
    if (set.word !== undefined) $set.wordKey = wordKeyOf(set.word);
    const staged = options.events?.length ? stageEvents(...options.events).update : undefined;
    // hidden like the outbox: stored with the card, never part of it
    const marks = options.lastReview ? { _lastReview: options.lastReview } : {};
    // the native driver: the prior state including the staged events is wanted, which mongoose's
    // projection of the hidden outbox fields would hide
    const before = await Cards.collection.findOneAndUpdate(
      {
        ...active(userId, id),
        ...options.where,
      } as never,
      (staged
        ? { $set: { ...$set, ...marks, ...staged.$set }, $push: staged.$push, $inc: REV }
        : { $set: { ...$set, ...marks }, $inc: REV }) as never,
      { returnDocument: 'before' },
    );
    if (!before) return null;
    const prior = toCard(before as unknown as CardDoc);
    // what the write stored: the prior card with the $set applied (undefined values are not sent)
    const card: Card = { ...prior };
    for (const [k, v] of Object.entries($set))
      if (v !== undefined) (card as unknown as Record<string, unknown>)[k] = v;
    const revision = ((before as unknown as StoredCard)._rev ?? 0) + 1;
    return { before: prior, card, revision };
  }

  const listFilter = (userId: string, f: CardListFilter): QueryFilter<CardDoc> => {
    const q: QueryFilter<CardDoc> = { userId, isArchived: false };
    if (f.setId !== undefined) q.setId = f.setId;
    if (f.search) {
      const re = new RegExp(escapeRegex(f.search), f.caseSensitive ? '' : 'i');
      q.$or = [{ word: re }, { translation: re }, { definition: re }];
    }
    if (f.tags?.length) q.tags = { $all: f.tags };
    if (f.difficulty) q.difficulty = f.difficulty;
    if (f.mastered !== undefined)
      q.masteryLevel = f.mastered ? { $gte: f.masteredAt } : { $lt: f.masteredAt };
    if (f.favorite !== undefined) q.isFavorite = f.favorite;
    if (f.dueBefore) q.nextReviewDate = { $lte: f.dueBefore };
    if (f.notDueBefore) q.nextReviewDate = { $gt: f.notDueBefore };
    return q;
  };

  return {
    async insert(card: NewCard, events: AnyDomainEvent[] = []): Promise<Card> {
      const { id, ...rest } = card;
      const doc = {
        _id: id,
        ...rest,
        wordKey: wordKeyOf(card.word),
        ...(events.length > 0 && stageEvents(...events).fields),
      };
      await Cards.collection.insertOne(doc as never);
      return toCard({ ...(doc as unknown as CardDoc) });
    },

    async insertMany(cards: NewCard[]): Promise<Card[]> {
      if (cards.length === 0) return [];
      const docs = cards.map(({ id, ...rest }) => ({ _id: id, ...rest, wordKey: wordKeyOf(rest.word) }));
      await Cards.collection.insertMany(docs as never[], { ordered: false });
      return docs.map((d) => toCard(d));
    },

    async findActive(userId: string, id: string): Promise<Card | null> {
      const doc = await Cards.findOne(active(userId, id)).lean<CardDoc>();
      return doc ? toCard(doc) : null;
    },

    async findActiveMany(userId: string, ids: string[]): Promise<Card[]> {
      const docs = await Cards.find({ _id: { $in: ids }, userId, isArchived: false }).lean<CardDoc[]>();
      return docs.map(toCard);
    },

    /** The user's non-archived card with this word, compared case-insensitively. */
    async findDuplicate(userId: string, word: string, exceptId?: string): Promise<Card | null> {
      const doc = await Cards.findOne({
        userId,
        wordKey: wordKeyOf(word),
        isArchived: false,
        ...(exceptId && { _id: { $ne: exceptId } }),
      }).lean<CardDoc>();
      return doc ? toCard(doc) : null;
    },

    async list(
      userId: string,
      filter: CardListFilter,
      page: { skip: number; limit: number },
      totalOfAll?: () => Promise<number>,
    ): Promise<{ items: Card[]; total: number }> {
      const q = listFilter(userId, filter);
      // all the user's active cards: the total is the counter, not a count of every card (it grows with them)
      const unfiltered = Object.keys(q).length === 2;
      const [docs, total] = await Promise.all([
        Cards.find(q).sort({ createdAt: -1, _id: 1 }).skip(page.skip).limit(page.limit).lean<CardDoc[]>(),
        unfiltered && totalOfAll ? totalOfAll() : Cards.countDocuments(q),
      ]);
      return { items: docs.map(toCard), total };
    },

    /** From the due-date index (the due read model answers first: card-read-models.ts). */
    async due(userId: string, q: DueQuery): Promise<Card[]> {
      const filter: QueryFilter<CardDoc> = {
        userId,
        isArchived: false,
        nextReviewDate: { ...(q.from && { $gte: q.from }), $lte: q.to },
      };
      if (q.favoritesOnly) filter.isFavorite = true;
      if (q.setId) filter.setId = q.setId;
      const docs = await Cards.find(filter)
        // ties (cards due at the same instant) in creation order, the same on every database
        .sort({ nextReviewDate: 1, createdAt: 1, _id: 1 })
        .limit(q.limit)
        .lean<CardDoc[]>();
      return docs.map(toCard);
    },

    async countDue(userId: string, to: Date, setId?: string): Promise<number> {
      return Cards.countDocuments({
        userId,
        isArchived: false,
        nextReviewDate: { $lte: to },
        ...(setId && { setId }),
      });
    },

    /** Cards never reviewed yet (session mode "learn"), oldest first. */
    async unreviewed(userId: string, limit: number, setId?: string): Promise<Card[]> {
      const docs = await Cards.find({ userId, isArchived: false, timesReviewed: 0, ...(setId && { setId }) })
        .sort({ createdAt: 1, _id: 1 })
        .limit(limit)
        .lean<CardDoc[]>();
      return docs.map(toCard);
    },

    /** The weakest cards first (session mode "cram"). */
    async weakest(userId: string, limit: number, setId?: string): Promise<Card[]> {
      const docs = await Cards.find({ userId, isArchived: false, ...(setId && { setId }) })
        .sort({ masteryLevel: 1, nextReviewDate: 1, _id: 1 })
        .limit(limit)
        .lean<CardDoc[]>();
      return docs.map(toCard);
    },

    /** Translations of other cards of the user: distractors for multiple-choice questions. */
    async otherTranslations(userId: string, exceptId: string, limit: number): Promise<string[]> {
      const docs = await Cards.find({ userId, isArchived: false, _id: { $ne: exceptId } })
        .sort({ createdAt: -1 })
        .limit(limit)
        .select({ translation: 1 })
        .lean<{ translation: string }[]>();
      return docs.map((d) => d.translation);
    },

    write,

    async lastReview(userId: string, id: string): Promise<LastReview | null> {
      const doc = await Cards.collection.findOne({ _id: id, userId } as never, {
        projection: { _lastReview: 1 },
      });
      return (doc as StoredCard | null)?._lastReview ?? null;
    },

    async exists(userId: string, id: string): Promise<boolean> {
      return (await Cards.collection.countDocuments({ _id: id, userId } as never, { limit: 1 })) > 0;
    },

    async updateMany(userId: string, ids: string[], set: Partial<CardDoc>): Promise<number> {
      const r = await Cards.updateMany(
        { _id: { $in: ids }, userId, isArchived: false },
        { $set: set, $inc: REV },
      );
      return r.modifiedCount;
    },

    /** The cards' current revisions (`_rev`), for the read models after a bulk write elsewhere. */
    async revisions(userId: string, ids: string[]): Promise<{ id: string; version: number }[]> {
      const docs = await Cards.collection
        .find({ _id: { $in: ids }, userId } as never, { projection: REV })
        .toArray();
      return docs.map((d) => ({ id: String(d._id), version: (d as { _rev?: number })._rev ?? 0 }));
    },

    async tallySets(userId: string, setIds: string[], rule: SetTallyRule): Promise<SetTally[]> {
      if (setIds.length === 0) return [];
      // counted in the database: one row per set comes back, not the sets' cards (thousands on L)
      const groups = await Cards.aggregate<Omit<SetTally, 'setId'> & { _id: string }>([
        { $match: { userId, isArchived: false, setId: { $in: setIds } } },
        {
          $group: {
            _id: '$setId',
            total: { $sum: 1 },
            mastered: { $sum: { $cond: [{ $gte: ['$masteryLevel', rule.masteredAt] }, 1, 0] } },
            due: { $sum: { $cond: [{ $lte: ['$nextReviewDate', rule.dueAt] }, 1, 0] } },
            masterySum: { $sum: '$masteryLevel' },
          },
        },
      ]);
      return groups.map(({ _id, ...tally }) => ({ setId: _id, ...tally }));
    },

    /** Deletes the set's cards; returns the counted fields of those read first, and how many went. */
    async deleteSetCards(userId: string, setId: string) {
      const cards = await Cards.find({ userId, setId })
        .select({ _id: 1, isArchived: 1, isFavorite: 1, masteryLevel: 1 })
        .lean<{ _id: string; isArchived: boolean; isFavorite: boolean; masteryLevel: number }[]>();
      const deleted = (await Cards.deleteMany({ userId, setId })).deletedCount;
      return { cards, deleted };
    },

    async deleteAllOfUser(userId: string): Promise<number> {
      return (await Cards.deleteMany({ userId })).deletedCount;
    },
  };
}

/** What the due read model reads from MongoDB: the user's active cards, and single cards by `_id`. */
export function dueIndexSource(connection: Connection): DueIndexSource {
  const Cards = cardModel(connection);
  return {
    async activeEntries(userId) {
      const docs = await Cards.collection
        .find({ userId, isArchived: false } as never, {
          projection: { _id: 1, nextReviewDate: 1, isFavorite: 1, _rev: 1 },
        })
        .toArray();
      return docs.map((d) => ({
        id: String(d._id),
        due: (d.nextReviewDate as Date).getTime(),
        favorite: d.isFavorite as boolean,
        version: (d._rev as number | undefined) ?? 0,
      }));
    },
    async byId(userId, id) {
      // served by the `_id` index on the local FerretDB as well (the owner is checked on the row)
      const doc = await Cards.collection.findOne({ _id: id, userId } as never);
      return doc ? toCard(doc as unknown as CardDoc) : null;
    },
    async stamps(userId, ids) {
      const docs = await Cards.collection
        .find({ _id: { $in: ids }, userId } as never, {
          projection: { userId: 1, isArchived: 1, nextReviewDate: 1, isFavorite: 1, _rev: 1 },
        })
        .toArray();
      return docs.map((d) => ({
        id: String(d._id),
        userId: d.userId as string,
        isArchived: d.isArchived as boolean,
        due: (d.nextReviewDate as Date).getTime(),
        favorite: d.isFavorite as boolean,
        version: (d._rev as number | undefined) ?? 0,
      }));
    },
    async versioned(userId, ids) {
      const docs = await Cards.collection.find({ _id: { $in: ids }, userId } as never).toArray();
      return docs.map((d) => ({
        card: toCard(d as unknown as CardDoc),
        version: ((d as unknown as StoredCard)._rev as number | undefined) ?? 0,
      }));
    },
  };
}
