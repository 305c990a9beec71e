import { readFileSync } from 'node:fs';
import { androidpublisher, type androidpublisher_v3, auth as googleAuth } from '@googleapis/androidpublisher';
import { AppError } from '@lingua/errors';
import type { Logger } from '@lingua/logger';
import type { ReceiptVerifier } from '../../domain/ports';
import type { StorePurchase, Subscription } from '../../domain/subscription';

export interface GoogleSettings {
  packageName: string;
  /** https://androidpublisher.googleapis.com/ in production; a loopback stand-in in tests. */
  apiUrl: string;
  serviceAccount: { client_email: string; private_key: string };
  timeoutMs: number;
  logger?: Logger | undefined;
}

export const readServiceAccount = (file: string) =>
  JSON.parse(readFileSync(file, 'utf8')) as { client_email: string; private_key: string };

type SubscriptionV2 = androidpublisher_v3.Schema$SubscriptionPurchaseV2;

function httpStatusOf(err: unknown): number | undefined {
  const e = err as { status?: number; response?: { status?: number }; code?: unknown };
  return e.response?.status ?? e.status ?? (typeof e.code === 'number' ? e.code : undefined);
}

/**
 * Google Play purchase tokens, checked with the Play Developer API (purchases.subscriptionsv2.get),
 * "the source of truth" for subscriptions, and acknowledged once granted
 * (purchases.subscriptions.acknowledge).
 * Credentials: the service account signs its own JWT bearer (no token exchange), so the only remote
 * endpoint is the configurable API URL.
 */
export function googleVerifier(settings: GoogleSettings) {
  // the google-auth-library the API client was built with, so their types agree
  const auth = new googleAuth.JWT({
    email: settings.serviceAccount.client_email,
    key: settings.serviceAccount.private_key,
    scopes: ['https://www.googleapis.com/auth/androidpublisher'],
  });
  auth.useJWTAccessWithScope = true;
  // the platform fetch: gaxios would otherwise import node-fetch dynamically (fails in jest's vm)
  const api = androidpublisher({ version: 'v3', auth, rootUrl: settings.apiUrl, fetchImplementation: fetch });

  /** The store's error as ours; a 401/403 is the classic misconfiguration, logged for the operator. */
  function storeError(err: unknown, call: 'get' | 'acknowledge'): AppError {
    const status = httpStatusOf(err);
    const cause = err as Error;
    if (status === 404 || status === 410)
      return new AppError('RECEIPT_INVALID', 'Purchase token is unknown to Google Play', { cause });
    if (status === 400)
      return new AppError('RECEIPT_VERIFICATION_FAILED', 'Google Play rejected the purchase token', {
        cause,
      });
    if (status === 401 || status === 403)
      // the service account lacks the Play Console financial permissions
      settings.logger?.error(
        { status, call },
        'google play: service account not authorised for the Play Developer API',
      );
    return new AppError('PLATFORM_VERIFICATION_ERROR', 'Google Play verification failed', { cause });
  }

  async function fetchPurchase(purchaseToken: string): Promise<SubscriptionV2> {
    try {
      const res = await api.purchases.subscriptionsv2.get(
        { packageName: settings.packageName, token: purchaseToken },
        { timeout: settings.timeoutMs, retry: false },
      );
      return res.data;
    } catch (err) {
      throw storeError(err, 'get');
    }
  }

  /** purchases.subscriptions.acknowledge: without it Google refunds the purchase after 3 days. */
  async function acknowledge(purchase: StorePurchase): Promise<void> {
    try {
      await api.purchases.subscriptions.acknowledge(
        {
          packageName: settings.packageName,
          subscriptionId: purchase.productId,
          token: purchase.originalTransactionId,
        },
        { timeout: settings.timeoutMs, retry: false },
      );
    } catch (err) {
      const error = storeError(err, 'acknowledge');
      // no raw error (its request config carries the bearer) and the order id, not the purchase token
      settings.logger?.warn(
        {
          status: httpStatusOf(err),
          code: error.code,
          orderId: purchase.transactionId,
          productId: purchase.productId,
        },
        'google play: acknowledgement failed; the next verification, status check or notification retries it',
      );
      throw error;
    }
  }

  async function purchaseFor(purchaseToken: string, productId: string | undefined): Promise<StorePurchase> {
    const sub = await fetchPurchase(purchaseToken);
    const items = sub.lineItems ?? [];
    const item = productId ? items.find((i) => i.productId === productId) : items[0];
    if (!item?.productId || !item.expiryTime)
      throw new AppError('RECEIPT_INVALID', 'Purchase is not for this product');
    return toPurchase(purchaseToken, sub, item);
  }

  const verifier: ReceiptVerifier = {
    verify: ({ receiptData, productId }) => purchaseFor(receiptData, productId),
    refresh: (s: Subscription) => purchaseFor(s.originalTransactionId, s.productId),
    acknowledge,
  };
  return { ...verifier, purchaseFor };
}
export type GoogleVerifier = ReturnType<typeof googleVerifier>;

function toPurchase(
  purchaseToken: string,
  sub: SubscriptionV2,
  item: androidpublisher_v3.Schema$SubscriptionPurchaseLineItem,
): StorePurchase {
  const state = sub.subscriptionState ?? '';
  if (state === 'SUBSCRIPTION_STATE_PENDING_PURCHASE_CANCELED' || state === 'SUBSCRIPTION_STATE_UNSPECIFIED')
    throw new AppError('RECEIPT_INVALID', 'Purchase was never completed');
  const expiresDate = new Date(item.expiryTime!);
  return {
    // the purchase token identifies a Play subscription purchase (a plan change issues a new, linked one)
    originalTransactionId: purchaseToken,
    transactionId:
      (sub as { latestOrderId?: string }).latestOrderId ?? item.latestSuccessfulOrderId ?? purchaseToken,
    productId: item.productId!,
    purchaseDate: new Date(sub.startTime ?? Date.now()),
    expiresDate,
    autoRenew: item.autoRenewingPlan?.autoRenewEnabled ?? false,
    isTrial: !!item.offerPhase?.freeTrial,
    price: undefined,
    state:
      state === 'SUBSCRIPTION_STATE_PENDING'
        ? 'pending'
        : state === 'SUBSCRIPTION_STATE_EXPIRED' ||
            state === 'SUBSCRIPTION_STATE_ON_HOLD' ||
            state === 'SUBSCRIPTION_STATE_PAUSED'
          ? 'expired'
          : 'active',
    environment: sub.testPurchase ? 'test' : 'production',
    needsAcknowledgement: sub.acknowledgementState === 'ACKNOWLEDGEMENT_STATE_PENDING',
    // upgrade, downgrade or re-signup: Google issued this token in place of the linked one
    ...(sub.linkedPurchaseToken && { replacesOriginalTransactionId: sub.linkedPurchaseToken }),
  };
}
