import { OpenAPIRegistry, OpenApiGeneratorV31, type RouteConfig } from '@asteasolutions/zod-to-openapi';
import type { Express } from 'express';
import type { z } from 'zod';
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
  /** Defaults to the service name. */
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
  /** A non-JSON success (downloads): content type → description. */
  download?: Record<string, string>;
  /** Error statuses the route may answer, with what they mean. 401 is added for authenticated routes. */
  errors?: Record<number, string>;
  /** Overrides the envelope family chosen from the path (e.g. Group C requests on a Group B path). */
  style?: ReturnType<typeof envelopeStyleFor>;
  description?: string;
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

const SECURITY: Record<RouteAuth, Array<Record<string, string[]>> | undefined> = {
  none: undefined,
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
            content: doc.response ? json(successEnvelope(style, doc.response)) : undefined,
          };
      const errors: Record<number, string> = { 400: 'Invalid input' };
      if (doc.auth === 'access' || doc.auth === 'refresh')
        errors[401] = 'Missing, invalid, expired or revoked token';
      Object.assign(errors, doc.errors);
      const config: RouteConfig = {
        method: doc.method,
        path: expressToOpenApiPath(doc.path),
        summary: doc.summary,
        description: doc.description,
        tags: doc.tags ?? [service],
        security: SECURITY[doc.auth],
        request: {
          params: doc.params,
          query: doc.query,
          body: doc.body
            ? { content: { [doc.bodyType ?? 'application/json']: { schema: doc.body } } }
            : undefined,
        },
        responses: {
          [doc.status ?? 200]: success,
          ...Object.fromEntries(
            Object.entries(errors).map(([status, description]) => [
              status,
              { description, content: json(errorEnvelope(style)) },
            ]),
          ),
        },
      };
      registry.registerPath(config);
      return doc;
    },
    document() {
      return new OpenApiGeneratorV31(registry.definitions).generateDocument({
        openapi: '3.1.0',
        info: { title: `Lingua ${service}`, version: 'v1' },
      });
    },
  };
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
