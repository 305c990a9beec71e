import fs from 'node:fs';
import path from 'node:path';
import { freePort, isolatedServiceEnv, uniqueName, waitFor } from '@lingua/testing';
import { promtool, ROOT, type RunningPrometheus, startPrometheus } from './prometheus-tools';

// The launcher is plain CommonJS (it runs before anything is built), so it is required as is.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { startStack } = require('../../deploy/local/start-stack.js') as {
  startStack(o: { env: Record<string, string>; infra: boolean; quiet: boolean }): Promise<{
    url: string;
    stop(): Promise<void>;
  }>;
};

const DEPLOYABLES = ['identity', 'flashcards', 'subscriptions', 'ai', 'notifications', 'gateway'] as const;
type Deployable = (typeof DEPLOYABLES)[number];

// The whole stack as `npm start` runs it (six processes from their dist/), each with its metrics on a
// port of its own, scraped by a real Prometheus loaded with the repository's rules.
let stack: { url: string; stop(): Promise<void> } | undefined;
let prometheus: RunningPrometheus | undefined;
const metricsPort = {} as Record<Deployable, number>;
const httpUrl = {} as Record<Deployable, string>;

beforeAll(async () => {
  const env = isolatedServiceEnv({
    LOG_LEVEL: 'warn',
    SMTP_PORT: String(await freePort()),
    RATE_LIMIT_PREFIX: uniqueName('obs-rl'),
    API_KEY_PREFIX: uniqueName('obs-key'),
    // every answer fresh: the journey below counts on each request reaching its service
    HEALTH_CACHE_MS: '0',
  });
  for (const d of DEPLOYABLES) {
    const SVC = d.toUpperCase();
    metricsPort[d] = await freePort();
    env[`${SVC}_METRICS_PORT`] = String(metricsPort[d]);
    const port = String(await freePort());
    if (d === 'gateway') env.GATEWAY_PORT = port;
    else {
      env[`${SVC}_HTTP_PORT`] = port;
      env[`${SVC}_GRPC_PORT`] = String(await freePort());
      env[`${SVC}_HTTP_URL`] = `http://127.0.0.1:${port}`;
    }
    httpUrl[d] = `http://127.0.0.1:${port}`;
  }
  // the services reach each other's gRPC ports through *_ADDR
  for (const d of ['identity', 'flashcards', 'subscriptions', 'ai'] as const)
    env[`${d.toUpperCase()}_ADDR`] = `127.0.0.1:${env[`${d.toUpperCase()}_GRPC_PORT`]}`;
  stack = await startStack({ env, infra: false, quiet: true });
  prometheus = await startPrometheus(
    DEPLOYABLES.map((d) => ({ job: `lingua-${d}`, address: `127.0.0.1:${metricsPort[d]}` })),
  );
}, 180_000);

afterAll(async () => {
  await prometheus?.stop();
  await stack?.stop();
});

// Sign-ins are limited per client address (identity: 5 a minute, counted in the shared Redis): this
// file's requests come from an address of their own, as seen through the gateway's X-Forwarded-For.
const clientIp = `10.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250) + 1}`;

