import { z } from 'zod';

export const StatusResponse = z
  .object({
    api_status: z.enum(['operational', 'maintenance']),
    maintenance_mode: z.boolean(),
    rate_limit_remaining: z.number().int(),
    rate_limit_reset: z.string().meta({ format: 'date-time' }),
  })
  .meta({ id: 'ApiStatus' });
