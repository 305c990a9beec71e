import { z } from 'zod';
import { guid, limit, page, tagsBody, tagsQuery } from './common.schemas';

export const SetIdParams = z.object({ setId: guid });

export const ListSetsQuery = z
  .object({
    page,
    limit,
    search: z.string().max(200).optional(),
    tags: tagsQuery.optional(),
    orderBy: z.enum(['created', 'updated', 'name', 'progress']).default('created'),
    order: z.enum(['asc', 'desc']).default('desc'),
  })
  .strict();

const setFields = {
  name: z.string().trim().min(1, 'is required').max(100),
  description: z.string().trim().max(1000).optional(),
  color: z
    .string()
    .regex(/^#[0-9a-fA-F]{6}$/, 'must be a colour like #4A90E2')
    .optional(),
  tags: tagsBody.optional(),
  isPublic: z.boolean().optional(),
};

export const CreateSetBody = z.object(setFields).strict();
export const UpdateSetBody = z
  .object(setFields)
  .partial()
  .strict()
  .refine((v) => Object.keys(v).length > 0, 'at least one field is required');
