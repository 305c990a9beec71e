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

/** An unzipped Anki collection may be this many times the upload limit. */
export const ANKI_INFLATE_FACTOR = 4;

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
