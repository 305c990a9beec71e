import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { ServiceName } from '../routes';

/**
 * API keys for internal services and partners (spec: Authentication 8, rules ours):
 * - issued and revoked only by admins (`/api/v1/admin/api-keys`); the secret is shown once, at issue,
 *   and stored only as its SHA-256
 * - bound to one client id: a call must send the matching `X-Client-ID` with `X-API-Key`
 * - scoped per service and access kind: `<service>:read` (GET, HEAD) or `<service>:write` (anything
 *   else); `*` is every service; `ops:read` only the health breakdown. Admin- and subscription-gated
 *   paths need a user token, never a key
 * - optional expiry; a revoked or expired key is a 401 like an invalid token
 */
export const SERVICES: ServiceName[] = ['identity', 'flashcards', 'subscriptions', 'ai', 'notifications'];
// `ops:read`: the health breakdown (/api/health/detailed) for monitoring, nothing else
export const API_KEY_SCOPES = [
  '*',
  'ops:read',
  ...SERVICES.flatMap((s) => [`${s}:read`, `${s}:write`]),
] as const;
export type ApiKeyScope = (typeof API_KEY_SCOPES)[number];

export interface ApiKeyRecord {
  key_id: string;
  client_id: string;
  name: string;
  scopes: ApiKeyScope[];
  created_at: string;
  created_by: string;
  expires_at: string | null;
  revoked_at: string | null;
}

export const hashApiKey = (key: string) => createHash('sha256').update(key).digest('hex');

/** A new key: 32 random bytes, recognisable by its prefix in logs and secret scanners. */
export function newApiKey(): { keyId: string; secret: string } {
  return { keyId: randomUUID(), secret: `lingua_${randomBytes(32).toString('base64url')}` };
}

export function isUsable(record: ApiKeyRecord, now: Date): boolean {
  if (record.revoked_at) return false;
  return record.expires_at === null || new Date(record.expires_at) > now;
}

/** Whether a key's scopes allow the method on the service. */
export function scopeAllows(scopes: readonly string[], service: ServiceName, method: string): boolean {
  const kind = method === 'GET' || method === 'HEAD' ? 'read' : 'write';
  return scopes.includes('*') || scopes.includes(`${service}:${kind}`);
}
