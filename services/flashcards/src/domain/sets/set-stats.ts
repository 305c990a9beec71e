import type { SetTally, SetTallyRule } from '../ports';
import { MASTERED_AT } from '../scheduling/mastery';

export interface SetStats {
  totalCards: number;
  masteredCards: number;
  dueCards: number;
  /** Average mastery of the set's cards, 0-100 (0 for an empty set). */
  progress: number;
}

/** The rule a set's cards are counted by: mastered from MASTERED_AT, due until now. Pure. */
export const setTallyRule = (now: Date): SetTallyRule => ({ masteredAt: MASTERED_AT, dueAt: now });

/** A set's figures from its tally (none: an empty set). Pure. */
export function setStats(tally: SetTally | undefined): SetStats {
  if (!tally || tally.total === 0) return { totalCards: 0, masteredCards: 0, dueCards: 0, progress: 0 };
  return {
    totalCards: tally.total,
    masteredCards: tally.mastered,
    dueCards: tally.due,
    progress: Math.round(tally.masterySum / tally.total),
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
