import type { PortableCard } from './portable-card';

export const DUPLICATE_STRATEGIES = ['skip', 'replace', 'create'] as const;
export type DuplicateStrategy = (typeof DUPLICATE_STRATEGIES)[number];

export const duplicateKey = (word: string) => word.trim().toLowerCase();

export interface ImportPlan {
  create: { row: number; card: PortableCard }[];
  /** Existing cards whose content is overwritten (their learning progress is kept). */
  replace: { row: number; cardId: string; card: PortableCard }[];
  skipped: { row: number; reason: string }[];
}

/**
 * Decides what happens to each valid row. A duplicate is a card with the same word, compared
 * case-insensitively, among the user's active cards in the target set, or an earlier row of the file.
 * - skip: duplicates are skipped (the first occurrence in the file wins);
 * - replace: the existing card takes the row's content; within the file the last occurrence wins;
 * - create: every row becomes a new card. Pure.
 */
export function planImport(
  rows: readonly { row: number; card: PortableCard }[],
  existing: ReadonlyMap<string, string>,
  strategy: DuplicateStrategy,
): ImportPlan {
  const plan: ImportPlan = { create: [], replace: [], skipped: [] };
  if (strategy === 'create') return { ...plan, create: [...rows] };
  const planned = new Map<string, { kind: 'create' | 'replace'; index: number }>();
  for (const entry of rows) {
    const key = duplicateKey(entry.card.word);
    const earlier = planned.get(key);
    const existingId = existing.get(key);
    if (strategy === 'skip') {
      if (existingId || earlier) {
        plan.skipped.push({
          row: entry.row,
          reason: existingId ? 'duplicate of an existing card' : 'duplicate of an earlier row',
        });
        continue;
      }
      planned.set(key, { kind: 'create', index: plan.create.push(entry) - 1 });
      continue;
    }
    // replace: a later row supersedes an earlier row of the same word
    if (earlier?.kind === 'create') {
      plan.skipped.push({ row: plan.create[earlier.index]!.row, reason: `superseded by row ${entry.row}` });
      plan.create[earlier.index] = entry;
      continue;
    }
    if (earlier?.kind === 'replace') {
      const superseded = plan.replace[earlier.index]!;
      plan.skipped.push({ row: superseded.row, reason: `superseded by row ${entry.row}` });
      plan.replace[earlier.index] = { ...entry, cardId: superseded.cardId };
      continue;
    }
    if (existingId)
      planned.set(key, { kind: 'replace', index: plan.replace.push({ ...entry, cardId: existingId }) - 1 });
    else planned.set(key, { kind: 'create', index: plan.create.push(entry) - 1 });
  }
  return plan;
}
