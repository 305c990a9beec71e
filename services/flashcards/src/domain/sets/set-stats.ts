import { MASTERED_AT } from '../scheduling/mastery';

export interface SetStats {
  totalCards: number;
  masteredCards: number;
  dueCards: number;
  /** Average mastery of the set's cards, 0-100 (0 for an empty set). */
  progress: number;
}

/** Per-set figures from its cards' mastery and due dates. Pure. */
export function setStats(cards: { masteryLevel: number; nextReviewDate: Date }[], now: Date): SetStats {
  const total = cards.length;
  const sum = cards.reduce((s, c) => s + c.masteryLevel, 0);
  return {
    totalCards: total,
    masteredCards: cards.filter((c) => c.masteryLevel >= MASTERED_AT).length,
    dueCards: cards.filter((c) => c.nextReviewDate.getTime() <= now.getTime()).length,
    progress: total === 0 ? 0 : Math.round(sum / total),
  };
}

type Orderable = { name: string; createdAt: Date; updatedAt: Date; stats: SetStats };

/** Orders sets by created, updated, name (case-insensitive) or progress; ties by name. Pure. */
export function orderSets<T extends Orderable>(
  sets: T[],
  orderBy: 'created' | 'updated' | 'name' | 'progress',
  order: 'asc' | 'desc',
): T[] {
  const key = (s: T): number | string =>
    orderBy === 'created'
      ? s.createdAt.getTime()
      : orderBy === 'updated'
        ? s.updatedAt.getTime()
        : orderBy === 'name'
          ? s.name.toLowerCase()
          : s.stats.progress;
  const dir = order === 'asc' ? 1 : -1;
  return [...sets].sort((a, b) => {
    const ka = key(a);
    const kb = key(b);
    if (ka < kb) return -dir;
    if (ka > kb) return dir;
    return a.name.localeCompare(b.name);
  });
}