async function call(path: string, init: RequestInit & { json?: unknown } = {}) {
  const { json, ...rest } = init;
  const headers: Record<string, string> = {
    'x-forwarded-for': clientIp,
    ...(rest.headers as Record<string, string>),
    ...(json !== undefined && { 'content-type': 'application/json' }),
  };
  const res = await fetch(`${stack!.url}${path}`, {
    ...rest,
    headers,
    ...(json !== undefined && { method: rest.method ?? 'POST', body: JSON.stringify(json) }),
  });
  return { status: res.status, body: (await res.json().catch(() => undefined)) as Record<string, any> }; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** The value of a one-series PromQL result (0 when there is no series). */
async function scalar(expr: string): Promise<number> {
  const result = await prometheus!.query(expr);
  return result.length === 0 ? 0 : Number(result[0]!.value[1]);
}

describe('metrics of the running stack', () => {
  it('When each process is scraped, Then its /metrics is on its own port only, and promtool finds nothing against the naming conventions', async () => {
    // the API ports never serve metrics: the gateway's public port answers its 404
    expect((await fetch(`${stack!.url}/metrics`)).status).toBe(404);
    expect((await fetch(`${httpUrl.identity}/metrics`)).status).toBe(404);
    for (const d of DEPLOYABLES) {
      const res = await fetch(`http://127.0.0.1:${metricsPort[d]}/metrics`);
      expect(res.status).toBe(200);
      const text = await res.text();
      const lint = promtool(['check', 'metrics'], text);
      expect({ deployable: d, problems: lint.output.trim() }).toEqual({ deployable: d, problems: '' });
      expect(lint.status).toBe(0);
      expect(text).toMatch(/^nodejs_eventloop_lag_seconds /m);
      expect(text).toMatch(/^nodejs_gc_duration_seconds_bucket/m);
    }
  });

  it('When a user journey runs through the gateway, Then Prometheus sees the counters, histograms and recording rules move', async () => {
    // Arrange + Act: register, sign in (once wrong), read, call the AI, hit an unknown path
    const email = `${uniqueName('obs')}@example.com`;
    const password = 'Secret123';
    const username = `o_${Date.now().toString(36)}`;
    expect((await call('/api/v1/auth/register', { json: { email, password, username } })).status).toBe(201);
    expect((await call('/api/v1/auth/login', { json: { email, password: 'Wrong12345' } })).status).toBe(401);
    const login = await call('/api/v1/auth/login', { json: { email, password } });
    expect(login.status).toBe(200);
    const token = (login.body.data?.accessToken ?? login.body.data?.access_token) as string;
    expect(typeof token).toBe('string');
    const authorization = `Bearer ${token}`;
    expect((await call('/api/flashcards', { headers: { authorization } })).status).toBe(200);
    expect((await call('/api/ai/quota', { headers: { authorization } })).status).toBe(200);
    expect((await call('/api/users/profile')).status).toBe(401);
    expect((await call('/api/no-such-group/123', { headers: { authorization } })).status).toBe(404);

    // Assert: every part scraped, and the series moved (each waited for, with a deadline)
    const eventually = <T>(check: () => Promise<T>) => waitFor(check, { timeoutMs: 60_000, intervalMs: 500 });
    await eventually(async () =>
      expect(await scalar('count(up{job=~"lingua-.*"} == 1)')).toBe(DEPLOYABLES.length),
    );
    await eventually(async () => {
      expect(
        await scalar(
          'sum(lingua_http_server_requests_total{service="gateway",route="/api/v1/auth",method="POST",status_class="2xx"})',
        ),
      ).toBeGreaterThanOrEqual(2);
      expect(
        await scalar(
          'sum(lingua_http_server_requests_total{service="identity",route="/api/v1/auth/login",status_class="4xx"})',
        ),
      ).toBeGreaterThanOrEqual(1);
      expect(await scalar('sum(lingua_identity_logins_total{outcome="success"})')).toBeGreaterThanOrEqual(1);
      expect(
        await scalar('sum(lingua_identity_logins_total{outcome="invalid_credentials"})'),
      ).toBeGreaterThanOrEqual(1);
      expect(
        await scalar('sum(lingua_gateway_auth_failures_total{code="UNAUTHORIZED"})'),
      ).toBeGreaterThanOrEqual(1);
      expect(
        await scalar('sum(lingua_gateway_upstream_request_duration_seconds_count{upstream="identity"})'),
      ).toBeGreaterThanOrEqual(3);
      expect(
        await scalar('sum(lingua_http_server_requests_total{service="gateway",route="unmatched"})'),
      ).toBeGreaterThanOrEqual(1);
      // the AI quota asks subscriptions for the caller's entitlements over gRPC
      expect(
        await scalar('sum(lingua_grpc_server_handled_total{service="subscriptions",grpc_code="OK"})'),
      ).toBeGreaterThanOrEqual(1);
    });
    // user.created leaves identity through its outbox and reaches the consumers
    await eventually(async () => {
      expect(
        await scalar(
          'sum(lingua_events_published_total{service="identity",event="user.created",outcome="ok"})',
        ),
      ).toBeGreaterThanOrEqual(1);
      expect(
        await scalar('sum(lingua_events_consumed_total{event="user.created",outcome="acked"})'),
      ).toBeGreaterThanOrEqual(1);
      expect(await scalar('count(lingua_events_consumer_pending_messages)')).toBeGreaterThanOrEqual(1);
      expect(await scalar('count(lingua_outbox_oldest_pending_age_seconds)')).toBeGreaterThanOrEqual(1);
    });
    // histograms: a p95 per route from the buckets, and the SLO recording rules over them. rate()
    // needs an increase between two scrapes, and these series were born with their first request,
    // before any scrape: a few more sign-ins after Prometheus has seen them give rate() its increase.
    // (five sign-ins in all from this address: the most a minute allows)
    for (let i = 0; i < 3; i++)
      expect((await call('/api/v1/auth/login', { json: { email, password } })).status).toBe(200);
    await eventually(async () => {
      const p95 = await scalar(
        'histogram_quantile(0.95, sum by (le) (rate(lingua_http_server_request_duration_seconds_bucket{service="gateway",route="/api/v1/auth"}[5m])))',
      );
      expect(p95).toBeGreaterThan(0);
      expect(Number.isFinite(p95)).toBe(true);
      expect(await scalar('lingua:gateway_requests:rate5m{route="/api/v1/auth"}')).toBeGreaterThan(0);
      expect(await scalar('count(lingua:gateway_slow:ratio_rate5m)')).toBeGreaterThanOrEqual(1);
      expect(await scalar('count(lingua:gateway_errors:ratio_rate1h)')).toBeGreaterThanOrEqual(1);
    });

    // no label carries a raw path, an id or a per-deployment subject
    const leaks = await prometheus!.query(
      'count by (__name__, route) ({__name__=~"lingua_.+", route=~".*(/[0-9]+|[0-9a-f]{8}-[0-9a-f]{4}|no-such-group).*"})',
    );
    expect(leaks).toEqual([]);
    expect(await prometheus!.query('{__name__=~"lingua_events_.+", event=~".*\\\\..*\\\\..*"}')).toEqual([]);
  }, 120_000);

  it('When the dashboards are loaded, Then every PromQL expression parses and returns series wherever its metrics exist', async () => {
    const dir = path.join(ROOT, 'deploy/grafana/dashboards');
    const exprs: string[] = [];
    for (const file of fs.readdirSync(dir).filter((f) => f.endsWith('.json'))) {
      const dashboard = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')) as {
        panels: { targets?: { expr: string }[] }[];
      };
      for (const panel of dashboard.panels) for (const t of panel.targets ?? []) exprs.push(t.expr);
    }
    expect(exprs.length).toBeGreaterThan(20);
    const exists = async (name: string) =>
      name.includes(':') || (await prometheus!.query(`count({__name__="${name}"})`)).length > 0;
    let checked = 0;
    for (const raw of exprs) {
      // Grafana's rate window; the scrape interval here is 1 s
      const expr = raw.replaceAll('$__rate_interval', '1m');
      const result = await prometheus!.query(expr); // throws on a parse error
      const names = [...new Set(expr.match(/\b(lingua[_:][a-z0-9_:]+|nodejs_[a-z0-9_]+)/g) ?? [])].map((n) =>
        n.replace(/_(bucket|sum|count)$/, (suffix) => (n.startsWith('lingua:') ? suffix : '')),
      );
      const present = await Promise.all(
        names.map(
          async (n) => (await exists(n)) || (await exists(`${n}_bucket`)) || (await exists(`${n}_sum`)),
        ),
      );
      if (!present.every(Boolean)) continue; // e.g. webhooks: nothing in the journey sends one
      expect({ expr, series: result.length > 0 }).toEqual({ expr, series: true });
      checked++;
    }
    // the journey feeds most panels: the gateway's, the services' RED, events, runtime
    expect(checked).toBeGreaterThanOrEqual(18);
  });
});
