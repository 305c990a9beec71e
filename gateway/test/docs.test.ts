import { chromium } from 'playwright-core';
import { z } from 'zod';
import { createApp, finishApp, startHttpServer, type RunningHttpServer } from '@lingua/http';
import { createApiDocs, serveApiDocs } from '@lingua/openapi';
import { silentLogger } from '@lingua/testing';
import type { RunningGateway } from '../src/server';
import { gatewayWith, nowhere, Stubs, stubServices } from './harness';

// A flashcards stand-in that documents its routes with @lingua/openapi, as the real service does;
// notifications is down; the other stubs answer something that is not a document.
const stubs = new Stubs();
let flashcards: RunningHttpServer;
let gateway: RunningGateway;

beforeAll(async () => {
  const app = createApp({ logger: silentLogger() });
  const docs = createApiDocs('flashcards');
  const Card = z.object({ id: z.string(), word: z.string().max(255) }).meta({ id: 'Flashcard' });
  docs.route({
    method: 'get',
    path: '/api/flashcards',
    summary: 'List my flashcards',
    auth: 'optional',
    query: z.object({ search: z.string().optional() }),
    response: z.object({ flashcards: z.array(Card), count: z.number().int() }),
  });
  docs.route({
    method: 'post',
    path: '/api/flashcards/:id/favorite',
    summary: 'Toggle favourite',
    auth: 'optional',
    params: z.object({ id: z.string() }),
    response: z.object({ isFavorite: z.boolean() }),
  });
  serveApiDocs(app, docs);
  finishApp(app, silentLogger());
  flashcards = await startHttpServer(app, { port: 0 });
  gateway = await gatewayWith(
    await stubServices(stubs, {
      FLASHCARDS_HTTP_URL: flashcards.url,
      NOTIFICATIONS_HTTP_URL: await nowhere(),
    }),
  );
});

afterAll(async () => {
  await Promise.all([gateway.stop(), flashcards.close()]);
  stubs.close();
});

describe('the public API document and its docs page', () => {
  it('When /openapi.json is read, Then it is one OpenAPI 3.1 document with the services and the gateway routes, a down service tolerated', async () => {
    const res = await fetch(`${gateway.url}/openapi.json`);
    expect(res.status).toBe(200);
    const doc = await res.json();
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe('v1');
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        '/api/flashcards',
        '/api/flashcards/{id}/favorite',
        '/api/v1/status',
        '/api/v1/admin/api-keys',
        '/health',
      ]),
    );
    expect(doc.paths['/api/v1/status'].get.security).toEqual([{ bearerAuth: [] }]);
    expect(doc.components.securitySchemes.bearerAuth).toEqual({
      type: 'http',
      scheme: 'bearer',
      bearerFormat: 'JWT',
    });
    expect(doc.components.schemas.Flashcard).toBeDefined();
    expect(doc.info.description).toMatch(/Not available right now: .*notifications/);
    // what every client developer must know is in the document they generate from
    expect(doc.info.description).toMatch(/X-Request-Timeout-Ms.*503 SRV002 and Retry-After.*X-CSRF-Token/);
    // internal fragments are not reachable through the gateway
    expect((await fetch(`${gateway.url}/internal/openapi.json`)).status).toBe(404);
  });

  it('When /docs is opened in Chromium, Then Swagger UI (served locally) lists the flashcards operations', async () => {
    const html = await fetch(`${gateway.url}/docs/`);
    expect(html.status).toBe(200);
    expect(await html.text()).not.toMatch(/https?:\/\/(cdn|unpkg)/);
    expect((await fetch(`${gateway.url}/docs`, { redirect: 'manual' })).headers.get('location')).toBe(
      '/docs/',
    );

    const browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      headless: true,
      args: ['--no-sandbox'],
    });
    try {
      const page = await browser.newPage();
      const external: string[] = [];
      page.on('request', (r) => {
        if (!r.url().startsWith(gateway.url)) external.push(r.url());
      });
      await page.goto(`${gateway.url}/docs/`);
      await page.getByText('List my flashcards').first().waitFor({ timeout: 30_000 });
      await expect(
        page.locator('.opblock-summary-path', { hasText: '/api/flashcards/{id}/favorite' }).count(),
      ).resolves.toBe(1);
      await expect(page.locator('.opblock-tag', { hasText: 'flashcards' }).count()).resolves.toBeGreaterThan(
        0,
      );
      // the page rendered (kept in memory: a file per run was left in the temp folder)
      const shot = await page.screenshot({ fullPage: true });
      expect(shot.length).toBeGreaterThan(10_000);
      expect(external).toEqual([]);
    } finally {
      await browser.close();
    }
  }, 90_000);
});
