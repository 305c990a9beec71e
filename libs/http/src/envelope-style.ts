/**
 * The spec has three response families. Which one a path belongs to is decided here, once, for the
 * gateway and every service alike.
 * - `auth`: Group A authentication (`meta.requestId`)
 * - `shared`: the rest of Group A, the "shared format" (`data: null` on error, `meta.request_id`)
 * - `flashcards`: Group B (plain-text `error`)
 * - `catalogue`: Group C (our envelope, with the AUTH001…SRV002 codes)
 * - `plain`: health endpoints, whose bodies the spec fixes without an envelope
 */
export type EnvelopeStyle = 'auth' | 'shared' | 'flashcards' | 'catalogue' | 'plain';

export const API_VERSION = 'v1';

export function envelopeStyleFor(path: string): EnvelopeStyle {
  if (path === '/health' || path.startsWith('/health/') || path.startsWith('/api/health')) return 'plain';
  if (path.startsWith('/api/v1/auth/') || path === '/api/v1/auth') return 'auth';
  if (/^\/api\/v\d+(\/|$)/.test(path)) return 'shared';
  // the batch path has only the Group C face: its errors are Group C's even before the route runs
  // (a body the JSON parser refuses)
  if (path === '/api/flashcards/batch') return 'catalogue';
  if (path === '/api/flashcards' || path.startsWith('/api/flashcards/') || path.startsWith('/api/study/'))
    return 'flashcards';
  return 'catalogue';
}
