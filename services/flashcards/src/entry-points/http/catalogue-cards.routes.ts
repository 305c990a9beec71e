import { randomUUID } from 'node:crypto';
import type { Request, Response } from 'express';
import { AppError, catalogueCodeOf, fieldErrors } from '@lingua/errors';
import type { Card } from '../../domain/ports';
import { type CardContent, contentUpdate, newCard } from '../../domain/cards/card-fields';
import { MASTERED_AT } from '../../domain/scheduling/mastery';
import { catalogueCard, flashcardPublic } from './card.presenter';
import { sendData } from '@lingua/openapi';
import {
  BatchBody,
  BatchCreateItem,
  CatalogueCreateBody,
  CatalogueListQuery,
} from './catalogue-cards.schemas';
import { BatchResult, CatalogueCardResult, FlashcardList } from './card.responses';
import type { FlashcardsDeps } from './deps';
import type { FlashcardUpdateBody } from './flashcards.schemas';
import { validate } from './validate';

const CATALOGUE_LIST_KEYS = [
  'page',
  'limit',
  'setId',
  'tags',
  'difficulty',
  'mastered',
  'favorite',
  'dueForReview',
];
const CATALOGUE_BODY_KEYS = ['setId', 'exampleSentence', 'tags', 'difficulty'];

const hasAny = (obj: unknown, keys: string[]) =>
  typeof obj === 'object' && obj !== null && keys.some((k) => k in obj);

/**
 * The rule that tells the two faces of /api/flashcards apart: a request is Group C when it uses a
 * Group C-only feature (list filters or pagination, a setId or another Group C-only field in a body,
 * the batch path). Everything else is Group B.
 */
export function isCatalogueRequest(req: Request): boolean {
  if (req.path === '/batch') return true;
  if (req.path === '/' && req.method === 'GET') return hasAny(req.query, CATALOGUE_LIST_KEYS);
  if (req.path === '/' && req.method === 'POST') return hasAny(req.body, ['setId']);
  if (req.method === 'PUT' && req.path !== '/') return hasAny(req.body, CATALOGUE_BODY_KEYS);
  return false;
}

type CatalogueInput = {
  word?: string | undefined;
  translation?: string | undefined;
  definition?: string | undefined;
  exampleSentence?: string | undefined;
  synonyms?: string[] | undefined;
} & Record<string, unknown>;

/** Group C field names to the card's: exampleSentence is the card's example. */
function toContent(input: CatalogueInput): Partial<CardContent> {
  const { exampleSentence, setId: _setId, ...rest } = input;
  return {
    ...(rest as Partial<CardContent>),
    ...(exampleSentence !== undefined && { example: exampleSentence }),
  };
}

