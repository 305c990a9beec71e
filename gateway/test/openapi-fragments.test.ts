import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { API_DOCS_PATH } from '@lingua/openapi';
import { createFragmentSource } from '../src/data-access/openapi-fragments';

// A service's own fragment server whose answer takes `delayMs`.
async function fragmentServer(title: string, delayMs: () => number) {
  const server = http.createServer((req, res) => {
    if (req.url !== API_DOCS_PATH) return void res.writeHead(404).end();
    setTimeout(() => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({ openapi: '3.1.0', info: { title, version: '1' }, paths: { [`/${title}`]: {} } }),
      );
    }, delayMs()).unref();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('OpenAPI fragments of the services', () => {
  it('When a service answers its first fragment slower than a refresh may take, Then the document still has it, and a later slow refresh keeps the last good one', async () => {
    let delay = 600;
    const slow = await fragmentServer('slow', () => delay);
    const fast = await fragmentServer('fast', () => 0);
    const services = { identity: fast.url, flashcards: slow.url } as Parameters<
      typeof createFragmentSource
    >[0];
    try {
      const fragments = createFragmentSource(services, { refreshMs: 200, firstMs: 5_000 });
      const first = await fragments();
      expect(first.missing).toEqual([]);
      expect(first.documents.map((d) => Object.keys(d.paths))).toEqual([['/fast'], ['/slow']]);

      // the refresh gives up after 200 ms; the fragment fetched before stands in
      delay = 2_000;
      const started = performance.now();
      const refreshed = await fragments();
      expect(performance.now() - started).toBeLessThan(1_500);
      expect(refreshed.missing).toEqual([]);
      expect(refreshed.documents.map((d) => Object.keys(d.paths))).toEqual([['/fast'], ['/slow']]);
    } finally {
      await Promise.all([slow.close(), fast.close()]);
    }
  });

  it('When a service is down and was never fetched, Then it is reported missing at once', async () => {
    const gone = await fragmentServer('gone', () => 0);
    await gone.close();
    const started = performance.now();
    const result = await createFragmentSource({ identity: gone.url } as Parameters<
      typeof createFragmentSource
    >[0])();
    expect(result).toEqual({ documents: [], missing: ['identity'] });
    expect(performance.now() - started).toBeLessThan(1_500);
  });
});
