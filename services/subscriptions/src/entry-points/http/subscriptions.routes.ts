import { type RequestHandler, Router } from 'express';
import { parseInput } from '@lingua/errors';
import { type ApiDocs, sendData, successEnvelope } from '@lingua/openapi';
import { CancelInput, cancelSubscription } from '../../domain/cancel-subscription.use-case';
import { OffersInput, listOffers, listPlans } from '../../domain/plans-offers.use-case';
import type { SubscriptionsContext } from '../../domain/ports';
import { ReactivateInput, reactivateSubscription } from '../../domain/reactivate-subscription.use-case';
import { HistoryInput, subscriptionHistory } from '../../domain/subscription-history.use-case';
import {
  FeatureIdInput,
  StatusInput,
  checkFeatureAccess,
  getSubscriptionStatus,
} from '../../domain/subscription-status.use-case';
import { VerifyReceiptInput, verifyReceipt, verifyReceiptView } from '../../domain/verify-receipt.use-case';
import { callerOf } from './caller';
import { planInReadersLanguage } from './plan-text';
import {
  CancelBody,
  DeviceQuery,
  FeatureParams,
  HistoryQuery,
  OffersQuery,
  ReactivateBody,
  StatusQuery,
  VerifyReceiptBody,
} from './subscriptions.schemas';
import {
  CancelResult,
  FeatureAccessResult,
  HistoryResult,
  OffersResult,
  PlansResult,
  ReactivateResult,
  StatusResult,
  VerifyReceiptResult,
} from './subscriptions.responses';

const BASE = '/api/v1/subscriptions';

