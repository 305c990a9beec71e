import { type RequestHandler, Router } from 'express';
import { currentUser, requireRole } from '@lingua/auth';
import { parseInput } from '@lingua/errors';
import { type ApiDocs, sendData } from '@lingua/openapi';
import { AdminList, AdminSubscription } from './subscriptions.responses';
import {
  AdminListInput,
  GrantInput,
  RevokeInput,
  SubscriptionIdInput,
  adminGetSubscription,
  adminGrantSubscription,
  adminListSubscriptions,
  adminRevokeSubscription,
} from '../../domain/admin.use-case';
import type { SubscriptionsContext } from '../../domain/ports';
import { AdminListQuery, GrantBody, RevokeBody, SubscriptionParams } from './admin.schemas';

const BASE = '/api/v1/admin/subscriptions';

/** Administrator operations (admin role; others 403 FORBIDDEN). */
export function adminRoutes(
  ctx: SubscriptionsContext,
  auth: { required: RequestHandler },
  docs: ApiDocs,
): Router {
  const router = Router();
  const admin = [auth.required, requireRole('admin')];
  const errors = { 403: 'Not an administrator' };

  router.get(BASE, ...admin, async (req, res) => {
    const q = parseInput(AdminListQuery, req.query);
    sendData(
      res,
      AdminList,
      await adminListSubscriptions(
        parseInput(AdminListInput, {
          userId: q.user_id,
          deviceId: q.device_id,
          status: q.status,
          page: q.page,
          limit: q.limit,
        }),
        ctx,
      ),
    );
  });
  docs.route({
    method: 'get',
    path: BASE,
    operationId: 'admin.v1.subscriptions.list',
    summary: 'List subscriptions',
    auth: 'access',
    query: AdminListQuery,
    response: AdminList,
    errors,
  });

  router.post(`${BASE}/grant`, ...admin, async (req, res) => {
    const body = parseInput(GrantBody, req.body);
    const data = await adminGrantSubscription(
      parseInput(GrantInput, {
        userId: body.user_id,
        planId: body.plan_id,
        durationDays: body.duration_days,
        reason: body.reason,
      }),
      currentUser(res).sub,
      ctx,
    );
    sendData(res, AdminSubscription, data, { status: 201, message: 'Subscription granted' });
  });
  docs.route({
    method: 'post',
    path: `${BASE}/grant`,
    summary: 'Grant a complimentary subscription',
    auth: 'access',
    body: GrantBody,
    response: AdminSubscription,
    status: 201,
    errors: { ...errors, 409: 'SUBSCRIPTION_ALREADY_ACTIVE' },
  });

  router.get(`${BASE}/:subscription_id`, ...admin, async (req, res) => {
    const p = parseInput(SubscriptionParams, req.params);
    sendData(
      res,
      AdminSubscription,
      await adminGetSubscription(parseInput(SubscriptionIdInput, { subscriptionId: p.subscription_id }), ctx),
    );
  });
  docs.route({
    method: 'get',
    path: `${BASE}/:subscription_id`,
    summary: 'Look up a subscription',
    auth: 'access',
    params: SubscriptionParams,
    response: AdminSubscription,
    errors: { ...errors, 404: 'SUBSCRIPTION_NOT_FOUND' },
  });

  router.post(`${BASE}/:subscription_id/revoke`, ...admin, async (req, res) => {
    const p = parseInput(SubscriptionParams, req.params);
    const body = parseInput(RevokeBody, req.body);
    sendData(
      res,
      AdminSubscription,
      await adminRevokeSubscription(
        parseInput(RevokeInput, { subscriptionId: p.subscription_id, reason: body.reason }),
        currentUser(res).sub,
        ctx,
      ),
      {
        message: 'Subscription revoked',
      },
    );
  });
  docs.route({
    method: 'post',
    path: `${BASE}/:subscription_id/revoke`,
    summary: 'Revoke a subscription now',
    auth: 'access',
    params: SubscriptionParams,
    body: RevokeBody,
    response: AdminSubscription,
    errors: {
      ...errors,
      403: 'Not an administrator / SUBSCRIPTION_CANCELLED',
      404: 'SUBSCRIPTION_NOT_FOUND',
    },
  });

  return router;
}
