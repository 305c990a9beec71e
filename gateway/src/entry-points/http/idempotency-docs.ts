import type { OpenApiDocument } from '@lingua/openapi';
import { accessPolicyFor } from '../../domain/access-policy';
import { honoursKeyFor, MAX_KEY_LENGTH, REPLAYED_HEADER } from '../../domain/idempotency';

const PARAMETER = 'IdempotencyKey';
const HEADER = 'IdempotentReplayed';

type Response = { description?: string; content?: unknown; headers?: Record<string, unknown> };
type Operation = { parameters?: unknown[]; responses?: Record<string, Response> };

const ERRORS: Record<string, string> = {
  '400': 'Idempotency-Key malformed (empty, over 255 characters, not printable ASCII): VALIDATION_ERROR',
  '409':
    'A request with this Idempotency-Key is still in progress: retry after Retry-After (IDEMPOTENCY_IN_PROGRESS, RES002)',
  '422':
    'This Idempotency-Key was used for this operation with a different body (IDEMPOTENCY_KEY_REUSED, VAL002)',
};

/**
 * The gateway's Idempotency-Key in the public document: a reusable header parameter on every
 * operation that honours it (the same rule as middleware/idempotency.ts: POST and PATCH of an
 * authenticated operation), its 400, 409 and 422 answers in the operation's error envelope, and the
 * Idempotent-Replayed header on its success answers. Changes the merged document in place.
 */
export function documentIdempotencyKey(document: OpenApiDocument): void {
  let used = false;
  for (const [path, item] of Object.entries(document.paths ?? {}))
    for (const [method, operation] of Object.entries(item as Record<string, Operation>)) {
      if (!honoursKeyFor(method.toUpperCase(), accessPolicyFor(method.toUpperCase(), path))) continue;
      used = true;
      (operation.parameters ??= []).push({ $ref: `#/components/parameters/${PARAMETER}` });
      const responses = (operation.responses ??= {});
      // the operation's own error envelope (every enveloped operation documents its 400)
      const errorContent = Object.entries(responses).find(([status]) => Number(status) >= 400)?.[1]?.content;
      for (const [status, text] of Object.entries(ERRORS)) {
        const existing = responses[status];
        if (existing) existing.description = `${existing.description ?? ''} Or: ${text}.`.trim();
        else
          responses[status] = {
            description: `${text}.`,
            ...(errorContent !== undefined && { content: errorContent }),
          };
      }
      for (const [status, response] of Object.entries(responses))
        if (/^2\d\d$/.test(status))
          (response.headers ??= {})[REPLAYED_HEADER] = { $ref: `#/components/headers/${HEADER}` };
    }
  if (!used) return;
  const components = (document.components ??= {}) as Record<string, Record<string, unknown>>;
  (components.parameters ??= {})[PARAMETER] = {
    name: 'Idempotency-Key',
    in: 'header',
    required: false,
    description:
      'A unique key (a UUID) for this request, sent again unchanged with every retry of it. Within 24 hours the ' +
      'first complete answer is replayed to a retry with the same key and body, marked Idempotent-Replayed; ' +
      'a retry while the first still runs gets 409 with Retry-After; the same key with another body 422. ' +
      'Answers 5xx (and 408, 425, 429) are not kept: a retry runs the operation again. Keys are per user or ' +
      'API key and per operation (method and path). See the API guide, "Retries and Idempotency-Key".',
    schema: { type: 'string', minLength: 1, maxLength: MAX_KEY_LENGTH, pattern: '^[\\x20-\\x7E]+$' },
    example: '8e03978e-40d5-43e8-bc93-6894a57f9324',
  };
  (components.headers ??= {})[HEADER] = {
    description:
      'true when this answer is the kept answer of an earlier request with the same Idempotency-Key.',
    schema: { type: 'string', enum: ['true'] },
  };
}
