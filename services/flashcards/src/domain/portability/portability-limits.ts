/** Limits of export and import (spec: Limits), and who counts as premium. */
export const PORTABILITY_LIMITS = {
  exportsPerDayFree: 5,
  uploadBytesFree: 10 * 1024 * 1024,
  uploadBytesPremium: 50 * 1024 * 1024,
  /** Rows one import may hold; a bigger file is refused whole. */
  maxImportRows: 10_000,
  /** Cards one export may hold. */
  maxExportCards: 20_000,
  /** cardIds one export request may name. */
  maxExportCardIds: 1_000,
  /** Row errors listed in an import answer (the count is always complete). */
  maxReportedErrors: 500,
} as const;

/** An Anki package may expand (its collections, unzipped and zstd-decoded) to this many times the upload limit… */
export const ANKI_INFLATE_FACTOR = 4;
/**
 * …and never past 64 MB: the collection is held whole twice while it is read (ours and SQLite's
 * copy), and the service runs in 512 MiB. No import needs more: it takes at most maxImportRows notes.
 */
export const ANKI_EXPANSION_MAX_BYTES = 64 * 1024 * 1024;

/** The decompression budget of an Anki package uploaded under `uploadBytes` (40 MB free, 64 MB premium). */
export const ankiExpansionBudget = (uploadBytes: number) =>
  Math.min(uploadBytes * ANKI_INFLATE_FACTOR, ANKI_EXPANSION_MAX_BYTES);

/** Premium = a subscriber or admin role, or an active/trial subscription on the token (spec: Roles). */
export function isPremium(claims: { role?: string; subscription_status?: string } | undefined): boolean {
  if (!claims) return false;
  return (
    claims.role === 'subscriber' ||
    claims.role === 'admin' ||
    claims.subscription_status === 'active' ||
    claims.subscription_status === 'trial'
  );
}

/** The UTC day an export counts against, and when that day's budget resets. */
export function exportDay(now: Date): { day: string; resetAt: Date } {
  const day = now.toISOString().slice(0, 10);
  const resetAt = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1));
  return { day, resetAt };
}
