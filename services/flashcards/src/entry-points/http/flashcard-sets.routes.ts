import { type Request, Router } from 'express';
import { type ApiDocs, declareRoutes, sendData } from '@lingua/openapi';
import type { CardSet } from '../../domain/ports';
import {
  createSet,
  deleteSet,
  getSetWithCards,
  listSets,
  updateSet,
} from '../../domain/sets/manage-sets.use-case';
import { catalogueCard } from './card.presenter';
import type { FlashcardsDeps } from './deps';
import { CreateSetBody, ListSetsQuery, SetIdParams, UpdateSetBody } from './flashcard-sets.schemas';
import { validate } from './validate';
import {
  SetCreated,
  SetDeleted,
  SetList,
  SetUpdated,
  SetWithCards,
  type CardSetSchema,
} from './sets-study.responses';

/** Cards shown with a single set (GET /flashcard-sets/:setId); the full list is GET /flashcards?setId=. */
export const SET_CARDS_SHOWN = 100;

const presentSet = (set: CardSet): CardSetSchema => ({
  id: set.id,
  name: set.name,
  description: set.description,
  color: set.color,
  tags: set.tags,
  isPublic: set.isPublic,
  createdAt: set.createdAt,
  updatedAt: set.updatedAt,
});

const P = '/api/flashcard-sets';

/** Group C `/api/flashcard-sets`. */
export function flashcardSetsRouter(deps: FlashcardsDeps, docs: ApiDocs): Router {
  const router = Router();
  router.use(deps.requireUser);
  const setIdOf = (req: Request) => validate(SetIdParams, req.params).setId;
  const sets = { tags: ['flashcard-sets'], auth: 'access' as const };
  const notFound = { 404: 'Set not found' };

  declareRoutes(
    router,
    docs,
    [
      {
        ...sets,
        method: 'get',
        path: P,
        summary: 'List sets',
        query: ListSetsQuery,
        response: SetList,
        handler: async (req, res) => {
          const q = validate(ListSetsQuery, req.query);
          const { items, total } = await listSets(deps.userIdOf(res), q, deps);
          sendData(res, SetList, {
            sets: items.map((s) => ({
              ...presentSet(s),
              cardCount: s.stats.totalCards,
              progress: s.stats.progress,
              stats: s.stats,
            })),
            pagination: { page: q.page, limit: q.limit, total, totalPages: Math.ceil(total / q.limit) },
          });
        },
      },
      {
        ...sets,
        method: 'post',
        path: P,
        summary: 'Create a set',
        body: CreateSetBody,
        example: { name: 'Kitchen', description: 'Things in the kitchen', tags: ['home'] },
        response: SetCreated,
        status: 201,
        handler: async (req, res) => {
          const body = validate(CreateSetBody, req.body);
          const set = await createSet(deps.userIdOf(res), body, deps);
          sendData(
            res,
            SetCreated,
            { set: { ...presentSet(set), cardCount: 0, progress: 0 } },
            { status: 201 },
          );
        },
      },
      {
        ...sets,
        method: 'get',
        path: `${P}/:setId`,
        summary: 'A set with its cards and stats',
        params: SetIdParams,
        response: SetWithCards,
        errors: notFound,
        handler: async (req, res) => {
          const { set, cards, stats } = await getSetWithCards(
            deps.userIdOf(res),
            setIdOf(req),
            SET_CARDS_SHOWN,
            deps,
          );
          sendData(res, SetWithCards, { set: presentSet(set), cards: cards.map(catalogueCard), stats });
        },
      },
      {
        ...sets,
        method: 'put',
        path: `${P}/:setId`,
        summary: 'Update a set',
        params: SetIdParams,
        body: UpdateSetBody,
        response: SetUpdated,
        errors: notFound,
        handler: async (req, res) => {
          const setId = setIdOf(req);
          const body = validate(UpdateSetBody, req.body);
          sendData(res, SetUpdated, {
            set: presentSet(await updateSet(deps.userIdOf(res), setId, body, deps)),
          });
        },
      },
      {
        ...sets,
        method: 'delete',
        path: `${P}/:setId`,
        summary: 'Delete a set and its cards (deletedCount)',
        params: SetIdParams,
        response: SetDeleted,
        errors: notFound,
        handler: async (req, res) => {
          const deletedCount = await deleteSet(deps.userIdOf(res), setIdOf(req), deps);
          sendData(res, SetDeleted, { message: 'Flashcard set deleted', deletedCount });
        },
      },
    ],
    P,
  );
  return router;
}
