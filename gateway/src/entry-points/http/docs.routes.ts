import { Router } from 'express';
import swaggerUi from 'swagger-ui-express';
import type { Logger } from '@lingua/logger';
import { type ApiDocs, mergeApiDocuments, type OpenApiDocument } from '@lingua/openapi';
import { documentIdempotencyKey } from './idempotency-docs';

/**
 * `/openapi.json`: the public OpenAPI 3.1 document, merged from every service's fragment and the
 * gateway's own routes, cached for `cacheMs`; `/docs`: Swagger UI from the local swagger-ui-dist
 * assets (no CDN, no online validator).
 */
/** What every client must know beyond the operations: deadlines, overload, CSRF. */
const API_RULES =
  'Deadlines: each request has one by route class (reads, writes, AI, imports/exports/uploads); a client ' +
  'may ask for less with X-Request-Timeout-Ms (milliseconds), never more; past it the answer is 504 ' +
  'SRV002. Overload: the excess is answered at once with 503 SRV002 and Retry-After (seconds); try ' +
  'again after it. CSRF: calls authenticated with a bearer token (the mobile apps) need no CSRF token, ' +
  'since a browser never attaches an Authorization header by itself; the one call authenticated by a ' +
  'cookie, refreshing with the HttpOnly refresh cookie, requires X-CSRF-Token equal to the lingua_csrf ' +
  'cookie (double submit; 403 otherwise).';

export function docsRoutes(deps: {
  docs: ApiDocs;
  fragments: () => Promise<{ documents: OpenApiDocument[]; missing: string[] }>;
  version: string;
  cacheMs: number;
  logger: Logger;
}): Router {
  const router = Router();
  let cached: { at: number; body: OpenApiDocument } | undefined;
  let pending: Promise<OpenApiDocument> | undefined;

  const build = async (): Promise<OpenApiDocument> => {
    const { documents, missing } = await deps.fragments();
    const { document, conflicts } = mergeApiDocuments([deps.docs.document(), ...documents], {
      title: 'Lingua API',
      version: 'v1',
      description:
        `Language-learning backend (gateway ${deps.version}). Group A under /api/v1, Group B under ` +
        '/api/flashcards, Group C under /api. ' +
        API_RULES +
        (missing.length ? ` Not available right now: ${missing.join(', ')}.` : ''),
      // relative: the document is served by the gateway it describes, whatever its public address
      servers: [{ url: '/', description: 'The gateway serving this document' }],
    });
    // the gateway's own header, on the operations it applies to
    documentIdempotencyKey(document);
    if (conflicts.length) deps.logger.warn({ conflicts }, 'openapi: a path is documented by two services');
    // a document missing a service is not cached, so the next request tries again
    if (missing.length === 0) cached = { at: Date.now(), body: document };
    return document;
  };

  router.get('/openapi.json', async (_req, res) => {
    if (!cached || Date.now() - cached.at > deps.cacheMs) {
      pending ??= build().finally(() => (pending = undefined));
      res.json(await pending);
      return;
    }
    res.json(cached.body);
  });

  const ui = { swaggerOptions: { url: '/openapi.json', validatorUrl: null }, customSiteTitle: 'Lingua API' };
  router.get('/docs', (req, res, next) =>
    req.originalUrl === '/docs' ? res.redirect(301, '/docs/') : next(),
  );
  router.use('/docs', swaggerUi.serveFiles(undefined, ui), swaggerUi.setup(undefined, ui));
  return router;
}
