import type { AnyBulkWriteOperation, Connection } from 'mongoose';
import type { Logger } from '@lingua/logger';
import { touchesCounts } from '../domain/cards/card-counts';
import type { ExportableCard } from '../domain/portability/card-mapping';
import type { CardCounters, CardRepository, PortabilityStore, SetRepository } from '../domain/ports';
import { type CardDoc, cardModel } from './card.model';
import { CARD_REVISION_INC, wordKeyOf } from './card.repository';

const CHUNK = 500;
const chunks = <T>(items: readonly T[]): T[][] =>
  Array.from({ length: Math.ceil(items.length / CHUNK) }, (_, i) => items.slice(i * CHUNK, (i + 1) * CHUNK));

const CONTENT_FIELDS = [
  'word',
  'wordKey',
  'translation',
  'definition',
  'partOfSpeech',
  'pronunciation',
  'example',
  'exampleTranslation',
  'synonyms',
  'tags',
  'difficultyLevel',
  'difficulty',
  'filledQuestionText',
  'updatedAt',
] as const;

/**
 * Card queries of export and import, over the card model of the service (bulk reads by word key,
 * bulk writes with compensation), which the per-card repository does not offer.
 */
export function portabilityStore(
  connection: Connection,
  deps: { cards: CardRepository; cardCounts: CardCounters; sets: SetRepository; logger: Logger },
): PortabilityStore {
  const Cards = cardModel(connection);
  return {
    async setName(userId, setId) {
      return (await deps.sets.find(userId, setId))?.name ?? null;
    },

    async setExists(userId, setId) {
      return (await deps.sets.find(userId, setId)) !== null;
    },

    async loadCards(userId, selection, max) {
      const filter = {
        userId,
        isArchived: false,
        ...(selection.setId && { setId: selection.setId }),
        ...(selection.cardIds && { _id: { $in: selection.cardIds } }),
      };
      const docs = await Cards.find(filter)
        .sort({ createdAt: 1, _id: 1 })
        .limit(max)
        .select({ ...Object.fromEntries(CONTENT_FIELDS.map((f) => [f, 1])), _id: 1 })
        .lean<CardDoc[]>();
      return docs.map(({ _id, ...rest }): ExportableCard => ({ ...rest, id: _id }));
    },

    async existingByWord(userId, setId, keys) {
      const found = new Map<string, string>();
      if (keys.length === 0) return found;
      const wanted = new Set(keys);
      // one pass over the target set's active cards (word keys only) rather than many $in queries:
      // the local FerretDB evaluates most filters row by row, so each extra query is a scan
      const docs = await Cards.find({ userId, setId, isArchived: false })
        .sort({ createdAt: 1, _id: 1 })
        .select({ _id: 1, wordKey: 1 })
        .lean<{ _id: string; wordKey: string }[]>();
      // the oldest card with the word is the one a duplicate refers to
      for (const doc of docs)
        if (wanted.has(doc.wordKey) && !found.has(doc.wordKey)) found.set(doc.wordKey, doc._id);
      return found;
    },

    async apply(userId, create, replace) {
      const createdIds = create.map((c) => c.id);
      let snapshots: Record<string, unknown>[] = [];
      try {
        for (const batch of chunks(create)) await deps.cards.insertMany(batch);
        if (replace.length > 0) {
          snapshots = await Cards.find({ userId, _id: { $in: replace.map((r) => r.cardId) } })
            .select(Object.fromEntries(CONTENT_FIELDS.map((f) => [f, 1])))
            .lean<Record<string, unknown>[]>();
          for (const batch of chunks(replace)) {
            // each update is atomic on its card ($set of content fields only): a concurrent review
            // or the outbox relay's $pull on the same card keeps its own fields
            await Cards.bulkWrite(
              batch.map(({ cardId, set }): AnyBulkWriteOperation<CardDoc> => ({
                updateOne: {
                  filter: { _id: cardId, userId, isArchived: false },
                  update: {
                    $set: {
                      ...set,
                      ...(typeof set.word === 'string' && { wordKey: wordKeyOf(set.word) }),
                    },
                    ...CARD_REVISION_INC,
                  },
                },
              })),
              { ordered: true },
            );
            await deps.cards.contentChanged(
              userId,
              batch.map((r) => r.cardId),
            );
            // replacements carry content only; should one ever set what the counters count, recount
            if (batch.some((r) => touchesCounts(r.set))) await deps.cardCounts.invalidate(userId);
          }
        }
      } catch (err) {
        // no transactions here: undo what was written, so a failed import leaves nothing behind
        deps.logger.warn({ err, userId }, 'import failed while writing; rolling back');
        // createdAt too: never the older card an (impossible in practice) id collision would point at
        const first = create[0]?.createdAt;
        const last = create.at(-1)?.createdAt;
        if (first && last) {
          await Cards.deleteMany({
            userId,
            _id: { $in: createdIds },
            createdAt: { $gte: first, $lte: last },
          }).catch(() => undefined);
        }
        for (const batch of chunks(snapshots)) {
          await Cards.bulkWrite(
            batch.map(({ _id, ...content }) => ({
              updateOne: {
                filter: { _id: _id as string, userId },
                update: { $set: content, ...CARD_REVISION_INC },
              },
            })),
          ).catch(() => undefined);
        }
        await deps.cards.invalidateDerived(userId);
        throw err;
      }
    },
  };
}