/** Group C card handlers, mounted on /api/flashcards by the flashcards router. */
export function catalogueCardRoutes(deps: FlashcardsDeps) {
  const userId = (res: Response) => deps.userIdOf(res);

  const requireSet = async (uid: string, setId: string) => {
    if (!(await deps.sets.find(uid, setId))) throw new AppError('NOT_FOUND', 'Flashcard set not found');
  };
  const requireNoDuplicate = async (uid: string, word: string, setId: string | null, exceptId?: string) => {
    const dup = await deps.cards.findDuplicate(uid, word, exceptId);
    if (dup && dup.setId === setId)
      throw new AppError('CONFLICT', `A card for "${dup.word}" already exists in this set`, {
        details: { existingCardId: dup.id },
      });
  };

  const createOne = async (
    uid: string,
    input: CatalogueInput & { word: string; translation: string },
    setId: string,
  ) => {
    await requireNoDuplicate(uid, input.word, setId);
    return deps.cards.insert(
      newCard(toContent(input) as CardContent, { id: randomUUID(), userId: uid, setId }, deps.clock.now()),
    );
  };

  return {
    async list(req: Request, res: Response) {
      const q = validate(CatalogueListQuery, req.query);
      const now = deps.clock.now();
      const { items, total } = await deps.cards.list(
        userId(res),
        {
          ...(q.setId && { setId: q.setId }),
          ...(q.search && { search: q.search, caseSensitive: false }),
          ...(q.tags && { tags: q.tags }),
          ...(q.difficulty && { difficulty: q.difficulty }),
          ...(q.mastered !== undefined && { mastered: q.mastered }),
          ...(q.favorite !== undefined && { favorite: q.favorite }),
          ...(q.dueForReview === true && { dueBefore: now }),
          ...(q.dueForReview === false && { notDueBefore: now }),
          masteredAt: MASTERED_AT,
        },
        { skip: (q.page - 1) * q.limit, limit: q.limit },
      );
      // both faces (see FlashcardList): a Group B client reading a filtered list gets its fields too
      sendData(res, FlashcardList, {
        flashcards: items.map(flashcardPublic),
        count: items.length,
        cards: items.map(catalogueCard),
        pagination: { page: q.page, limit: q.limit, total, totalPages: Math.ceil(total / q.limit) },
      });
    },

    async create(req: Request, res: Response) {
      const body = validate(CatalogueCreateBody, req.body);
      const uid = userId(res);
      await requireSet(uid, body.setId);
      const card = await createOne(uid, body, body.setId);
      sendData(res, CatalogueCardResult, { card: catalogueCard(card) }, { status: 201 });
    },

    /**
     * Group C rules of an update: a new setId must be the caller's, and a word must not repeat in
     * the card's (new) set. The body is the shared PUT body (FlashcardUpdateBody).
     */
    async update(uid: string, id: string, body: FlashcardUpdateBody): Promise<Card> {
      const card = await deps.cards.findActive(uid, id);
      if (!card) throw new AppError('NOT_FOUND', 'Flashcard not found');
      if (body.setId && body.setId !== card.setId) await requireSet(uid, body.setId);
      if (body.word !== undefined || body.setId !== undefined)
        await requireNoDuplicate(uid, body.word ?? card.word, body.setId ?? card.setId, id);
      const updated = await deps.cards.update(uid, id, {
        ...(contentUpdate(toContent(body)) as object),
        ...(body.setId && { setId: body.setId }),
        updatedAt: deps.clock.now(),
      });
      if (!updated) throw new AppError('NOT_FOUND', 'Flashcard not found');
      return updated;
    },

    /** Per-item results: one failing item never fails the others. */
    batch: async (req: Request, res: Response) => {
      const body = validate(BatchBody, req.body);
      const uid = userId(res);
      const now = deps.clock.now();
      const errors: { index: number; cardId?: string; code: string; message: string; details?: unknown }[] =
        [];
      let success = 0;
      const created: Card[] = [];

      if (body.operation === 'create') {
        if (body.targetSetId) await requireSet(uid, body.targetSetId);
        for (const [index, raw] of body.data.entries()) {
          try {
            const parsed = BatchCreateItem.safeParse(raw);
            if (!parsed.success)
              throw new AppError('VALIDATION_ERROR', 'Validation failed', {
                details: fieldErrors(parsed.error),
              });
            const setId = parsed.data.setId ?? body.targetSetId;
            if (!setId)
              throw new AppError('VALIDATION_ERROR', 'Validation failed', {
                details: { setId: ['is required (or give targetSetId)'] },
              });
            if (setId !== body.targetSetId) await requireSet(uid, setId);
            created.push(await createOne(uid, parsed.data, setId));
            success++;
          } catch (err) {
            errors.push({ index, ...itemError(err) });
          }
        }
      } else {
        const found = new Map((await deps.cards.findActiveMany(uid, body.cardIds)).map((c) => [c.id, c]));
        if (body.operation === 'move') await requireSet(uid, body.targetSetId);
        for (const [index, cardId] of body.cardIds.entries()) {
          try {
            if (!found.has(cardId)) throw new AppError('NOT_FOUND', 'Flashcard not found');
            let set: Record<string, unknown>;
            if (body.operation === 'delete') set = { isArchived: true };
            else if (body.operation === 'move') {
              await requireNoDuplicate(uid, found.get(cardId)!.word, body.targetSetId, cardId);
              set = { setId: body.targetSetId };
            } else set = contentUpdate(toContent(body.data));
            const updated = await deps.cards.update(uid, cardId, { ...set, updatedAt: now });
            if (!updated) throw new AppError('NOT_FOUND', 'Flashcard not found');
            success++;
          } catch (err) {
            errors.push({ index, cardId, ...itemError(err) });
          }
        }
      }
      sendData(res, BatchResult, {
        operation: body.operation,
        success,
        failed: errors.length,
        errors,
        ...(body.operation === 'create' && { cards: created.map(catalogueCard) }),
      });
    },
  };
}

/** The catalogue code and message of an item's failure; unexpected failures are rethrown (500). */
function itemError(err: unknown) {
  if (!(err instanceof AppError)) throw err;
  return {
    code: catalogueCodeOf(err.code),
    message: err.message,
    ...(err.details && { details: err.details }),
  };
}
