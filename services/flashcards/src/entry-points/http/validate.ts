import type { z } from 'zod';
import { AppError, fieldErrors } from '@lingua/errors';

/**
 * Parses untrusted input; failures are VALIDATION_ERROR (400) with field → messages in details and a
 * readable message (Group B shows only the message: its errors are plain text).
 */
export function validate<S extends z.ZodType>(schema: S, input: unknown): z.infer<S> {
  const result = schema.safeParse(input ?? {});
  if (result.success) return result.data;
  const details = fieldErrors(result.error);
  const text = Object.entries(details)
    .map(([field, messages]) => `${field === '_' ? 'body' : field}: ${messages.join(', ')}`)
    .join('; ');
  throw new AppError('VALIDATION_ERROR', `Invalid request: ${text}`, { details });
}
