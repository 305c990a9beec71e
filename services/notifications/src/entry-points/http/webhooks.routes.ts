import { Router, type RequestHandler } from 'express';
import { currentUser } from '@lingua/auth';
import { parseInput } from '@lingua/errors';
import { sendSuccess } from '@lingua/http';
import type { ApiDocs } from '@lingua/openapi';
import {
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  endpointFor,
  getWebhookDelivery,
  listWebhookDeliveries,
  listWebhookEndpoints,
  replayFailedDeliveries,
  replayWebhookDelivery,
  rotateWebhookSecret,
  sendTestWebhook,
  toPublicEndpoint,
  updateWebhookEndpoint,
  type WebhookDeps,
} from '../../domain/manage-webhooks.use-case';
import {
  CreatedWebhookEndpoint,
  CreateWebhookBody,
  DeletedWebhook,
  DeliveriesQuery,
  DeliveryList,
  DeliveryParams,
  PageQuery,
  ReplayedCount,
  RotatedSecret,
  UpdateWebhookBody,
  WebhookDelivery,
  WebhookDeliveryDetail,
  WebhookEndpoint,
  WebhookList,
  WebhookParams,
} from './webhooks.schemas';

/**
 * `/api/webhooks` (Group C): each account manages its own endpoints (events about itself);
 * admins see and manage every endpoint and may subscribe to events about every account.
 */
export function webhooksRoutes(auth: RequestHandler, deps: WebhookDeps, docs: ApiDocs) {
  const router = Router();
  const base = '/api/webhooks';
  const one = `${base}/:webhookId`;
  router.use(base, auth);

  router.post(base, async (req, res) => {
    const body = parseInput(CreateWebhookBody, req.body);
    sendSuccess(res, await createWebhookEndpoint(currentUser(res), body, deps), { status: 201 });
  });
  docs.route({
    method: 'post',
    path: base,
    summary: 'Register a webhook endpoint (the signing secret is shown only here and on rotation)',
    auth: 'access',
    body: CreateWebhookBody,
    response: CreatedWebhookEndpoint,
    status: 201,
    errors: { 403: 'scope "all" needs the admin role', 409: 'endpoint limit per account reached' },
  });

  router.get(base, async (req, res) => {
    const q = parseInput(PageQuery, req.query);
    sendSuccess(res, await listWebhookEndpoints(currentUser(res), q.page, q.limit, deps));
  });
  docs.route({
    method: 'get',
    path: base,
    summary: 'List webhook endpoints',
    auth: 'access',
    query: PageQuery,
    response: WebhookList,
  });

  router.get(one, async (req, res) => {
    const { webhookId } = parseInput(WebhookParams, req.params);
    sendSuccess(res, toPublicEndpoint(await endpointFor(currentUser(res), webhookId, deps)));
  });
  docs.route({
    method: 'get',
    path: one,
    summary: 'Get a webhook endpoint',
    auth: 'access',
    params: WebhookParams,
    response: WebhookEndpoint,
    errors: { 404: 'Not found' },
  });

  const update: RequestHandler = async (req, res) => {
    const { webhookId } = parseInput(WebhookParams, req.params);
    const body = parseInput(UpdateWebhookBody, req.body);
    sendSuccess(res, await updateWebhookEndpoint(currentUser(res), webhookId, body, deps));
  };
  router.patch(one, update);
  router.put(one, update);
  for (const method of ['patch', 'put'] as const)
    docs.route({
      method,
      path: one,
      summary: 'Update a webhook endpoint (url, events, description, scope, enabled)',
      auth: 'access',
      params: WebhookParams,
      body: UpdateWebhookBody,
      response: WebhookEndpoint,
      errors: { 403: 'scope "all" needs the admin role', 404: 'Not found' },
    });

  router.delete(one, async (req, res) => {
    const { webhookId } = parseInput(WebhookParams, req.params);
    sendSuccess(res, await deleteWebhookEndpoint(currentUser(res), webhookId, deps));
  });
  docs.route({
    method: 'delete',
    path: one,
    summary: 'Delete a webhook endpoint',
    auth: 'access',
    params: WebhookParams,
    response: DeletedWebhook,
    errors: { 404: 'Not found' },
  });

  router.post(`${one}/rotate-secret`, async (req, res) => {
    const { webhookId } = parseInput(WebhookParams, req.params);
    sendSuccess(res, await rotateWebhookSecret(currentUser(res), webhookId, deps));
  });
  docs.route({
    method: 'post',
    path: `${one}/rotate-secret`,
    summary: 'Rotate the signing secret (the previous one keeps signing for 24 h)',
    auth: 'access',
    params: WebhookParams,
    response: RotatedSecret,
    errors: { 404: 'Not found' },
  });

  router.post(`${one}/test`, async (req, res) => {
    const { webhookId } = parseInput(WebhookParams, req.params);
    sendSuccess(res, await sendTestWebhook(currentUser(res), webhookId, deps), { status: 202 });
  });
  docs.route({
    method: 'post',
    path: `${one}/test`,
    summary: 'Send a signed test event (webhook.test) to the endpoint',
    auth: 'access',
    params: WebhookParams,
    response: WebhookDelivery,
    status: 202,
    errors: { 404: 'Not found' },
  });

  router.get(`${one}/deliveries`, async (req, res) => {
    const { webhookId } = parseInput(WebhookParams, req.params);
    const q = parseInput(DeliveriesQuery, req.query);
    sendSuccess(res, await listWebhookDeliveries(currentUser(res), webhookId, q, deps));
  });
  docs.route({
    method: 'get',
    path: `${one}/deliveries`,
    summary: 'List deliveries of an endpoint (newest first)',
    auth: 'access',
    params: WebhookParams,
    query: DeliveriesQuery,
    response: DeliveryList,
    errors: { 404: 'Not found' },
  });

  router.post(`${one}/deliveries/replay-failed`, async (req, res) => {
    const { webhookId } = parseInput(WebhookParams, req.params);
    sendSuccess(res, await replayFailedDeliveries(currentUser(res), webhookId, deps), { status: 202 });
  });
  docs.route({
    method: 'post',
    path: `${one}/deliveries/replay-failed`,
    summary: 'Replay every dead-lettered delivery of the endpoint',
    auth: 'access',
    params: WebhookParams,
    response: ReplayedCount,
    status: 202,
    errors: { 404: 'Not found' },
  });

  router.get(`${one}/deliveries/:deliveryId`, async (req, res) => {
    const { webhookId, deliveryId } = parseInput(DeliveryParams, req.params);
    sendSuccess(res, await getWebhookDelivery(currentUser(res), webhookId, deliveryId, deps));
  });
  docs.route({
    method: 'get',
    path: `${one}/deliveries/:deliveryId`,
    summary: 'A delivery with its payload and attempt log',
    auth: 'access',
    params: DeliveryParams,
    response: WebhookDeliveryDetail,
    errors: { 404: 'Not found' },
  });

  router.post(`${one}/deliveries/:deliveryId/replay`, async (req, res) => {
    const { webhookId, deliveryId } = parseInput(DeliveryParams, req.params);
    sendSuccess(res, await replayWebhookDelivery(currentUser(res), webhookId, deliveryId, deps), {
      status: 202,
    });
  });
  docs.route({
    method: 'post',
    path: `${one}/deliveries/:deliveryId/replay`,
    summary: 'Replay a finished delivery (same webhook-id and body, fresh retry schedule)',
    auth: 'access',
    params: DeliveryParams,
    response: WebhookDelivery,
    status: 202,
    errors: { 404: 'Not found', 409: 'Delivery still pending' },
  });
  return router;
}
