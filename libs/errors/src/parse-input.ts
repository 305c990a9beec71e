import type { z } from 'zod';
import { AppError } from './app-error';

/** Field name → messages, the `details` shape of VALIDATION_ERROR in the spec. */
export function fieldErrors(error: z.ZodError): Record<string, string[]> {
  const details: Record<string, string[]> = {};
  for (const issue of error.issues) {
    const field = issue.path.length > 0 ? issue.path.join('.') : '_';
    (details[field] ??= []).push(issue.message);
  }
  return details;
}

/** Parses untrusted input at a use-case or route boundary; failures become VALIDATION_ERROR (400). */
export function parseInput<S extends z.ZodType>(
  schema: S,
  input: unknown,
  message = 'Validation failed',
): z.infer<S> {
  const result = schema.safeParse(input);
  if (!result.success)
    throw new AppError('VALIDATION_ERROR', message, { details: fieldErrors(result.error) });
  return result.data;
}
