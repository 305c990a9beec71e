import { type Request, Router } from 'express';
import { sendData } from '@lingua/openapi';
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

/** Group C `/api/flashcard-sets`. */
export function flashcardSetsRouter(deps: FlashcardsDeps): Router {
  const router = Router();
  router.use(deps.requireUser);
  const setIdOf = (req: Request) => validate(SetIdParams, req.params).setId;

  router.get('/', async (req, res) => {
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
  });

  router.post('/', async (req, res) => {
    const body = validate(CreateSetBody, req.body);
    const set = await createSet(deps.userIdOf(res), body, deps);
    sendData(res, SetCreated, { set: { ...presentSet(set), cardCount: 0, progress: 0 } }, { status: 201 });
  });

  router.get('/:setId', async (req, res) => {
    const { set, cards, stats } = await getSetWithCards(
      deps.userIdOf(res),
      setIdOf(req),
      SET_CARDS_SHOWN,
      deps,
    );
    sendData(res, SetWithCards, { set: presentSet(set), cards: cards.map(catalogueCard), stats });
  });

  router.put('/:setId', async (req, res) => {
    const setId = setIdOf(req);
    const body = validate(UpdateSetBody, req.body);
    sendData(res, SetUpdated, { set: presentSet(await updateSet(deps.userIdOf(res), setId, body, deps)) });
  });

  router.delete('/:setId', async (req, res) => {
    const deletedCount = await deleteSet(deps.userIdOf(res), setIdOf(req), deps);
    sendData(res, SetDeleted, { message: 'Flashcard set deleted', deletedCount });
  });

  return router;
}
