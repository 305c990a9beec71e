import { OpenAPIRegistry, OpenApiGeneratorV31, type RouteConfig } from '@asteasolutions/zod-to-openapi';
import type { Express } from 'express';
import { z } from 'zod';
import { ERROR_CATALOGUE } from '@lingua/errors';
import { envelopeStyleFor } from '@lingua/http';
import { errorEnvelope, successEnvelope } from './envelope-schemas';

/** Who may call a route: the spec's Auth column, plus API keys for internal callers. */
export type RouteAuth = 'none' | 'access' | 'refresh' | 'optional' | 'apiKey';
type Method = 'get' | 'post' | 'put' | 'delete' | 'patch';
type ZodObjectLike = z.ZodObject<z.ZodRawShape>;

export interface RouteDoc {
  method: Method;
  /** express style (`/api/flashcards/:id`); turned into `{id}` for the document. */
  path: string;
  summary: string;
  /**
   * Stable name for generated clients (`flashcards.review`, `auth.v1.login`). Derived from the path
   * and method when omitted (operationIdFor); set it where the derived one reads badly.
   */
  operationId?: string;
  /** Defaults to the area of the path (areaOf); each tag is described in TAG_DESCRIPTIONS. */
  tags?: string[];
  auth: RouteAuth;
  params?: ZodObjectLike;
  query?: ZodObjectLike;
  /** The request body schema (the one the handler parses with). */
  body?: z.ZodType;
  /** 'multipart/form-data' for uploads; default application/json. */
  bodyType?: string;
  /** The `data` of the success envelope (or the whole body for plain routes). Omitted: any. */
  response?: z.ZodType;
  /** Success status, default 200. */
  status?: number;
  /** The success answer has no `data`, only a message (`{success: true, message}`). */
  messageOnly?: boolean;
  /**
   * Whole bodies (envelope included) for statuses the route answers besides, or instead of, the
   * enveloped `response`: a second face's 201, a 200 that is sometimes `success: false`.
   */
  bodies?: Record<number, { description: string; body: z.ZodType }>;
  /** A second envelope family the route may answer in (the two faces of /api/flashcards). */
  alsoStyle?: ReturnType<typeof envelopeStyleFor>;
  /** A non-JSON success (downloads): content type → description. */
  download?: Record<string, string>;
  /** Error statuses the route may answer, with what they mean. 401 is added for authenticated routes. */
  errors?: Record<number, string>;
  /** Error statuses whose body is not the family's error envelope (a 503 health report). */
  errorBodies?: Partial<Record<number, z.ZodType>>;
  /** Overrides the envelope family chosen from the path (e.g. Group C requests on a Group B path). */
  style?: ReturnType<typeof envelopeStyleFor>;
  description?: string;
  /** A typical request body, shown by documentation tools and used by generators' mocks. */
  example?: unknown;
}

export interface ApiDocs {
  readonly service: string;
  /** Adds a route; returns the doc so a call can sit next to the route it describes. */
  route(doc: RouteDoc): RouteDoc;
  /** The OpenAPI 3.1 document of the routes registered so far. */
  document(): OpenApiDocument;
}

export type OpenApiDocument = ReturnType<OpenApiGeneratorV31['generateDocument']>;

const expressToOpenApiPath = (path: string) => path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

const camel = (segment: string) => segment.replace(/[-_]+([a-z0-9])/gi, (_m, c: string) => c.toUpperCase());
const VERB_FOR_ITEM: Record<Method, string> = {
  get: 'get',
  put: 'update',
  patch: 'patch',
  delete: 'delete',
  post: 'create',
};

/**
 * The derived operationId: the literal segments after `/api`, camelCased and joined by dots, with
 * a version segment moved after the area (`/api/v1/auth/login` → `auth.v1.login`); a collection
 * gets `list`/`create`, an item (path ending in a parameter) `get`/`update`/`delete`, and a named
 * action other than GET/POST its verb (`learning.settings.update`).
 */
export function operationIdFor(method: Method, path: string): string {
  const segments = path.split('/').filter(Boolean);
  const endsWithParam = segments.at(-1)?.startsWith(':') ?? false;
  const literals = segments.filter((s) => !s.startsWith(':') && !s.startsWith('{')).map(camel);
  if (literals[0] === 'api') literals.shift();
  if (/^v\d+$/.test(literals[0] ?? '') && literals.length > 1) {
    const [version, area] = literals.splice(0, 2);
    literals.unshift(area!, version!);
  }
  if (endsWithParam) literals.push(VERB_FOR_ITEM[method]);
  else if (literals.length === 1 || (literals.length === 2 && /^v\d+$/.test(literals[1]!)))
    literals.push(method === 'get' ? 'list' : method === 'post' ? 'create' : VERB_FOR_ITEM[method]);
  else if (method !== 'get' && method !== 'post') literals.push(VERB_FOR_ITEM[method]);
  return literals.join('.');
}

/** The area of a path, its default tag: `/api/v1/auth/login` → auth, `/api/notifications` → notifications. */
export function areaOf(path: string, fallback: string): string {
  const literals = path.split('/').filter((s) => s && !s.startsWith(':') && s !== 'api' && !/^v\d+$/.test(s));
  return literals[0] ?? fallback;
}

/** The stable codes a status may carry (Group A code and Group C catalogue code), for the docs. */
export function codesFor(status: number): string {
  const codes = Object.entries(ERROR_CATALOGUE)
    .filter(([, c]) => c.http === status)
    .map(([code, c]) => `${code} (${c.catalogue})`);
  return codes.length ? ` Codes: ${codes.join(', ')}.` : '';
}

