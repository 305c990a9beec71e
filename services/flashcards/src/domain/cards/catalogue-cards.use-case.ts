import { randomUUID } from 'node:crypto';
import { AppError } from '@lingua/errors';
import type { Card, CardListFilter, CardRepository, SetRepository } from '../ports';
import { MASTERED_AT } from '../scheduling/mastery';
import { type CardContent, contentUpdate, newCard } from './card-fields';

type CatalogueDeps = { cards: CardRepository; sets: SetRepository; clock: { now(): Date } };

async function requireSet(userId: string, setId: string, deps: Pick<CatalogueDeps, 'sets'>) {
  if (!(await deps.sets.find(userId, setId))) throw new AppError('NOT_FOUND', 'Flashcard set not found');
}

/** Group C: a word appears once per set (CONFLICT names the card that has it). */
async function requireNoDuplicate(
  userId: string,
  word: string,
  setId: string | null,
  exceptId: string | undefined,
  deps: Pick<CatalogueDeps, 'cards'>,
) {
  const dup = await deps.cards.findDuplicate(userId, word, exceptId);
  if (dup && dup.setId === setId)
    throw new AppError('CONFLICT', `A card for "${dup.word}" already exists in this set`, {
      details: { existingCardId: dup.id },
    });
}

/** One page of the user's cards matching the Group C filters. */
export async function listCatalogueCards(
  userId: string,
  q: {
    setId?: string | undefined;
    search?: string | undefined;
    tags?: string[] | undefined;
    difficulty?: string | undefined;
    mastered?: boolean | undefined;
    favorite?: boolean | undefined;
    dueForReview?: boolean | undefined;
    page: number;
    limit: number;
  },
  deps: Pick<CatalogueDeps, 'cards' | 'clock'>,
): Promise<{ items: Card[]; total: number }> {
  const now = deps.clock.now();
  const filter: CardListFilter = {
    ...(q.setId && { setId: q.setId }),
    ...(q.search && { search: q.search, caseSensitive: false }),
    ...(q.tags && { tags: q.tags }),
    ...(q.difficulty && { difficulty: q.difficulty }),
    ...(q.mastered !== undefined && { mastered: q.mastered }),
    ...(q.favorite !== undefined && { favorite: q.favorite }),
    ...(q.dueForReview === true && { dueBefore: now }),
    ...(q.dueForReview === false && { notDueBefore: now }),
    masteredAt: MASTERED_AT,
  };
  return deps.cards.list(userId, filter, { skip: (q.page - 1) * q.limit, limit: q.limit });
}

/**
 * A card in one of the user's sets. `setChecked`: the caller already knows the set is the user's
 * (a batch checks its target set once).
 */
export async function createCatalogueCard(
  userId: string,
  content: Partial<CardContent> & Pick<CardContent, 'word' | 'translation'>,
  setId: string,
  deps: CatalogueDeps,
  setChecked = false,
): Promise<Card> {
  if (!setChecked) await requireSet(userId, setId, deps);
  await requireNoDuplicate(userId, content.word, setId, undefined, deps);
  return deps.cards.insert(
    newCard(content as CardContent, { id: randomUUID(), userId, setId }, deps.clock.now()),
  );
}

/** Group C rules of an update: a new set must be the user's, and a word must not repeat in the card's (new) set. */
export async function updateCatalogueCard(
  userId: string,
  id: string,
  change: { content: Partial<CardContent>; setId?: string | undefined },
  deps: CatalogueDeps,
): Promise<Card> {
  const card = await deps.cards.findActive(userId, id);
  if (!card) throw new AppError('NOT_FOUND', 'Flashcard not found');
  if (change.setId && change.setId !== card.setId) await requireSet(userId, change.setId, deps);
  if (change.content.word !== undefined || change.setId !== undefined)
    await requireNoDuplicate(userId, change.content.word ?? card.word, change.setId ?? card.setId, id, deps);
  const updated = await deps.cards.update(userId, id, {
    ...(contentUpdate(change.content) as object),
    ...(change.setId && { setId: change.setId }),
    updatedAt: deps.clock.now(),
  });
  if (!updated) throw new AppError('NOT_FOUND', 'Flashcard not found');
  return updated;
}

export { requireSet as requireCardSet };

/**
 * Deletes (archives), moves or edits many cards; each card's outcome on its own (an AppError for
 * one that failed), so one failing card never fails the others.
 */
export async function changeCards(
  userId: string,
  op:
    | { operation: 'delete' }
    | { operation: 'move'; targetSetId: string }
    | { operation: 'update'; content: Partial<CardContent> },
  cardIds: string[],
  deps: CatalogueDeps,
): Promise<(AppError | undefined)[]> {
  const now = deps.clock.now();
  const found = new Map((await deps.cards.findActiveMany(userId, cardIds)).map((c) => [c.id, c]));
  if (op.operation === 'move') await requireSet(userId, op.targetSetId, deps);
  const outcomes: (AppError | undefined)[] = [];
  for (const cardId of cardIds) {
    try {
      if (!found.has(cardId)) throw new AppError('NOT_FOUND', 'Flashcard not found');
      let set: Record<string, unknown>;
      if (op.operation === 'delete') set = { isArchived: true };
      else if (op.operation === 'move') {
        await requireNoDuplicate(userId, found.get(cardId)!.word, op.targetSetId, cardId, deps);
        set = { setId: op.targetSetId };
      } else set = contentUpdate(op.content);
      const updated = await deps.cards.update(userId, cardId, { ...set, updatedAt: now });
      if (!updated) throw new AppError('NOT_FOUND', 'Flashcard not found');
      outcomes.push(undefined);
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      outcomes.push(err);
    }
  }
  return outcomes;
}
