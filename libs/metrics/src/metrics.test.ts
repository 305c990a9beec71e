import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import {
  captureRouteTemplates,
  instrumentHttp,
  registry,
  startMetricsServer,
  UNMATCHED_ROUTE,
} from './index';

async function serve(listener: http.RequestListener) {
  const server = http.createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

const sample = async (name: string, labels: Record<string, string>) => {
  const metric = (await registry.getMetricsAsJSON()).find((m) => m.name === name);
  const match = (metric?.values ?? []).find((v) =>
    Object.entries(labels).every(([k, val]) => (v.labels as Record<string, unknown>)[k] === val),
  );
  return match?.value;
};

describe('instrumentHttp', () => {
  it('When express answers a routed, a failed and an unknown request, Then each is labelled by its template, never its path', async () => {
    // Arrange: a router mounted under a prefix, one route throwing to the app's error handler
    captureRouteTemplates(express.request);
    const app = express();
    const router = express.Router();
    router.get('/:id', (req, res) => void res.json({ id: req.params.id }));
    router.get('/:id/fail', () => {
      throw new Error('boom');
    });
    app.use('/api/things', router);
    app.use((_req, res) => void res.status(404).end());
    app.use(
      (_err: unknown, _req: express.Request, res: express.Response, _next: express.NextFunction) =>
        void res.status(500).end(),
    );
    const service = `svc_${Date.now()}`;
    const server = await serve(instrumentHttp(service, app, (_req, _res, route) => route ?? UNMATCHED_ROUTE));
    try {
      // Act
      expect((await fetch(`${server.url}/api/things/42`)).status).toBe(200);
      expect((await fetch(`${server.url}/api/things/43`)).status).toBe(200);
      expect((await fetch(`${server.url}/api/things/42/fail`)).status).toBe(500);
      expect((await fetch(`${server.url}/nope/123`, { method: 'PROPFIND' })).status).toBe(404);
    } finally {
      await server.close();
    }
    // Assert
    const requests = 'lingua_http_server_requests_total';
    expect(
      await sample(requests, { service, route: '/api/things/:id', method: 'GET', status_class: '2xx' }),
    ).toBe(2);
    expect(
      await sample(requests, { service, route: '/api/things/:id/fail', method: 'GET', status_class: '5xx' }),
    ).toBe(1);
    expect(
      await sample(requests, { service, route: UNMATCHED_ROUTE, method: 'OTHER', status_class: '4xx' }),
    ).toBe(1);
    expect(await sample('lingua_http_server_requests_in_flight', { service })).toBe(0);
    const text = await registry.metrics();
    expect(text).not.toMatch(/route="[^"]*\/4[23]/);
  });
});

describe('startMetricsServer', () => {
  it('When scraped, Then it answers GET /metrics in the text format and nothing else', async () => {
    const metrics = await startMetricsServer({ port: 0 });
    try {
      const res = await fetch(metrics.url);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
      const body = await res.text();
      expect(body).toMatch(/^# HELP process_cpu_user_seconds_total/m);
      expect(body).toMatch(/^# TYPE lingua_http_server_request_duration_seconds histogram$/m);
      expect(body).toMatch(/^nodejs_eventloop_lag_p99_seconds /m);
      expect((await fetch(metrics.url.replace('/metrics', '/'))).status).toBe(404);
      expect((await fetch(metrics.url, { method: 'POST' })).status).toBe(404);
    } finally {
      await metrics.close();
    }
  });
});
