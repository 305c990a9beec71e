import { z } from 'zod';
import { API_KEY_SCOPES } from '../../domain/api-keys';

export const CreateApiKeyBody = z
  .object({
    name: z.string().trim().min(1).max(100),
    client_id: z.string().regex(/^[A-Za-z0-9._-]{3,64}$/, '3 to 64 letters, digits, dot, dash or underscore'),
    scopes: z.array(z.enum(API_KEY_SCOPES)).min(1).max(API_KEY_SCOPES.length),
    expires_in_days: z.number().int().min(1).max(3650).optional(),
  })
  .strict()
  .meta({ id: 'CreateApiKeyRequest' });

export const ListApiKeysQuery = z.object({
  page: z.coerce.number().int().min(1).max(10_000).default(1),
  limit: z.coerce.number().int().min(1).max(100).default(20),
});

export const ApiKeyParams = z.object({ keyId: z.uuid() });

export const ApiKey = z
  .object({
    key_id: z.string(),
    client_id: z.string(),
    name: z.string(),
    scopes: z.array(z.enum(API_KEY_SCOPES)),
    created_at: z.string().meta({ format: 'date-time' }),
    created_by: z.string(),
    expires_at: z.string().meta({ format: 'date-time' }).nullable(),
    revoked_at: z.string().meta({ format: 'date-time' }).nullable(),
  })
  .meta({ id: 'ApiKey' });

export const IssuedApiKey = ApiKey.extend({
  api_key: z.string().meta({ description: 'The secret, shown only in this response' }),
}).meta({ id: 'IssuedApiKey' });

export const ApiKeyList = z.object({
  api_keys: z.array(ApiKey),
  pagination: z.object({
    current_page: z.number().int(),
    total_pages: z.number().int(),
    total_items: z.number().int(),
    items_per_page: z.number().int(),
    has_next: z.boolean(),
    has_prev: z.boolean(),
    next_url: z.string().nullable(),
    prev_url: z.string().nullable(),
  }),
});
