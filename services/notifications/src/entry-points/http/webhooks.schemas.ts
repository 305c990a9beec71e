import { z } from 'zod';
import { type EventName, PUBLIC_EVENT_NAMES } from '@lingua/contracts';
import { MAX_URL_LENGTH } from '../../domain/webhook-url-policy';
import { CataloguePagination } from './notifications.schemas';

const PublicEvent = z.enum(PUBLIC_EVENT_NAMES as [EventName, ...EventName[]]);
const Url = z.string().min(1).max(MAX_URL_LENGTH);
const Events = z
  .array(PublicEvent)
  .min(1)
  .max(PUBLIC_EVENT_NAMES.length * 2);
const Description = z.string().max(500);
const Scope = z.enum(['own', 'all']);

export const CreateWebhookBody = z
  .object({ url: Url, events: Events, description: Description.optional(), scope: Scope.optional() })
  .strict();

export const UpdateWebhookBody = z
  .object({
    url: Url.optional(),
    events: Events.optional(),
    description: Description.optional(),
    scope: Scope.optional(),
    enabled: z.boolean().optional(),
  })
  .strict()
  .refine((b) => Object.keys(b).length > 0, { message: 'nothing to update' });

export const WebhookParams = z.object({ webhookId: z.string().min(1).max(100) });
export const DeliveryParams = WebhookParams.extend({ deliveryId: z.string().min(1).max(200) });

export const PageQuery = z
  .object({
    page: z.coerce.number().int().min(1).max(100_000).default(1),
    limit: z.coerce.number().int().min(1).max(100).default(20),
  })
  .strict();

export const DeliveriesQuery = PageQuery.extend({
  status: z.enum(['pending', 'succeeded', 'failed']).optional(),
}).strict();

export const WebhookEndpoint = z
  .object({
    id: z.string(),
    url: z.string(),
    description: z.string(),
    events: z.array(PublicEvent),
    scope: Scope,
    ownerId: z.string(),
    enabled: z.boolean(),
    disabledReason: z.string().nullable(),
    circuit: z.object({
      state: z.enum(['closed', 'degraded', 'open']),
      consecutiveFailures: z.number().int(),
      openUntil: z.string().nullable(),
      failingSince: z.string().nullable(),
    }),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'WebhookEndpoint' });

export const CreatedWebhookEndpoint = WebhookEndpoint.extend({ secret: z.string() });

export const WebhookList = z.object({ webhooks: z.array(WebhookEndpoint), pagination: CataloguePagination });

const AttemptOutcome = z.object({
  at: z.string(),
  statusCode: z.number().int().nullable(),
  error: z.string().nullable(),
  durationMs: z.number().int(),
});

export const WebhookDelivery = z
  .object({
    id: z.string(),
    endpointId: z.string(),
    eventId: z.string(),
    event: z.string(),
    status: z.enum(['pending', 'succeeded', 'failed']),
    attempts: z.number().int(),
    nextAttemptAt: z.string().nullable(),
    lastAttempt: AttemptOutcome.nullable(),
    replays: z.number().int(),
    createdAt: z.string(),
    completedAt: z.string().nullable(),
  })
  .meta({ id: 'WebhookDelivery' });

export const WebhookDeliveryDetail = WebhookDelivery.extend({
  payload: z.unknown(),
  attemptLog: z.array(
    AttemptOutcome.extend({ attempt: z.number().int(), responseBody: z.string().nullable() }),
  ),
});

export const DeliveryList = z.object({
  deliveries: z.array(WebhookDelivery),
  pagination: CataloguePagination,
});
export const RotatedSecret = z.object({
  id: z.string(),
  secret: z.string(),
  previousSecretExpiresAt: z.string(),
});
export const ReplayedCount = z.object({ replayed: z.number().int() });
export const DeletedWebhook = z.object({ id: z.string(), deleted: z.boolean() });
