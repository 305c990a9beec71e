import { randomUUID } from 'node:crypto';
import { AppError } from '@lingua/errors';
import {
  type Card,
  type CardRepository,
  type CardSet,
  MAX_SETS_PER_USER,
  type SetRepository,
} from '../ports';
import { type SetStats, orderSets, setStats, setTallyRule } from './set-stats';

interface Clock {
  now(): Date;
}
type SetsDeps = { sets: SetRepository; cards: CardRepository; clock: Clock };

const notFound = () => new AppError('NOT_FOUND', 'Flashcard set not found');

/** The user's sets matching the filter, with their card stats, ordered and paged. */
export async function listSets(
  userId: string,
  q: {
    search?: string | undefined;
    tags?: string[] | undefined;
    orderBy: Parameters<typeof orderSets>[1];
    order: Parameters<typeof orderSets>[2];
    page: number;
    limit: number;
  },
  deps: SetsDeps,
): Promise<{ items: (CardSet & { stats: SetStats })[]; total: number }> {
  let sets = await deps.sets.listAll(userId);
  if (q.search) {
    const needle = q.search.toLowerCase();
    sets = sets.filter(
      (s) => s.name.toLowerCase().includes(needle) || s.description.toLowerCase().includes(needle),
    );
  }
  if (q.tags) sets = sets.filter((s) => q.tags!.every((t) => s.tags.includes(t)));
  const tallies = await deps.cards.tallySets(
    userId,
    sets.map((s) => s.id),
    setTallyRule(deps.clock.now()),
  );
  const bySet = new Map(tallies.map((t) => [t.setId, t]));
  const withStats = sets.map((s) => ({ ...s, stats: setStats(bySet.get(s.id)) }));
  const ordered = orderSets(withStats, q.orderBy, q.order);
  return { items: ordered.slice((q.page - 1) * q.limit, q.page * q.limit), total: ordered.length };
}

/** A new set; QUOTA_EXCEEDED past MAX_SETS_PER_USER. */
export async function createSet(
  userId: string,
  fields: {
    name: string;
    description?: string | undefined;
    color?: string | undefined;
    tags?: string[] | undefined;
    isPublic?: boolean | undefined;
  },
  deps: SetsDeps,
): Promise<CardSet> {
  if ((await deps.sets.count(userId)) >= MAX_SETS_PER_USER)
    throw new AppError('QUOTA_EXCEEDED', `A user can have at most ${MAX_SETS_PER_USER} sets`);
  const now = deps.clock.now();
  return deps.sets.insert({
    id: randomUUID(),
    userId,
    name: fields.name,
    description: fields.description ?? '',
    color: fields.color ?? null,
    tags: fields.tags ?? [],
    isPublic: fields.isPublic ?? false,
    createdAt: now,
    updatedAt: now,
  });
}

/** One set with its first `shown` cards and the stats of all of them; NOT_FOUND otherwise. */
export async function getSetWithCards(
  userId: string,
  setId: string,
  shown: number,
  deps: SetsDeps,
): Promise<{ set: CardSet; cards: Card[]; stats: SetStats }> {
  const set = await deps.sets.find(userId, setId);
  if (!set) throw notFound();
  const [[tally], first] = await Promise.all([
    deps.cards.tallySets(userId, [setId], setTallyRule(deps.clock.now())),
    deps.cards.list(userId, { setId, masteredAt: 0 }, { skip: 0, limit: shown }),
  ]);
  return { set, cards: first.items, stats: setStats(tally) };
}

/** Changes the given fields of a set; NOT_FOUND otherwise. */
export async function updateSet(
  userId: string,
  setId: string,
  change: Partial<Pick<CardSet, 'name' | 'description' | 'color' | 'tags' | 'isPublic'>>,
  deps: SetsDeps,
): Promise<CardSet> {
  const set = await deps.sets.update(userId, setId, { ...change, updatedAt: deps.clock.now() });
  if (!set) throw notFound();
  return set;
}

/** Deletes a set and its cards; returns how many cards went. NOT_FOUND otherwise. */
export async function deleteSet(userId: string, setId: string, deps: SetsDeps): Promise<number> {
  if (!(await deps.sets.find(userId, setId))) throw notFound();
  // cards first: a crash in between leaves an empty set, never cards of a missing set
  const deletedCount = await deps.cards.deleteSetCards(userId, setId);
  await deps.sets.remove(userId, setId);
  return deletedCount;
}
