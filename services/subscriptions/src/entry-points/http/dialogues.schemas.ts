import { z } from 'zod';

/** Request schemas of /api/v1/dialogues/* (no inputs beyond the token). */
export const EmptyBody = z.object({}).strict();
