import express from 'express';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
// Generated documents are walked as plain JSON.
type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

import { API_DOCS_PATH, createApiDocs, mergeApiDocuments, serveApiDocs } from './index';

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
    expect(Object.keys(get.responses!)).toEqual(['200', '400', '401', '404']);
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
});
