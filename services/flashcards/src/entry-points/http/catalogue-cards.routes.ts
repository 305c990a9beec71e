import type { Request, Response } from 'express';
import { AppError, catalogueCodeOf, fieldErrors } from '@lingua/errors';
import type { CardContent } from '../../domain/cards/card-fields';
import {
  changeCards,
  createCatalogueCard,
  listCatalogueCards,
  requireCardSet,
  updateCatalogueCard,
} from '../../domain/cards/catalogue-cards.use-case';
import type { Card } from '../../domain/ports';
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

  return {
    async list(req: Request, res: Response) {
      const q = validate(CatalogueListQuery, req.query);
      const { items, total } = await listCatalogueCards(userId(res), q, deps);
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
      const card = await createCatalogueCard(userId(res), asNewContent(body), body.setId, deps);
      sendData(res, CatalogueCardResult, { card: catalogueCard(card) }, { status: 201 });
    },

    /** A Group C update; the body is the shared PUT body (FlashcardUpdateBody). */
    async update(uid: string, id: string, body: FlashcardUpdateBody): Promise<Card> {
      return updateCatalogueCard(uid, id, { content: toContent(body), setId: body.setId }, deps);
    },

    /** Per-item results: one failing item never fails the others. */
    batch: async (req: Request, res: Response) => {
      const body = validate(BatchBody, req.body);
      const uid = userId(res);
      const errors: { index: number; cardId?: string; code: string; message: string; details?: unknown }[] =
        [];
      let success = 0;
      const created: Card[] = [];

      if (body.operation === 'create') {
        if (body.targetSetId) await requireCardSet(uid, body.targetSetId, deps);
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
            const content = asNewContent(parsed.data);
            created.push(await createCatalogueCard(uid, content, setId, deps, setId === body.targetSetId));
            success++;
          } catch (err) {
            errors.push({ index, ...itemError(err) });
          }
        }
      } else {
        const outcomes = await changeCards(
          uid,
          body.operation === 'update'
            ? { operation: 'update', content: toContent(body.data) }
            : body.operation === 'move'
              ? { operation: 'move', targetSetId: body.targetSetId }
              : { operation: 'delete' },
          body.cardIds,
          deps,
        );
        for (const [index, failure] of outcomes.entries()) {
          if (failure) errors.push({ index, cardId: body.cardIds[index]!, ...itemError(failure) });
          else success++;
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

/** A new card's content in the card's field names (word and translation are required by the schemas). */
const asNewContent = (input: CatalogueInput & { word: string; translation: string }) =>
  toContent(input) as Partial<CardContent> & Pick<CardContent, 'word' | 'translation'>;

/** The catalogue code and message of an item's failure; unexpected failures are rethrown (500). */
function itemError(err: unknown) {
  if (!(err instanceof AppError)) throw err;
  return {
    code: catalogueCodeOf(err.code),
    message: err.message,
    ...(err.details && { details: err.details }),
  };
}