/** Answers any proxied route may get from the gateway itself (its shedding, deadlines, limits). */
const GATEWAY_ERRORS: Record<number, string> = {
  429: 'Rate limit of the caller’s plan exceeded (Retry-After)',
  503: 'Overloaded or a dependency is down (Retry-After)',
  504: 'The request deadline passed',
};

const SECURITY: Record<RouteAuth, Array<Record<string, string[]>>> = {
  none: [],
  access: [{ bearerAuth: [] }],
  refresh: [{ bearerAuth: [] }],
  optional: [{ bearerAuth: [] }, {}],
  apiKey: [{ apiKey: [], clientId: [] }],
};

/** One registry per service; the gateway merges the fragments into the public document. */
export function createApiDocs(service: string): ApiDocs {
  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', 'bearerAuth', {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
  });
  registry.registerComponent('securitySchemes', 'apiKey', {
    type: 'apiKey',
    in: 'header',
    name: 'X-API-Key',
  });
  registry.registerComponent('securitySchemes', 'clientId', {
    type: 'apiKey',
    in: 'header',
    name: 'X-Client-ID',
  });

  return {
    service,
    route(doc) {
      const style = doc.style ?? envelopeStyleFor(doc.path);
      const json = (schema: z.ZodType) => ({ 'application/json': { schema } });
      const success = doc.download
        ? {
            description: 'File download',
            content: Object.fromEntries(
              Object.entries(doc.download).map(([type, description]) => [
                type,
                { schema: { type: 'string' as const, format: 'binary', description } },
              ]),
            ),
          }
        : {
            description: 'Success',
            content: doc.response
              ? json(successEnvelope(style, doc.response))
              : doc.messageOnly
                ? json(successEnvelope(style))
                : undefined,
          };
      const errorBody = doc.alsoStyle
        ? z.union([errorEnvelope(style), errorEnvelope(doc.alsoStyle)])
        : errorEnvelope(style);
      const errors: Record<number, string> = style === 'plain' ? {} : { 400: 'Invalid input' };
      if (doc.auth === 'access' || doc.auth === 'refresh')
        errors[401] = 'Missing, invalid, expired or revoked token';
      if (style !== 'plain') Object.assign(errors, GATEWAY_ERRORS);
      Object.assign(errors, doc.errors);
      const config: RouteConfig = {
        method: doc.method,
        path: expressToOpenApiPath(doc.path),
        operationId: doc.operationId ?? operationIdFor(doc.method, doc.path),
        summary: doc.summary,
        description: doc.description ?? `${doc.summary}. ${AUTH_NOTE[doc.auth]}`,
        tags: doc.tags ?? [areaOf(doc.path, service)],
        security: SECURITY[doc.auth],
        request: {
          params: doc.params,
          query: doc.query,
          body: doc.body
            ? {
                content: {
                  [doc.bodyType ?? 'application/json']: {
                    schema: doc.body,
                    ...(doc.example !== undefined && { example: doc.example }),
                  },
                },
              }
            : undefined,
        },
        responses: {
          [doc.status ?? 200]: success,
          ...Object.fromEntries(
            Object.entries(errors).map(([status, description]) => [
              status,
              {
                description: `${description}.${codesFor(Number(status))}`,
                content: json(doc.errorBodies?.[Number(status)] ?? errorBody),
              },
            ]),
          ),
          ...Object.fromEntries(
            Object.entries(doc.bodies ?? {}).map(([status, { description, body }]) => [
              status,
              { description, content: json(body) },
            ]),
          ),
        },
      };
      registry.registerPath(config);
      return doc;
    },
    document() {
      const document = new OpenApiGeneratorV31(registry.definitions).generateDocument({
        openapi: '3.1.0',
        info: { title: `Lingua ${service}`, version: 'v1' },
      });
      queryDefaultsAsDeclared(document);
      return document;
    },
  };
}

const AUTH_NOTE: Record<RouteAuth, string> = {
  none: 'Public: no token.',
  access: 'Needs an access token (Authorization: Bearer).',
  refresh: 'Needs the refresh token (Authorization: Bearer) instead of an access token.',
  optional: 'An access token is optional; without one the call acts for an anonymous caller.',
  apiKey: 'For internal callers with an API key (X-API-Key and X-Client-ID).',
};

/**
 * Query and path values arrive as strings, so their schemas are strings (`^\\d+$`, `'true'|'false'`)
 * while zod records the parsed default (20, true). A generator reads the default against the
 * declared type, so it is written as the string a client would send.
 */
function queryDefaultsAsDeclared(document: OpenApiDocument): void {
  for (const item of Object.values(document.paths ?? {}))
    for (const operation of Object.values(item as Record<string, { parameters?: unknown[] }>))
      for (const parameter of operation.parameters ?? []) {
        const schema = (parameter as { schema?: { type?: unknown; default?: unknown } }).schema;
        if (schema?.type === 'string' && schema.default !== undefined && typeof schema.default !== 'string')
          schema.default = String(schema.default);
      }
}

/** Path where every service serves its fragment for the gateway (not routed publicly). */
export const API_DOCS_PATH = '/internal/openapi.json';

/** Serves the fragment; generated once, on first request, when every route is registered. */
export function serveApiDocs(app: Express, docs: ApiDocs): void {
  let cached: OpenApiDocument | undefined;
  app.get(API_DOCS_PATH, (_req, res) => {
    cached ??= docs.document();
    res.json(cached);
  });
}
