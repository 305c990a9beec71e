import { Router } from 'express';
import { currentUser } from '@lingua/auth';
import { parseInput } from '@lingua/errors';
import { sendSuccess } from '@lingua/http';
import type { ApiDocs } from '@lingua/openapi';
import type { ApiKeyStore } from '../../domain/api-keys';
import { getApiKey, issueApiKey, listApiKeys, revokeApiKey } from '../../domain/manage-api-keys.use-case';
import type { RateState } from '../../middleware/rate-limit';
import {
  ApiKey,
  ApiKeyList,
  ApiKeyParams,
  CreateApiKeyBody,
  IssuedApiKey,
  ListApiKeysQuery,
} from './api-keys.schemas';
import { StatusResponse } from './status.schemas';

const API_KEYS = '/api/v1/admin/api-keys';

/** What the gateway serves itself: the status operation and the API key administration. */
export function gatewayRoutes(deps: { apiKeys: ApiKeyStore; maintenance: boolean; docs: ApiDocs }): Router {
  const router = Router();
  const { docs } = deps;
  const now = () => new Date();

  docs.route({
    method: 'get',
    path: '/api/v1/status',
    operationId: 'status.v1.get',
    summary: "API status and the caller's remaining hourly budget",
    tags: ['status'],
    auth: 'access',
    response: StatusResponse,
    errors: { 429: 'Rate limit exceeded' },
  });
  router.get('/api/v1/status', (_req, res) => {
    const rate = res.locals.rateLimit as RateState;
    // the remaining budget changes with every call, this one included: nothing to revalidate
    res.setHeader('Cache-Control', 'no-store');
    sendSuccess(res, {
      api_status: deps.maintenance ? 'maintenance' : 'operational',
      maintenance_mode: deps.maintenance,
      rate_limit_remaining: rate.remaining,
      rate_limit_reset: rate.resetAt.toISOString(),
    });
  });

  docs.route({
    method: 'post',
    path: API_KEYS,
    operationId: 'admin.v1.apiKeys.create',
    summary: 'Issue an API key (admin); the secret is shown once',
    tags: ['api-keys'],
    auth: 'access',
    body: CreateApiKeyBody,
    response: IssuedApiKey,
    status: 201,
    errors: { 403: 'Administrator role required' },
  });
  router.post(API_KEYS, async (req, res) => {
    const input = parseInput(CreateApiKeyBody, req.body ?? {});
    const issued = await issueApiKey(
      {
        clientId: input.client_id,
        name: input.name,
        scopes: input.scopes,
        expiresInDays: input.expires_in_days,
        issuedBy: currentUser(res).sub,
      },
      { ...deps, now },
    );
    sendSuccess(res, issued, { status: 201, message: 'API key issued' });
  });

  docs.route({
    method: 'get',
    path: API_KEYS,
    operationId: 'admin.v1.apiKeys.list',
    summary: 'List API keys (admin), newest first',
    tags: ['api-keys'],
    auth: 'access',
    query: ListApiKeysQuery,
    response: ApiKeyList,
    errors: { 403: 'Administrator role required' },
  });
  router.get(API_KEYS, async (req, res) => {
    const { page, limit } = parseInput(ListApiKeysQuery, req.query);
    const { items, total } = await listApiKeys({ offset: (page - 1) * limit, limit }, deps);
    const totalPages = Math.max(1, Math.ceil(total / limit));
    const url = (p: number) => `${API_KEYS}?page=${p}&limit=${limit}`;
    sendSuccess(res, {
      api_keys: items,
      pagination: {
        current_page: page,
        total_pages: totalPages,
        total_items: total,
        items_per_page: limit,
        has_next: page < totalPages,
        has_prev: page > 1,
        next_url: page < totalPages ? url(page + 1) : null,
        prev_url: page > 1 ? url(page - 1) : null,
      },
    });
  });

  docs.route({
    method: 'get',
    path: `${API_KEYS}/:keyId`,
    summary: 'One API key (admin)',
    tags: ['api-keys'],
    auth: 'access',
    params: ApiKeyParams,
    response: ApiKey,
    errors: { 403: 'Administrator role required', 404: 'No such key' },
  });
  router.get(`${API_KEYS}/:keyId`, async (req, res) => {
    const { keyId } = parseInput(ApiKeyParams, req.params);
    sendSuccess(res, await getApiKey(keyId, deps));
  });

  docs.route({
    method: 'delete',
    path: `${API_KEYS}/:keyId`,
    summary: 'Revoke an API key (admin); it stops working at once on every gateway',
    tags: ['api-keys'],
    auth: 'access',
    params: ApiKeyParams,
    response: ApiKey,
    errors: { 403: 'Administrator role required', 404: 'No such key' },
  });
  router.delete(`${API_KEYS}/:keyId`, async (req, res) => {
    const { keyId } = parseInput(ApiKeyParams, req.params);
    sendSuccess(res, await revokeApiKey(keyId, { ...deps, now }), { message: 'API key revoked' });
  });

  return router;
}
