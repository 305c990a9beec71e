import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { z } from 'zod';
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

/**
 * A stored key as the edge trusts it. A record that does not match (a scope this version does not
 * know, a malformed field) opens nothing: the key is treated as unknown rather than half-understood.
 */
export const StoredApiKey = z.object({
  key_id: z.string().min(1),
  client_id: z.string().min(1),
  name: z.string(),
  scopes: z.array(z.enum(API_KEY_SCOPES)).min(1),
  created_at: z.string(),
  created_by: z.string(),
  expires_at: z.string().nullable(),
  revoked_at: z.string().nullable(),
});
export type ApiKeyRecord = z.infer<typeof StoredApiKey>;

/** The record when it is one we fully understand, else undefined (fail closed). */
export function trustedApiKey(raw: unknown): ApiKeyRecord | undefined {
  const parsed = StoredApiKey.safeParse(raw);
  return parsed.success ? parsed.data : undefined;
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

/** The gateway's own paths a key may call: its budget (status). Anything else without a service is closed. */
const KEY_OWN_PATHS = ['/api/v1/status'];

/**
 * Whether a key's scopes allow the method on the path's service. Only known scopes count, and a
 * path no service owns is refused unless listed above (no scope can be checked against it).
 */
export function scopeAllows(
  scopes: readonly string[],
  service: ServiceName | undefined,
  method: string,
  path: string,
): boolean {
  if (!Array.isArray(scopes)) return false;
  if (!service) return KEY_OWN_PATHS.includes(path);
  const kind = method === 'GET' || method === 'HEAD' ? 'read' : 'write';
  return scopes.includes('*') || scopes.includes(`${service}:${kind}`);
}

/** Where API keys are kept (implemented in data-access over Redis). */
export interface ApiKeyStore {
  insert(record: ApiKeyRecord, hash: string): Promise<void>;
  /** For admission: only a record whose every field and scope is understood (else undefined). */
  findByHash(hash: string): Promise<ApiKeyRecord | undefined>;
  findById(id: string): Promise<ApiKeyRecord | undefined>;
  /** Newest first. */
  list(offset: number, limit: number): Promise<{ items: ApiKeyRecord[]; total: number }>;
  revoke(id: string, at: Date): Promise<ApiKeyRecord | undefined>;
}

/** The public view of a record (never the hash). */
export function publicApiKey(r: ApiKeyRecord & { hash?: string }): ApiKeyRecord {
  const { hash: _hash, ...rest } = r;
  return rest;
}
