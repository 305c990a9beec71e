import { randomUUID } from 'node:crypto';
import { type Request, Router } from 'express';
import { AppError } from '@lingua/errors';
import { sendData } from '@lingua/openapi';
import { MAX_SETS_PER_USER, type CardSet } from '../../domain/ports';
import { orderSets, setStats } from '../../domain/sets/set-stats';
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
  const notFound = () => new AppError('NOT_FOUND', 'Flashcard set not found');

  router.get('/', async (req, res) => {
    const q = validate(ListSetsQuery, req.query);
    const uid = deps.userIdOf(res);
    const now = deps.clock.now();
    let sets = await deps.sets.listAll(uid);
    if (q.search) {
      const needle = q.search.toLowerCase();
      sets = sets.filter(
        (s) => s.name.toLowerCase().includes(needle) || s.description.toLowerCase().includes(needle),
      );
    }
    if (q.tags) sets = sets.filter((s) => q.tags!.every((t) => s.tags.includes(t)));
    const cards = await deps.cards.countInSets(
      uid,
      sets.map((s) => s.id),
    );
    const withStats = sets.map((s) => ({
      ...s,
      stats: setStats(
        cards.filter((c) => c.setId === s.id),
        now,
      ),
    }));
    const ordered = orderSets(withStats, q.orderBy, q.order);
    const pageItems = ordered.slice((q.page - 1) * q.limit, q.page * q.limit);
    sendData(res, SetList, {
      sets: pageItems.map((s) => ({
        ...presentSet(s),
        cardCount: s.stats.totalCards,
        progress: s.stats.progress,
        stats: s.stats,
      })),
      pagination: {
        page: q.page,
        limit: q.limit,
        total: ordered.length,
        totalPages: Math.ceil(ordered.length / q.limit),
      },
    });
  });

  router.post('/', async (req, res) => {
    const body = validate(CreateSetBody, req.body);
    const uid = deps.userIdOf(res);
    if ((await deps.sets.count(uid)) >= MAX_SETS_PER_USER)
      throw new AppError('QUOTA_EXCEEDED', `A user can have at most ${MAX_SETS_PER_USER} sets`);
    const now = deps.clock.now();
    const set = await deps.sets.insert({
      id: randomUUID(),
      userId: uid,
      name: body.name,
      description: body.description ?? '',
      color: body.color ?? null,
      tags: body.tags ?? [],
      isPublic: body.isPublic ?? false,
      createdAt: now,
      updatedAt: now,
    });
    sendData(res, SetCreated, { set: { ...presentSet(set), cardCount: 0, progress: 0 } }, { status: 201 });
  });

  router.get('/:setId', async (req, res) => {
    const setId = setIdOf(req);
    const uid = deps.userIdOf(res);
    const set = await deps.sets.find(uid, setId);
    if (!set) throw notFound();
    const [all, shown] = await Promise.all([
      deps.cards.countInSets(uid, [setId]),
      deps.cards.list(uid, { setId, masteredAt: 0 }, { skip: 0, limit: SET_CARDS_SHOWN }),
    ]);
    sendData(res, SetWithCards, {
      set: presentSet(set),
      cards: shown.items.map(catalogueCard),
      stats: setStats(all, deps.clock.now()),
    });
  });

  router.put('/:setId', async (req, res) => {
    const setId = setIdOf(req);
    const body = validate(UpdateSetBody, req.body);
    const set = await deps.sets.update(deps.userIdOf(res), setId, { ...body, updatedAt: deps.clock.now() });
    if (!set) throw notFound();
    sendData(res, SetUpdated, { set: presentSet(set) });
  });

  router.delete('/:setId', async (req, res) => {
    const setId = setIdOf(req);
    const uid = deps.userIdOf(res);
    if (!(await deps.sets.find(uid, setId))) throw notFound();
    // cards first: a crash in between leaves an empty set, never cards of a missing set
    const deletedCount = await deps.cards.deleteSetCards(uid, setId);
    await deps.sets.remove(uid, setId);
    sendData(res, SetDeleted, { message: 'Flashcard set deleted', deletedCount });
  });

  return router;
}