/** The spec's Group A subscription operations. */
export function subscriptionsRoutes(
  ctx: SubscriptionsContext,
  auth: { optional: RequestHandler; required: RequestHandler },
  docs: ApiDocs,
): Router {
  const router = Router();

  router.get(`${BASE}/plans`, auth.optional, async (req, res) => {
    const q = parseInput(DeviceQuery, req.query);
    const caller = callerOf(req, res, q.device_id);
    const plans = await listPlans(caller, ctx);
    sendData(res, PlansResult, {
      ...plans,
      available_plans: plans.available_plans.map(planInReadersLanguage),
    });
  });
  docs.route({
    method: 'get',
    path: `${BASE}/plans`,
    summary: 'Plans and the caller’s trial eligibility',
    auth: 'optional',
    query: DeviceQuery,
    response: PlansResult,
  });

  router.get(`${BASE}/offers`, auth.optional, async (req, res) => {
    const q = parseInput(OffersQuery, req.query);
    const caller = callerOf(req, res, q.device_id);
    sendData(res, OffersResult, await listOffers(parseInput(OffersInput, { region: q.region }), caller, ctx));
  });
  docs.route({
    method: 'get',
    path: `${BASE}/offers`,
    summary: 'Active offers and eligibility',
    auth: 'optional',
    query: OffersQuery,
    response: OffersResult,
  });

  router.post(`${BASE}/verify-receipt`, auth.optional, async (req, res) => {
    const body = parseInput(VerifyReceiptBody, req.body);
    const caller = callerOf(req, res, body.user_context?.device_id);
    const result = await verifyReceipt(
      parseInput(VerifyReceiptInput, {
        platform: body.platform,
        receiptData: body.receipt_data,
        transactionId: body.transaction_id,
        productId: body.product_id,
        subscriptionTrigger: body.user_context?.subscription_trigger,
      }),
      caller,
      ctx,
    );
    sendData(res, VerifyReceiptResult, verifyReceiptView(result, body.platform, ctx.clock.now()), {
      status: result.created ? 201 : 200,
      message: result.created ? 'Subscription activated' : 'Purchase already verified',
    });
  });
  docs.route({
    method: 'post',
    path: `${BASE}/verify-receipt`,
    summary: 'Verify a store receipt and activate the subscription',
    auth: 'optional',
    body: VerifyReceiptBody,
    example: {
      platform: 'ios',
      receipt_data: 'base64-receipt-from-storekit',
      transaction_id: '1000000123456789',
      product_id: 'com.lingua.premium.monthly',
    },
    response: VerifyReceiptResult,
    status: 201,
    description:
      'Verifies a store receipt and activates the subscription: 201 when this call created it, 200 when the purchase was already verified (the same body). An access token is optional; a guest names the device in user_context.device_id.',
    bodies: {
      200: {
        description: 'The purchase was already verified: the same body',
        body: successEnvelope('shared', VerifyReceiptResult),
      },
    },
    errors: {
      400: 'RECEIPT_INVALID / RECEIPT_VERIFICATION_FAILED',
      409: 'SUBSCRIPTION_ALREADY_ACTIVE',
      502: 'PLATFORM_VERIFICATION_ERROR',
    },
  });

  router.get(`${BASE}/status`, auth.optional, async (req, res) => {
    const q = parseInput(StatusQuery, req.query);
    const caller = callerOf(req, res, q.device_id);
    sendData(
      res,
      StatusResult,
      await getSubscriptionStatus(
        parseInput(StatusInput, { includeFeatures: q.include_features, checkRenewal: q.check_renewal }),
        caller,
        ctx,
      ),
    );
  });
  docs.route({
    method: 'get',
    path: `${BASE}/status`,
    summary: 'Subscription status, permissions and usage',
    auth: 'optional',
    query: StatusQuery,
    response: StatusResult,
  });

  router.post(`${BASE}/cancel`, auth.required, async (req, res) => {
    const body = parseInput(CancelBody, req.body);
    const caller = callerOf(req, res, undefined);
    const data = await cancelSubscription(
      parseInput(CancelInput, {
        cancellationReason: body.cancellation_reason,
        feedback: body.feedback,
        immediateCancellation: body.immediate_cancellation,
      }),
      caller,
      ctx,
    );
    sendData(res, CancelResult, data, { message: 'Subscription cancelled' });
  });
  docs.route({
    method: 'post',
    path: `${BASE}/cancel`,
    summary: 'Cancel at period end or immediately',
    auth: 'access',
    body: CancelBody,
    response: CancelResult,
    errors: { 403: 'SUBSCRIPTION_EXPIRED / SUBSCRIPTION_CANCELLED', 404: 'SUBSCRIPTION_NOT_FOUND' },
  });

  router.post(`${BASE}/reactivate`, auth.required, async (req, res) => {
    const body = parseInput(ReactivateBody, req.body);
    const caller = callerOf(req, res, undefined);
    const data = await reactivateSubscription(
      parseInput(ReactivateInput, {
        offerId: body.offer_id,
        paymentMethodUpdate: body.payment_method_update && {
          platform: body.payment_method_update.platform,
          newReceiptData: body.payment_method_update.new_receipt_data,
        },
      }),
      caller,
      ctx,
    );
    sendData(res, ReactivateResult, data, { message: 'Subscription reactivated' });
  });
  docs.route({
    method: 'post',
    path: `${BASE}/reactivate`,
    summary: 'Resume auto-renewal, or renew with a new receipt',
    auth: 'access',
    body: ReactivateBody,
    response: ReactivateResult,
    errors: {
      403: 'SUBSCRIPTION_EXPIRED (lapsed), SUBSCRIPTION_CANCELLED (cancelled at once): a new receipt is needed',
      404: 'SUBSCRIPTION_NOT_FOUND',
      409: 'SUBSCRIPTION_ALREADY_ACTIVE',
    },
  });

  router.get(`${BASE}/history`, auth.required, async (req, res) => {
    const q = parseInput(HistoryQuery, req.query);
    const caller = callerOf(req, res, undefined);
    const data = await subscriptionHistory(
      parseInput(HistoryInput, {
        startDate: q.start_date,
        endDate: q.end_date,
        status: q.status,
        page: q.page,
        limit: q.limit,
      }),
      caller,
      ctx,
    );
    sendData(res, HistoryResult, data);
  });
  docs.route({
    method: 'get',
    path: `${BASE}/history`,
    summary: 'Subscription history',
    auth: 'access',
    query: HistoryQuery,
    response: HistoryResult,
  });

  router.get(`${BASE}/check-access/:feature_id`, auth.required, async (req, res) => {
    const p = parseInput(FeatureParams, req.params);
    const caller = callerOf(req, res, undefined);
    sendData(
      res,
      FeatureAccessResult,
      await checkFeatureAccess(parseInput(FeatureIdInput, { featureId: p.feature_id }), caller, ctx),
    );
  });
  docs.route({
    method: 'get',
    path: `${BASE}/check-access/:feature_id`,
    summary: 'Whether a feature is unlocked',
    auth: 'access',
    params: FeatureParams,
    response: FeatureAccessResult,
  });

  return router;
}
