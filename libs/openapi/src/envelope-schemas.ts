import { z } from 'zod';
import type { EnvelopeStyle } from '@lingua/http';

// zod mirrors of the bodies @lingua/http writes (envelopes.ts), so documented responses are the real ones.
const timestamp = z.string().meta({ format: 'date-time' });
const authMeta = z.object({ timestamp, requestId: z.string().optional(), api_version: z.string() });
const sharedMeta = z.object({ timestamp, request_id: z.string().optional(), api_version: z.string() });
const catalogueMeta = z.object({ timestamp, requestId: z.string().optional() });
const details = z.record(z.string(), z.unknown());

/**
 * The success body of a family around `data`; without `data`, the message-only answer
 * (`{success: true, message}`, e.g. a Group B delete).
 */
export function successEnvelope(style: EnvelopeStyle, data?: z.ZodType): z.ZodType {
  const body = data ? { data, message: z.string().optional() } : { message: z.string() };
  switch (style) {
    case 'plain':
      return data ?? z.object(body);
    case 'flashcards':
      return z.object({ success: z.literal(true), ...body });
    case 'auth':
      return z.object({ success: z.literal(true), ...body, meta: authMeta });
    case 'shared':
      return z.object({ success: z.literal(true), ...body, meta: sharedMeta });
    default:
      return z.object({ success: z.literal(true), ...body, meta: catalogueMeta });
  }
}

export const ErrorBodies = {
  auth: z
    .object({
      success: z.literal(false),
      error: z.object({ code: z.string(), message: z.string(), details }),
      meta: authMeta,
    })
    .meta({ id: 'AuthError' }),
  shared: z
    .object({
      success: z.literal(false),
      data: z.null(),
      message: z.string(),
      error: z.object({ code: z.string(), message: z.string(), details }),
      meta: sharedMeta,
    })
    .meta({ id: 'SharedError' }),
  flashcards: z.object({ success: z.literal(false), error: z.string() }).meta({ id: 'FlashcardsError' }),
  catalogue: z
    .object({
      success: z.literal(false),
      error: z.object({
        code: z.string().meta({ description: 'AUTH001…SRV002 catalogue code' }),
        message: z.string(),
        details,
      }),
      meta: catalogueMeta,
    })
    .meta({ id: 'CatalogueError' }),
} as const;

/** The error body of a family (health endpoints use the catalogue one for their rare errors). */
export function errorEnvelope(style: EnvelopeStyle): z.ZodType {
  return ErrorBodies[style === 'plain' ? 'catalogue' : style];
}
