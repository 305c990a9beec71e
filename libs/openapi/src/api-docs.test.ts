import express from 'express';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
// Generated documents are walked as plain JSON.
type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

import {
  API_DOCS_PATH,
  createApiDocs,
  declareRoutes,
  mergeApiDocuments,
  operationIdFor,
  serveApiDocs,
  TAG_DESCRIPTIONS,
} from './index';

const CardParams = z.object({ id: z.uuid() });
const CreateCard = z.object({ word: z.string().min(1).max(255), translation: z.string() }).strict();
const Card = z.object({ id: z.string(), word: z.string() });

describe('API docs from zod schemas', () => {
  it('When routes are registered, Then the fragment has their paths, parameters, bodies, envelopes and security', () => {
    const docs = createApiDocs('flashcards');
    docs.route({
      method: 'post',
      path: '/api/flashcards',
      summary: 'Create a card',
      auth: 'optional',
      body: CreateCard,
      response: Card,
    });
    docs.route({
      method: 'get',
      path: '/api/flashcards/:id',
      summary: 'Get a card',
      auth: 'access',
      params: CardParams,
      response: Card,
      errors: { 404: 'Not found' },
    });
    docs.route({
      method: 'get',
      path: '/api/export/cards',
      summary: 'Export',
      auth: 'access',
      download: { 'text/csv': 'CSV' },
    });
    const doc = docs.document();
    expect(doc.openapi).toBe('3.1.0');
    const get = doc.paths!['/api/flashcards/{id}']!.get!;
    expect(get.security).toEqual([{ bearerAuth: [] }]);
    expect(get.parameters).toEqual([expect.objectContaining({ in: 'path', name: 'id', required: true })]);
    // 429/503/504 may come from the gateway in front of any proxied route
    expect(Object.keys(get.responses!)).toEqual(['200', '400', '401', '404', '429', '503', '504']);
    expect(get.operationId).toBe('flashcards.get');
    expect(get.tags).toEqual(['flashcards']);
    expect((get.responses!['404'] as Json).description).toMatch(/^Not found\. Codes: .*NOT_FOUND \(RES001\)/);
    // Group B path → Group B envelopes: {success, data} and a plain-text error
    const ok = (get.responses!['200'] as Json).content['application/json'].schema;
    expect(ok.properties.data).toMatchObject({ properties: { id: { type: 'string' } } });
    const notFound = (get.responses!['404'] as Json).content['application/json'].schema;
    expect(notFound).toEqual({ $ref: '#/components/schemas/FlashcardsError' });
    const post = doc.paths!['/api/flashcards']!.post!;
    expect((post.requestBody as Json).content['application/json'].schema).toMatchObject({
      required: ['word', 'translation'],
      additionalProperties: false,
    });
    expect(post.security).toEqual([{ bearerAuth: [] }, {}]);
    expect(doc.paths!['/api/export/cards']!.get!.responses!['200']).toMatchObject({
      content: { 'text/csv': { schema: { format: 'binary' } } },
    });
    expect(doc.components!.securitySchemes!.bearerAuth).toEqual({
      type: 'http',
      scheme: 'bearer',
      bearerFormat: 'JWT',
    });
  });

  it('When fragments are merged, Then paths of all services are kept and a path served twice is reported', () => {
    const a = createApiDocs('identity');
    a.route({
      method: 'post',
      path: '/api/v1/auth/login',
      summary: 'Log in',
      auth: 'none',
      response: z.object({ accessToken: z.string() }),
    });
    const b = createApiDocs('subscriptions');
    b.route({
      method: 'get',
      path: '/api/v1/subscriptions/plans',
      summary: 'Plans',
      auth: 'optional',
      response: z.object({}),
    });
    b.route({ method: 'post', path: '/api/v1/auth/login', summary: 'Oops', auth: 'none' });
    const { document, conflicts } = mergeApiDocuments([a.document(), b.document()], {
      title: 'Lingua',
      version: 'v1',
    });
    expect(Object.keys(document.paths!)).toEqual(['/api/v1/auth/login', '/api/v1/subscriptions/plans']);
    expect(document.paths!['/api/v1/auth/login']!.post!.summary).toBe('Log in');
    expect(conflicts).toEqual(['POST /api/v1/auth/login']);
    expect(document.components!.schemas).toHaveProperty('AuthError');
    expect(document.components!.schemas).toHaveProperty('SharedError');
  });

  it('When no operationId is given, Then a readable one is derived from the method and path', () => {
    expect(operationIdFor('post', '/api/v1/auth/login')).toBe('auth.v1.login');
    expect(operationIdFor('post', '/api/flashcards/:id/review')).toBe('flashcards.review');
    expect(operationIdFor('get', '/api/flashcards')).toBe('flashcards.list');
    expect(operationIdFor('post', '/api/flashcard-sets')).toBe('flashcardSets.create');
    expect(operationIdFor('put', '/api/flashcards/:id')).toBe('flashcards.update');
    expect(operationIdFor('get', '/api/v1/subscriptions/status')).toBe('subscriptions.v1.status');
    expect(operationIdFor('put', '/api/learning/settings')).toBe('learning.settings.update');
  });

  it('When a public route and a query default are documented, Then security is [] and the default is the string a client sends', () => {
    const docs = createApiDocs('flashcards');
    docs.route({
      method: 'get',
      path: '/api/flashcards/due',
      summary: 'Due',
      auth: 'none',
      query: z.object({ limit: z.string().regex(/^\d+$/).default('20').transform(Number).pipe(z.number()) }),
    });
    docs.route({
      method: 'get',
      path: '/api/flashcards/odd',
      summary: 'Odd',
      auth: 'none',
      query: z.object({
        on: z
          .enum(['true', 'false'])
          .transform((v) => v === 'true')
          .default(true),
      }),
    });
    const doc = docs.document();
    expect(doc.paths!['/api/flashcards/due']!.get!.security).toEqual([]);
    const [on] = doc.paths!['/api/flashcards/odd']!.get!.parameters as Json[];
    expect(on.schema).toMatchObject({ type: 'string', default: 'true' });
  });

  it('When fragments are merged, Then every tag used is declared with a description and unused schemes are dropped', () => {
    const a = createApiDocs('notifications');
    a.route({ method: 'get', path: '/api/notifications', summary: 'List', auth: 'access' });
    const { document } = mergeApiDocuments([a.document()], { title: 'Lingua', version: 'v1' });
    expect(document.tags).toEqual([{ name: 'notifications', description: TAG_DESCRIPTIONS.notifications }]);
    expect(Object.keys(document.components!.securitySchemes!)).toEqual(['bearerAuth']);
  });

  it('When a service serves its fragment, Then GET /internal/openapi.json returns it', async () => {
    const docs = createApiDocs('ai');
    docs.route({
      method: 'get',
      path: '/api/ai/quota',
      summary: 'Quota',
      auth: 'access',
      response: z.object({ used: z.number().int() }),
    });
    const app = express();
    serveApiDocs(app, docs);
    const server = app.listen(0);
    await new Promise((r) => server.once('listening', r));
    try {
      const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}${API_DOCS_PATH}`);
      const body = await res.json();
      expect(body.paths['/api/ai/quota'].get.summary).toBe('Quota');
      expect(body.paths['/api/ai/quota'].get.responses['401'].content['application/json'].schema).toEqual({
        $ref: '#/components/schemas/CatalogueError',
      });
    } finally {
      server.close();
    }
  });

  it('When routes are declared on a mounted router, Then the router answers the path below the mount and the document has the whole path', async () => {
    const docs = createApiDocs('flashcards');
    const router = express.Router();
    const seen: string[] = [];
    declareRoutes(
      router,
      docs,
      [
        {
          method: 'get',
          path: '/api/cards/due',
          summary: 'Due cards',
          auth: 'access',
          before: [(_req, _res, next) => (seen.push('before'), next())],
          handler: (_req, res) => void res.json({ due: true }),
        },
        {
          method: 'get',
          path: '/api/cards/:id',
          summary: 'A card',
          auth: 'access',
          params: CardParams,
          handler: (req, res) => void res.json({ id: req.params.id }),
        },
      ],
      '/api/cards',
    );
    const app = express();
    app.use('/api/cards', router);
    const server = app.listen(0);
    await new Promise((r) => server.once('listening', r));
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/cards`;
      // declaration order is matching order: /due is not taken for an id
      expect(await (await fetch(`${base}/due`)).json()).toEqual({ due: true });
      expect(seen).toEqual(['before']);
      expect(await (await fetch(`${base}/7`)).json()).toEqual({ id: '7' });
      const document = docs.document() as Json;
      expect(Object.keys(document.paths)).toEqual(['/api/cards/due', '/api/cards/{id}']);
    } finally {
      server.close();
    }
    expect(() =>
      declareRoutes(
        express.Router(),
        createApiDocs('x'),
        [{ method: 'get', path: '/api/other', summary: 'x', auth: 'none', handler: () => undefined }],
        '/api/cards',
      ),
    ).toThrow('/api/other is not under /api/cards');
  });
});
