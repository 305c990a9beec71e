import { Router } from 'express';
import { AppError, parseInput } from '@lingua/errors';
import { type ApiDocs, sendData } from '@lingua/openapi';
import { StoreNotificationResult } from './subscriptions.responses';
import type {
  AppleNotifications,
  GooglePurchases,
  PushAuthenticator,
  SubscriptionsContext,
} from '../../domain/ports';
import { type NotificationJournal, handleStoreNotification } from '../../domain/store-notification.use-case';
import {
  AppleNotificationBody,
  DeveloperNotification,
  GoogleNotificationBody,
  GoogleNotificationQuery,
} from './subscriptions.schemas';

const BASE = '/api/v1/subscriptions/notifications';

/** Google RTDN subscription notification types (Play Console docs). */
const GOOGLE_TYPES: Record<number, string> = {
  1: 'recovered',
  2: 'renewed',
  3: 'cancelled',
  4: 'purchased',
  5: 'on_hold',
  6: 'in_grace_period',
  7: 'restarted',
  9: 'deferred',
  10: 'paused',
  11: 'pause_schedule_changed',
  12: 'revoked',
  13: 'expired',
};

const IN_PROGRESS =
  'CONFLICT: another delivery of this notification is being applied; retry after `Retry-After` seconds (the end of its lease)';
const NOTIFICATION_DESCRIPTION =
  'Called by the store, not by the app; no user token. Answers 200 `{received, outcome}` once the notification is applied (`applied`, `ignored`, `unknown_subscription`) or was applied before (`duplicate`). A delivery that arrives while an earlier delivery of the same notification is still being applied gets 409 `CONFLICT` with `Retry-After` (never `duplicate`: that attempt may still fail); an attempt that never finishes (a crash) holds its claim only until its lease (`STORE_NOTIFICATION_LEASE_MS`) ends, after which a retry applies the notification.';

/**
 * Store server-to-server notifications. They carry no user token: Apple's are authenticated by their
 * signature, Google's by the push credentials. Replays (same notification id) are acknowledged and ignored;
 * a delivery while another is still being applied is 409 (the domain's claim lease).
 */
export function storeNotificationRoutes(
  ctx: SubscriptionsContext,
  deps: {
    journal: NotificationJournal;
    apple?: AppleNotifications | undefined;
    google?: GooglePurchases | undefined;
    googlePush: PushAuthenticator;
    packageName: string;
  },
  docs: ApiDocs,
): Router {
  const router = Router();
  const notConfigured = () => new AppError('NOT_FOUND', 'Store notifications are not enabled for this store');

  router.post(`${BASE}/apple`, async (req, res) => {
    const apple = deps.apple;
    if (!apple) throw notConfigured();
    const body = parseInput(AppleNotificationBody, req.body);
    const n = await apple.decodeNotification(body.signedPayload);
    if (!n.notificationUUID) throw new AppError('RECEIPT_INVALID', 'Notification has no id');
    const type = String(n.notificationType ?? '');
    const outcome = await handleStoreNotification(
      {
        notificationId: `apple:${n.notificationUUID}`,
        verifier: 'apple',
        resolve: async () => {
          if (!n.data?.signedTransactionInfo) return undefined;
          const { purchase, revocationDate } = await apple.purchaseOf(
            n.data.signedTransactionInfo,
            n.data.signedRenewalInfo,
          );
          if (type === 'REFUND' || type === 'REVOKE') {
            purchase.state = 'refunded';
            purchase.revokedAt ??= revocationDate ? new Date(revocationDate) : ctx.clock.now();
          }
          if (type === 'EXPIRED' || type === 'GRACE_PERIOD_EXPIRED') purchase.state = 'expired';
          return { purchase, change: `apple_${type.toLowerCase()}` };
        },
      },
      { ...ctx, journal: deps.journal },
    );
    sendData(res, StoreNotificationResult, { received: true, outcome });
  });
  docs.route({
    method: 'post',
    path: `${BASE}/apple`,
    summary: 'App Store Server Notifications V2 (signed payload)',
    auth: 'none',
    body: AppleNotificationBody,
    response: StoreNotificationResult,
    description: `${NOTIFICATION_DESCRIPTION} Apple retries a non-2xx answer five times over the following days (1 to 72 hours apart).`,
    errors: {
      400: 'RECEIPT_VERIFICATION_FAILED (bad signature) / RECEIPT_INVALID',
      404: 'Apple verifier not enabled',
      409: IN_PROGRESS,
    },
  });

  router.post(`${BASE}/google`, async (req, res) => {
    const google = deps.google;
    if (!google) throw notConfigured();
    const query = parseInput(GoogleNotificationQuery, req.query);
    await deps.googlePush.verify({ queryToken: query.token, authorization: req.get('authorization') });
    const body = parseInput(GoogleNotificationBody, req.body);
    const messageId = body.message.messageId ?? body.message.message_id;
    if (!messageId)
      throw new AppError('VALIDATION_ERROR', 'Validation failed', {
        details: { 'message.messageId': ['Required'] },
      });
    let decoded: unknown;
    try {
      decoded = JSON.parse(Buffer.from(body.message.data, 'base64').toString('utf8'));
    } catch {
      throw new AppError('VALIDATION_ERROR', 'Validation failed', {
        details: { 'message.data': ['Not base64-encoded JSON'] },
      });
    }
    const n = parseInput(DeveloperNotification, decoded);
    const token = n.subscriptionNotification?.purchaseToken ?? n.voidedPurchaseNotification?.purchaseToken;
    const outcome =
      n.packageName !== deps.packageName || !token
        ? 'ignored'
        : await handleStoreNotification(
            {
              notificationId: `google:${messageId}`,
              verifier: 'google',
              resolve: async () => {
                // the notification only says "changed": the Play Developer API says what the state is now
                const purchase = await google.purchaseFor(token, undefined);
                const type = n.subscriptionNotification?.notificationType;
                if (n.voidedPurchaseNotification || type === 12) {
                  purchase.state = 'refunded';
                  purchase.revokedAt = ctx.clock.now();
                }
                const change = n.voidedPurchaseNotification
                  ? 'google_voided'
                  : `google_${GOOGLE_TYPES[type ?? 0] ?? `type_${type}`}`;
                return { purchase, change };
              },
            },
            { ...ctx, journal: deps.journal },
          );
    sendData(res, StoreNotificationResult, { received: true, outcome });
  });
  docs.route({
    method: 'post',
    path: `${BASE}/google`,
    summary: 'Google Play real-time developer notifications (Pub/Sub push)',
    auth: 'none',
    query: GoogleNotificationQuery,
    body: GoogleNotificationBody,
    response: StoreNotificationResult,
    description: `${NOTIFICATION_DESCRIPTION} Pub/Sub redelivers a non-2xx answer with back-off until the message's retention ends.`,
    errors: {
      401: 'Push authentication failed',
      404: 'Google verifier not enabled',
      409: IN_PROGRESS,
      502: 'PLATFORM_VERIFICATION_ERROR',
    },
  });

  return router;
}
