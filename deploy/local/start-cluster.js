#!/usr/bin/env node
// The production topology on one machine (`npm run start:cluster`): a 3-node NATS JetStream cluster
// (streams with 3 replicas), Redis and the embedded database from infra.sh, two replicas of every
// service and two gateways, and a real nginx (Debian) load-balancing each service's HTTP and gRPC
// port across its replicas, as a Kubernetes Service does, and in front of the gateways as the
// ingress on port 8080. Same code and settings as production; only the addresses differ.
// Ctrl-C stops all of it. startCluster() is also what the chaos suite drives.
const { spawn, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const readline = require('node:readline');
const { startMailSink } = require('./mail-sink');

const ROOT = path.resolve(__dirname, '../..');
const DATA = path.join(ROOT, '.data', 'cluster');
const NGINX = ['/usr/sbin/nginx', '/usr/bin/nginx'].find((p) => fs.existsSync(p));
const NATS = ['/usr/sbin/nats-server', '/usr/bin/nats-server'].find((p) => fs.existsSync(p));

/** name, workspace, HTTP port of its Service (the load balancer), gRPC port or undefined */
const SERVICES = [
  ['identity', 'services/identity', 3001, 50051],
  ['flashcards', 'services/flashcards', 3002, 50052],
  ['subscriptions', 'services/subscriptions', 3003, 50053],
  ['ai', 'services/ai', 3004, 50054],
  ['notifications', 'services/notifications', 3005, undefined],
];
/** Default metrics ports (.env.example): the gateway's, then each service's in SERVICES order. */
const METRICS_PORT = {
  gateway: 9400,
  identity: 9401,
  flashcards: 9402,
  subscriptions: 9403,
  ai: 9404,
  notifications: 9405,
};
const REPLICAS = 2;
const INGRESS_PORT = 8080;
const GATEWAY_PORTS = [8181, 8281];
const NATS_NODES = [0, 1, 2].map((i) => ({
  name: `n${i + 1}`,
  client: 4251 + i,
  cluster: 6251 + i,
  monitor: 8251 + i,
}));
/** A replica's own port: the Service's port plus 100 × (replica + 1). */
const replicaPort = (port, r) => port + 100 * (r + 1);

async function waitFor(what, check, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if (await check()) return;
    } catch {
      /* not yet */
    }
    if (Date.now() > deadline) throw new Error(`${what} not ready after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 250));
  }
}
const httpOk = (url) => fetch(url, { signal: AbortSignal.timeout(2000) }).then((r) => r.ok);

/**
 * The balancers' configuration. `down` holds the replicas taken out of rotation (labels such as
 * `flashcards-1`), as Kubernetes removes a pod from its Service's endpoints once it is not ready.
 */
function nginxConfig(dir, down = new Set()) {
  const upstreams = [];
  const servers = [];
  const member = (label, port) =>
    `server 127.0.0.1:${port} max_fails=1 fail_timeout=2s${down.has(label) ? ' down' : ''};`;
  for (const [name, , http, grpc] of SERVICES) {
    const members = (port) =>
      Array.from({ length: REPLICAS }, (_, r) => member(`${name}-${r + 1}`, replicaPort(port, r))).join(' ');
    upstreams.push(`upstream ${name}_http { ${members(http)} keepalive 32; }`);
    servers.push(
      `server { listen 127.0.0.1:${http}; location / { proxy_pass http://${name}_http; proxy_http_version 1.1; proxy_set_header Connection ""; proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for; client_max_body_size 60m; } }`,
    );
    if (grpc) {
      upstreams.push(`upstream ${name}_grpc { ${members(grpc)} }`);
      servers.push(
        `server { listen 127.0.0.1:${grpc} http2; location / { grpc_pass grpc://${name}_grpc; } }`,
      );
    }
  }
  const gateways = GATEWAY_PORTS.map((p, i) => member(`gateway-${i + 1}`, p)).join(' ');
  upstreams.push(`upstream gateways { ${gateways} keepalive 64; }`);
  servers.push(
    `server { listen 127.0.0.1:${INGRESS_PORT}; location / { proxy_pass http://gateways; proxy_http_version 1.1; proxy_set_header Connection ""; proxy_set_header Host $host; proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for; proxy_set_header X-Forwarded-Proto $scheme; client_max_body_size 60m; } }`,
  );
  return `worker_processes 1;
daemon off;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path ${dir}/body; proxy_temp_path ${dir}/proxy; fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi; scgi_temp_path ${dir}/scgi;
  ${upstreams.join('\n  ')}
  ${servers.join('\n  ')}
}
`;
}

/** Starts everything; resolves when the ingress answers /health with every part healthy. */
async function startCluster({ env = {}, quiet = false, readyTimeoutMs = 180_000 } = {}) {
  if (!NGINX) throw new Error('nginx is missing: bash deploy/local/infra.sh up --test-tools installs it');
  const r = spawnSync('bash', [path.join(ROOT, 'deploy/local/infra.sh'), 'up', '--test-tools'], {
    stdio: quiet ? 'pipe' : 'inherit',
  });
  if (r.status !== 0) throw new Error('infrastructure failed to start');
  fs.mkdirSync(DATA, { recursive: true });
  const processes = new Map(); // label -> { label, start(), stop(signal), child }
  const log = (label, stream, out) =>
    quiet
      ? stream.resume()
      : readline.createInterface({ input: stream }).on('line', (l) => out.write(`[${label}] ${l}\n`));

  /** A supervised process that can be stopped (any signal) and started again, as a pod. */
  function define(label, command, args, options) {
    const p = { label, child: undefined };
    p.start = () => {
      const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
      log(label, child.stdout, process.stdout);
      log(label, child.stderr, process.stderr);
      p.child = child;
      return child;
    };
    p.stop = (signal = 'SIGTERM', graceMs = 20_000) =>
      new Promise((resolve) => {
        const child = p.child;
        if (!child || child.exitCode !== null || child.signalCode !== null) return resolve();
        const kill = setTimeout(() => child.kill('SIGKILL'), graceMs);
        child.once('exit', () => (clearTimeout(kill), resolve()));
        child.kill(signal);
      });
    processes.set(label, p);
    return p;
  }

  // NATS: three nodes, JetStream on each, routes to the other two
  for (const node of NATS_NODES) {
    const routes = NATS_NODES.filter((n) => n !== node)
      .map((n) => `nats://127.0.0.1:${n.cluster}`)
      .join(',');
    define(
      `nats-${node.name}`,
      NATS,
      [
        '-a',
        '127.0.0.1',
        '-p',
        String(node.client),
        '-m',
        String(node.monitor),
        '-n',
        node.name,
        '-js',
        '-sd',
        path.join(DATA, `nats-${node.name}`),
        '--cluster_name',
        'lingua',
        '--cluster',
        `nats://127.0.0.1:${node.cluster}`,
        '--routes',
        routes,
      ],
      {},
    ).start();
  }
  for (const node of NATS_NODES)
    await waitFor(
      `nats ${node.name}`,
      () => httpOk(`http://127.0.0.1:${node.monitor}/healthz?js-enabled-only=true`),
      30_000,
    );

  const sink = await startMailSink({ port: 1025 }).catch(() => undefined);
  const base = {
    ...process.env,
    NODE_ENV: process.env.NODE_ENV ?? 'development',
    NATS_URL: NATS_NODES.map((n) => `nats://127.0.0.1:${n.client}`).join(','),
    EVENTS_REPLICAS: '3',
    // its own stream: the single-node NATS of `npm start` keeps its own
    EVENTS_STREAM: 'CLUSTER_EVENTS',
    EVENTS_SUBJECT_PREFIX: 'cluster',
    DRAIN_DELAY_MS: '1000',
    // the virtual users of the chaos suite are not what rate limits are for
    RATE_LIMIT_FREE_PER_HOUR: '1000000',
    RATE_LIMIT_SUBSCRIBER_PER_HOUR: '1000000',
    RATE_LIMIT_CATALOGUE_FREE_PER_HOUR: '1000000',
    ...env,
  };
  for (const [name, dir, http, grpc] of SERVICES)
    for (let i = 0; i < REPLICAS; i++) {
      const SVC = name.toUpperCase();
      define(`${name}-${i + 1}`, process.execPath, ['dist/main.js'], {
        cwd: path.join(ROOT, dir),
        env: {
          ...base,
          [`${SVC}_HTTP_PORT`]: String(replicaPort(http, i)),
          [`${SVC}_METRICS_PORT`]: String(replicaPort(METRICS_PORT[name], i)),
          ...(grpc && { [`${SVC}_GRPC_PORT`]: String(replicaPort(grpc, i)) }),
        },
      }).start();
    }
  GATEWAY_PORTS.forEach((port, i) =>
    define(`gateway-${i + 1}`, process.execPath, ['dist/main.js'], {
      cwd: path.join(ROOT, 'gateway'),
      // only the ingress (nginx, on 127.0.0.1) may name the client; the services are the balancers' ports
      env: {
        ...base,
        GATEWAY_PORT: String(port),
        GATEWAY_METRICS_PORT: String(replicaPort(METRICS_PORT.gateway, i)),
        TRUST_PROXY: '127.0.0.1',
      },
    }).start(),
  );
  const nginxDir = fs.mkdtempSync(path.join(DATA, 'nginx-'));
  fs.writeFileSync(path.join(nginxDir, 'nginx.conf'), nginxConfig(nginxDir));
  define(
    'nginx',
    NGINX,
    ['-c', path.join(nginxDir, 'nginx.conf'), '-e', path.join(nginxDir, 'error.log'), '-p', nginxDir],
    {},
  ).start();

  // endpoints: a replica leaves rotation before a graceful stop and returns once ready again
  const down = new Set();
  const nginxConf = path.join(nginxDir, 'nginx.conf');
  const reload = () => {
    fs.writeFileSync(nginxConf, nginxConfig(nginxDir, down));
    spawnSync(NGINX, ['-s', 'reload', '-c', nginxConf, '-p', nginxDir], { stdio: 'ignore' });
  };
  const readyUrl = (label) => {
    const [name, n] = label.split('-');
    const i = Number(n) - 1;
    if (name === 'nats') {
      const node = NATS_NODES.find((x) => x.name === n);
      return `http://127.0.0.1:${node.monitor}/healthz?js-enabled-only=true`;
    }
    if (name === 'gateway') return `http://127.0.0.1:${GATEWAY_PORTS[i]}/health/ready`;
    return `http://127.0.0.1:${replicaPort(SERVICES.find(([s]) => s === name)[2], i)}/health/ready`;
  };
  /**
   * A pod's restart as Kubernetes does it: SIGTERM (graceful) takes the replica out of rotation
   * first; SIGKILL only after the fact, as failed probes would. Back in rotation once ready. A NATS
   * node (`nats-n2`) is in no rotation; `downMs` keeps it stopped that long before it starts again.
   */
  const restart = async (label, signal = 'SIGTERM', { downMs = 0 } = {}) => {
    const p = processes.get(label);
    if (label.startsWith('nats-')) {
      await p.stop(signal);
      await new Promise((r) => setTimeout(r, downMs));
      p.start();
      return waitFor(label, () => httpOk(readyUrl(label)), 60_000);
    }
    if (signal === 'SIGTERM') {
      down.add(label);
      reload();
      await new Promise((r) => setTimeout(r, 500)); // nginx's workers take the new configuration
    }
    await p.stop(signal);
    if (!down.has(label)) {
      down.add(label);
      reload();
    }
    p.start();
    await waitFor(label, () => httpOk(readyUrl(label)), 60_000);
    down.delete(label);
    reload();
  };

  const url = `http://127.0.0.1:${INGRESS_PORT}`;
  const stop = async () => {
    const order = [...processes.values()].reverse(); // nginx, gateways, services, then NATS
    for (const p of order) await p.stop();
    await sink?.close();
    fs.rmSync(nginxDir, { recursive: true, force: true });
  };
  try {
    for (const [name, , http] of SERVICES)
      for (let i = 0; i < REPLICAS; i++)
        await waitFor(
          `${name}-${i + 1}`,
          () => httpOk(`http://127.0.0.1:${replicaPort(http, i)}/health/ready`),
          readyTimeoutMs,
        );
    await waitFor('ingress', () => httpOk(`${url}/health`), readyTimeoutMs);
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    url,
    processes,
    restart,
    stop,
    natsNodes: NATS_NODES,
    services: SERVICES,
    mails: sink?.mails,
  };
}

module.exports = { startCluster };

if (require.main === module) {
  startCluster()
    .then((cluster) => {
      console.log(`\nLingua (cluster) is ready: ${cluster.url}. Ctrl-C stops everything.\n`);
      let down = false;
      const shutdown = async () => {
        if (down) return;
        down = true;
        console.log('\nstopping the cluster...');
        await cluster.stop();
        process.exit(0);
      };
      process.on('SIGINT', shutdown);
      process.on('SIGTERM', shutdown);
    })
    .catch((err) => {
      console.error(err.message);
      process.exit(1);
    });
}
