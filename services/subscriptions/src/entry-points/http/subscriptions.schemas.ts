import { z } from 'zod';
import { DEVICE_ID_PATTERN, DEVICE_ID_RULE, isStrongDeviceId } from '../../domain/device-id';
import { KNOWN_FEATURES } from '../../domain/subscription';

/** Request schemas of /api/v1/subscriptions/* (wire names, snake_case as the spec writes them). */
const queryBool = z
  .enum(['true', 'false', '1', '0'])
  .optional()
  .transform((v) => v === 'true' || v === '1');
/** A guest's device id: its bearer secret, so only ids with enough randomness (domain/device-id.ts). */
export const deviceId = z
  .string()
  .regex(DEVICE_ID_PATTERN, `must be ${DEVICE_ID_RULE}`)
  .refine(isStrongDeviceId, 'a UUID must be version 4 (random)')
  .meta({
    description: `The guest's device id, generated once by the app with at least 128 random bits: ${DEVICE_ID_RULE}. Whoever sends it sees the device's guest subscription, so keep it secret.`,
    example: '3f0c9a52-6b1e-4d7a-9c2f-8e5b1a4d7c90',
  });

export const DeviceQuery = z.object({ device_id: deviceId.optional() });

export const OffersQuery = DeviceQuery.extend({
  region: z
    .string()
    .regex(/^[A-Za-z]{2}$/, 'ISO 3166-1 alpha-2 region code')
    .optional(),
});

export const VerifyReceiptBody = z
  .object({
    platform: z.enum(['ios', 'android']),
    receipt_data: z.string().min(1).max(20_000),
    transaction_id: z.string().min(1).max(200).optional(),
    product_id: z.string().min(1).max(200),
    user_context: z
      .object({
        user_type: z.enum(['guest', 'registered']).optional(),
        device_id: deviceId.optional(),
        subscription_trigger: z.string().max(100).optional(),
      })
      .strict()
      .optional(),
  })
  .strict();

export const StatusQuery = DeviceQuery.extend({ include_features: queryBool, check_renewal: queryBool });

export const CancelBody = z
  .object({
    cancellation_reason: z.enum(['too_expensive', 'not_using', 'technical_issues', 'other']),
    feedback: z.string().max(2000).optional(),
    immediate_cancellation: z.boolean().default(false),
  })
  .strict();

export const ReactivateBody = z
  .object({
    offer_id: z.string().min(1).max(100).optional(),
    payment_method_update: z
      .object({ platform: z.enum(['ios', 'android']), new_receipt_data: z.string().min(1).max(20_000) })
      .strict()
      .optional(),
  })
  .strict();

const isoDate = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}(T[\d:.]+(Z|[+-]\d{2}:\d{2})?)?$/, 'ISO 8601 date')
  .refine((v) => !Number.isNaN(Date.parse(v)), 'not a valid date');

export const HistoryQuery = z.object({
  start_date: isoDate.optional(),
  end_date: isoDate.optional(),
  status: z.enum(['active', 'expired', 'cancelled', 'pending']).optional(),
  page: z.coerce.number().int().min(1).max(10_000).default(1),
  limit: z.coerce.number().int().min(1).max(100).default(20),
});

export const FeatureParams = z.object({ feature_id: z.enum(KNOWN_FEATURES) });

/** App Store Server Notifications V2: `{ signedPayload }`. */
export const AppleNotificationBody = z.object({ signedPayload: z.string().min(1).max(200_000) });

/** Google Pub/Sub push envelope carrying a real-time developer notification. */
export const GoogleNotificationBody = z.object({
  message: z.object({
    data: z.string().min(1).max(100_000),
    messageId: z.string().min(1).max(200).optional(),
    message_id: z.string().min(1).max(200).optional(),
    attributes: z.record(z.string(), z.string()).optional(),
    publishTime: z.string().optional(),
  }),
  subscription: z.string().max(500).optional(),
});
export const GoogleNotificationQuery = z.object({ token: z.string().max(500).optional() });

/** The decoded DeveloperNotification (only the parts we act on). */
export const DeveloperNotification = z.object({
  version: z.string().optional(),
  packageName: z.string(),
  eventTimeMillis: z.union([z.string(), z.number()]).optional(),
  subscriptionNotification: z
    .object({
      version: z.string().optional(),
      notificationType: z.number().int(),
      purchaseToken: z.string().min(1),
      subscriptionId: z.string().optional(),
    })
    .optional(),
  voidedPurchaseNotification: z
    .object({
      purchaseToken: z.string().min(1),
      orderId: z.string().optional(),
      productType: z.number().optional(),
    })
    .optional(),
  testNotification: z.object({ version: z.string().optional() }).optional(),
});
