import { z } from 'zod';

/** Request schemas of /api/v1/admin/subscriptions/*. */
const id = z.string().trim().min(1).max(100);

export const AdminListQuery = z.object({
  user_id: id.optional(),
  device_id: id.optional(),
  status: z.enum(['active', 'expired', 'cancelled', 'pending']).optional(),
  page: z.coerce.number().int().min(1).max(10_000).default(1),
  limit: z.coerce.number().int().min(1).max(100).default(20),
});

export const SubscriptionParams = z.object({ subscription_id: id });

export const GrantBody = z
  .object({
    user_id: id,
    plan_id: id,
    duration_days: z.number().int().min(1).max(366),
    reason: z.string().trim().min(1).max(500),
  })
  .strict();

export const RevokeBody = z.object({ reason: z.string().trim().min(1).max(500) }).strict();
