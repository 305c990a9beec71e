import { AppError } from '@lingua/errors';
import {
  type ApiKeyRecord,
  type ApiKeyScope,
  type ApiKeyStore,
  hashApiKey,
  newApiKey,
  publicApiKey,
} from './api-keys';

export interface IssueApiKeyCommand {
  clientId: string;
  name: string;
  scopes: readonly ApiKeyScope[];
  expiresInDays?: number | undefined;
  /** The administrator's user id. */
  issuedBy: string;
}

/** Issues a key; the secret is in the answer only (stored as its SHA-256). */
export async function issueApiKey(
  cmd: IssueApiKeyCommand,
  deps: { apiKeys: ApiKeyStore; now(): Date },
): Promise<ApiKeyRecord & { api_key: string }> {
  const { keyId, secret } = newApiKey();
  const now = deps.now();
  const record: ApiKeyRecord = {
    key_id: keyId,
    client_id: cmd.clientId,
    name: cmd.name,
    scopes: [...new Set(cmd.scopes)],
    created_at: now.toISOString(),
    created_by: cmd.issuedBy,
    expires_at: cmd.expiresInDays
      ? new Date(now.getTime() + cmd.expiresInDays * 86_400_000).toISOString()
      : null,
    revoked_at: null,
  };
  await deps.apiKeys.insert(record, hashApiKey(secret));
  return { ...record, api_key: secret };
}

/** A page of keys, newest first (public views: never the hash). */
export async function listApiKeys(
  page: { offset: number; limit: number },
  deps: { apiKeys: ApiKeyStore },
): Promise<{ items: ApiKeyRecord[]; total: number }> {
  const { items, total } = await deps.apiKeys.list(page.offset, page.limit);
  return { items: items.map(publicApiKey), total };
}

/** One key, or NOT_FOUND. */
export async function getApiKey(keyId: string, deps: { apiKeys: ApiKeyStore }): Promise<ApiKeyRecord> {
  const record = await deps.apiKeys.findById(keyId);
  if (!record) throw new AppError('NOT_FOUND', 'API key not found');
  return publicApiKey(record);
}

/** Revokes a key at once on every gateway (revoking it again answers the same record), or NOT_FOUND. */
export async function revokeApiKey(
  keyId: string,
  deps: { apiKeys: ApiKeyStore; now(): Date },
): Promise<ApiKeyRecord> {
  const record = await deps.apiKeys.revoke(keyId, deps.now());
  if (!record) throw new AppError('NOT_FOUND', 'API key not found');
  return publicApiKey(record);
}
