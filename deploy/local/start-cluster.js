#!/usr/bin/env node
// The production topology on one machine (`npm run start:cluster`): a 3-node NATS JetStream cluster
// (streams with 3 replicas), a Redis primary with two replicas and three Sentinels (the services
// follow a failover through node-redis' Sentinel client: docs/adr/0031) and a FerretDB of its own (FerretDB in front of the PostgreSQL
// cluster infra.sh runs, so either can be restarted without touching anything else), two replicas
// of every service and two gateways. Each service's "Kubernetes Service" is HAProxy in TCP mode
// with a readiness check (GET /health/ready every 500 ms): as kube-proxy does, new connections go
// to ready replicas only and open ones stay where they are, and an endpoint change needs no reload
// (an nginx reload closes idle client connections under their next request). A real nginx
// (Debian) is the ingress on port 8080. Same code and settings as production; only addresses
// differ. Ctrl-C stops all of it. startCluster() is also what the chaos suite drives.
const { spawn, spawnSync } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const readline = require('node:readline');
const { startMailSink } = require('./mail-sink');
const { startPushSink } = require('./push-sink');
const creds = require('./infra-credentials');
const { redisHaProcesses } = require('./redis-ha');
const { heapArgs } = require('./container-memory');

const ROOT = path.resolve(__dirname, '../..');
const bin = (name) => [`/usr/sbin/${name}`, `/usr/bin/${name}`].find((p) => fs.existsSync(p));
const NGINX = bin('nginx');
const HAPROXY = bin('haproxy');
const NATS = bin('nats-server');
const REDIS = bin('redis-server');
const FERRETDB = path.join(
  process.env.LINGUA_TOOLS_DIR ?? path.join(os.homedir(), '.cache', 'lingua-tools'),
  'ferretdb-v2.7.0',
);

/** name, workspace, whether it serves gRPC */
const SERVICES = [
  ['identity', 'services/identity', true],
  ['flashcards', 'services/flashcards', true],
  ['subscriptions', 'services/subscriptions', true],
  ['ai', 'services/ai', true],
  ['notifications', 'services/notifications', false],
];
const REPLICAS = 2;

/**
 * Every port the topology listens on. Without a base: the documented defaults (a Service on the
 * service's usual port, replica r on that port + 100 × (r + 1); ingress 8080). With a base (the
 * test suite's short chaos run): consecutive ports from it, so it can run beside `npm start`.
 */
function portPlan(base) {
  let next = base;
  const at = (fixed) => (base === undefined ? fixed : next++);
  const http = [3001, 3002, 3003, 3004, 3005];
  const grpc = [15051, 15052, 15053, 15054];
  const metrics = [9401, 9402, 9403, 9404, 9405];
  const services = {};
  SERVICES.forEach(([name, , hasGrpc], i) => {
    services[name] = {
      http: at(http[i]),
      grpc: hasGrpc ? at(grpc[i]) : undefined,
      replicas: Array.from({ length: REPLICAS }, (_, r) => ({
        http: at(http[i] + 100 * (r + 1)),
        grpc: hasGrpc ? at(grpc[i] + 100 * (r + 1)) : undefined,
        metrics: at(metrics[i] + 100 * (r + 1)),
      })),
    };
  });
  const plan = {
    services,
    gateways: [8181, 8281].map((port, r) => ({ port: at(port), metrics: at(9400 + 100 * (r + 1)) })),
    gatewayService: at(8180),
    ingress: at(8080),
    nats: [0, 1, 2].map((i) => ({
      name: `n${i + 1}`,
      client: at(4251 + i),
      cluster: at(6251 + i),
      monitor: at(8251 + i),
    })),
    // the primary at the start (Sentinel may promote a replica later: redisPrimary())
    redis: at(6390),
    redisReplicas: [at(6391), at(6392)],
    sentinels: [at(26390), at(26391), at(26392)],
    ferretdb: at(27027),
    smtp: at(1025),
    push: at(1026),
  };
  // how many ports a run with a base takes
  plan.size = base === undefined ? 0 : next - base;
  return plan;
}

async function waitFor(what, check, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if (await check()) return;
    } catch {
      /* not yet */
    }
    if (Date.now() > deadline) throw new Error(`${what} not ready after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
const httpOk = (url) => fetch(url, { signal: AbortSignal.timeout(2000) }).then((r) => r.ok);
const portOpen = (port) =>
  new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    s.once('connect', () => (s.destroy(), resolve(true)));
    s.once('error', () => resolve(false));
  });

/** The Services: one HAProxy frontend per Service port, its replicas as readiness-checked servers. */
function haproxyConfig(dir, plan) {
  const lines = [
    'global',
    `  stats socket ${dir}/admin.sock mode 600 level admin`,
    '  maxconn 4000', // within a default open-files limit (haproxy needs about 2 per connection)
    'defaults',
    '  mode tcp',
    '  timeout connect 2s',
    '  timeout client 5m',
    '  timeout server 5m',
    // a connection a stopped replica refuses goes to another one (nothing was sent yet)
    '  retries 3',
    '  option redispatch',
    '  timeout check 2s',
    // as a readinessProbe with periodSeconds 0.5 and failureThreshold 2
    '  default-server inter 500ms fall 2 rise 1',
  ];
  const service = (name, port, members) => {
    lines.push(
      `frontend ${name}`,
      `  bind 127.0.0.1:${port}`,
      `  default_backend ${name}`,
      `backend ${name}`,
      '  balance roundrobin',
      '  option httpchk GET /health/ready',
      ...members.map(([label, p, checkPort]) => `  server ${label} 127.0.0.1:${p} check port ${checkPort}`),
    );
  };
  for (const [name] of SERVICES) {
    const s = plan.services[name];
    const label = (r) => `${name}-${r + 1}`;
    service(
      `${name}_http`,
      s.http,
      s.replicas.map((x, r) => [label(r), x.http, x.http]),
    );
    if (s.grpc)
      service(
        `${name}_grpc`,
        s.grpc,
        s.replicas.map((x, r) => [label(r), x.grpc, x.http]),
      );
  }
  service(
    'gateway',
    plan.gatewayService,
    plan.gateways.map((g, r) => [`gateway-${r + 1}`, g.port, g.port]),
  );
  return `${lines.join('\n')}\n`;
}

/**
 * The ingress. Its upstream keep-alive (4 s) is shorter than a draining gateway's idle window, so it
 * never sends on a connection the gateway is closing.
 */
function nginxConfig(dir, plan, logDir) {
  return `worker_processes 1;
daemon off;
pid ${dir}/nginx.pid;
error_log ${logDir ?? dir}/nginx-error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path ${dir}/body; proxy_temp_path ${dir}/proxy; fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi; scgi_temp_path ${dir}/scgi;
  upstream gateways { server 127.0.0.1:${plan.gatewayService}; keepalive 64; keepalive_timeout 4s; }
  server {
    listen 127.0.0.1:${plan.ingress};
    location / {
      proxy_pass http://gateways; proxy_http_version 1.1; proxy_set_header Connection "";
      proxy_set_header Host $host; proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
      proxy_set_header X-Forwarded-Proto $scheme; client_max_body_size 60m;
    }
  }
}
`;
}

/** HAProxy's view of each server (`show stat`): label -> [status of each of its backends]. */
function haproxyStatus(socketPath) {
  return new Promise((resolve, reject) => {
    let out = '';
    const s = net.connect(socketPath, () => s.end('show stat\n'));
    s.on('data', (d) => (out += d));
    s.on('error', reject);
    s.on('end', () => {
      const status = new Map();
      for (const line of out.split('\n').slice(1)) {
        const f = line.split(',');
        if (!f[1] || f[1] === 'FRONTEND' || f[1] === 'BACKEND') continue;
        status.set(f[1], [...(status.get(f[1]) ?? []), f[17]]);
      }
      resolve(status);
    });
  });
}

/**
 * Starts everything; resolves when the ingress answers /health with every part healthy.
 * Options: `portBase` (consecutive ports instead of the defaults), `dbPrefix` (databases
 * `<prefix><service>`, dropped by stop({ dropData: true })), `env` (added to every process),
 * `logDir` (each process's output into `<logDir>/<label>.log` instead of the terminal).
 */
async function startCluster({
  env = {},
  quiet = false,
  readyTimeoutMs = 180_000,
  portBase,
  dbPrefix,
  logDir,
} = {}) {
  for (const [tool, p] of Object.entries({
    nginx: NGINX,
    haproxy: HAPROXY,
    'nats-server': NATS,
    redis: REDIS,
  }))
    if (!p) throw new Error(`${tool} is missing: bash deploy/local/infra.sh up --test-tools installs it`);
  const r = spawnSync('bash', [path.join(ROOT, 'deploy/local/infra.sh'), 'up', '--test-tools'], {
    stdio: quiet ? 'pipe' : 'inherit',
  });
  if (r.status !== 0) throw new Error('infrastructure failed to start');
  const plan = portPlan(portBase);
  if (portBase !== undefined) {
    // an outgoing connection takes its local port from this range: a listener there may find its
    // port taken mid-run (EADDRINUSE at a restart). Only runs with a base (tests, benches, after a
    // build) read the built lib.
    const [low, high] = require('@lingua/testing').ephemeralRange();
    if (portBase <= high && portBase + plan.size > low)
      throw new Error(
        `ports ${portBase}-${portBase + plan.size - 1} overlap the ephemeral range ${low}-${high} ` +
          '(net.ipv4.ip_local_port_range): choose a port base below it',
      );
  }
  // a run with its own ports keeps its files apart too, and removes them when it stops
  const dataRoot = path.join(ROOT, '.data', 'cluster');
  fs.mkdirSync(dataRoot, { recursive: true });
  const data = portBase === undefined ? dataRoot : fs.mkdtempSync(path.join(dataRoot, 'run-'));
  const processes = new Map(); // label -> { label, start(), stop(signal), child }
  if (logDir) fs.mkdirSync(logDir, { recursive: true });
  const log = (label, stream, out) => {
    if (logDir) stream.pipe(fs.createWriteStream(path.join(logDir, `${label}.log`), { flags: 'a' }));
    else if (quiet) stream.resume();
    else readline.createInterface({ input: stream }).on('line', (l) => out.write(`[${label}] ${l}\n`));
  };

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
  const ready = new Map(); // label -> () => Promise<boolean>, what a restart waits for
  const sink = await startMailSink({ port: plan.smtp }).catch(() => undefined);
  const pushSink = await startPushSink({ port: plan.push }).catch(() => undefined);
  const balancerDir = fs.mkdtempSync(path.join(data, 'balancers-'));
  const REDIS_PROCESSES = [
    'redis',
    'redis-replica-1',
    'redis-replica-2',
    'sentinel-1',
    'sentinel-2',
    'sentinel-3',
  ];
  const DATA_PROCESSES = ['ferretdb', ...REDIS_PROCESSES, 'nats-n1', 'nats-n2', 'nats-n3'];
  const REDIS_MASTER = 'lingua';
  // the operator's way in (infra.sh's database, no authentication): makes and drops the users
  const adminMongoUrl = process.env.MONGO_URL ?? `mongodb://127.0.0.1:${process.env.FERRETDB_PORT ?? 27017}`;
  let mongoUrl = adminMongoUrl;
  // least privilege (docs/adr/0019): every service its own NATS user, Redis ACL user and database
  // user, with passwords made for this run
  const passwords = creds.generatePasswords();
  // replication, the Sentinels on the data nodes, the Sentinels' own, and the operator's (every key)
  const redisHa = Object.fromEntries(
    ['replica', 'sentinel', 'sentinelPass', 'operator'].map((k) => [
      k,
      `p${crypto.randomBytes(24).toString('hex')}`,
    ]),
  );
  const bus = {
    prefix: env.EVENTS_SUBJECT_PREFIX ?? 'cluster',
    stream: env.EVENTS_STREAM ?? 'CLUSTER_EVENTS',
  };
  const mongoUsers = SERVICES.map(([name]) => ({
    service: name,
    user: `${dbPrefix ?? 'lingua_cluster_'}${name}`,
    pwd: passwords.mongo[name],
    db: env[`${name.toUpperCase()}_MONGO_DB`] ?? (dbPrefix ? `${dbPrefix}${name}` : `lingua_${name}`),
  }));
  let mongoUsersMade = false;
  const stop = async ({ dropData = false } = {}) => {
    // nginx, HAProxy, gateways and services first; the data they wrote goes before its servers.
    // Each group stops together: one after another, each service's drain (DRAIN_DELAY_MS) added up
    // to half a minute at every stop
    const order = [...processes.values()].reverse();
    await Promise.all(order.filter((p) => !DATA_PROCESSES.includes(p.label)).map((p) => p.stop()));
    await sink?.close();
    await pushSink?.close();
    if (dropData && dbPrefix) await dropDatabases(adminMongoUrl, dbPrefix).catch(() => undefined);
    if (mongoUsersMade) await creds.dropMongoUsers(adminMongoUrl, mongoUsers).catch(() => undefined);
    await Promise.all(order.filter((p) => DATA_PROCESSES.includes(p.label)).map((p) => p.stop()));
    fs.rmSync(portBase === undefined ? balancerDir : data, { recursive: true, force: true });
  };

  try {
    // NATS: three nodes, JetStream on each, routes to the other two; one user per service
    const natsConf = path.join(data, `nats-auth-${process.pid}.conf`);
    fs.writeFileSync(
      natsConf,
      creds.natsAuthorization({ ...bus, password: (user) => JSON.stringify(passwords.nats[user]) }),
      { mode: 0o600 },
    );
    for (const node of plan.nats) {
      const routes = plan.nats
        .filter((n) => n !== node)
        .map((n) => `nats://127.0.0.1:${n.cluster}`)
        .join(',');
      const label = `nats-${node.name}`;
      define(
        label,
        NATS,
        [
          ...['-c', natsConf],
          ...['-a', '127.0.0.1', '-p', String(node.client), '-m', String(node.monitor), '-n', node.name],
          ...['-js', '-sd', path.join(data, `nats-${node.name}`), '--cluster_name', 'lingua'],
          ...['--cluster', `nats://127.0.0.1:${node.cluster}`, '--routes', routes],
        ],
        {},
      ).start();
      ready.set(label, () => httpOk(`http://127.0.0.1:${node.monitor}/healthz?js-enabled-only=true`));
    }
    const redisDir = path.join(data, `redis-${process.pid}`);
    fs.mkdirSync(redisDir, { recursive: true });
    const redisSet = redisHaProcesses({
      dir: redisDir,
      nodePorts: [plan.redis, ...plan.redisReplicas],
      sentinelPorts: plan.sentinels,
      masterName: REDIS_MASTER,
      users: [
        ...creds.redisUserArgs((user) => `>${passwords.redis[user]}`),
        ['--user', 'operator', 'on', `>${redisHa.operator}`, '~*', '&*', '+@all'],
      ],
      passwords: redisHa,
      sentinelPass: redisHa.sentinelPass,
    });
    for (const p of redisSet.nodes) {
      define(p.label, p.command, p.args, {}).start();
      ready.set(p.label, () => portOpen(p.port));
    }
    for (const p of redisSet.nodes) await waitFor(p.label, ready.get(p.label), 30_000);
    for (const p of redisSet.sentinels) {
      fs.writeFileSync(p.file, p.config, { mode: 0o600 });
      define(p.label, p.command, p.args, {}).start();
      ready.set(p.label, () => portOpen(p.port));
    }
    // FerretDB keeps no data itself: a restart is what a service sees when its database restarts
    if (fs.existsSync(FERRETDB)) {
      const pgUrl = spawnSync('bash', [path.join(ROOT, 'deploy/local/infra.sh'), 'pg-url'], {
        encoding: 'utf8',
      }).stdout.trim();
      const state = path.join(data, 'ferretdb');
      fs.mkdirSync(state, { recursive: true });
      define(
        'ferretdb',
        FERRETDB,
        [
          `--postgresql-url=${pgUrl}`,
          // authentication on: each service logs in as its own user (FerretDB 2 does not enforce
          // the users' roles: docs/adr/0019)
          `--state-dir=${state}`,
          `--listen-addr=127.0.0.1:${plan.ferretdb}`,
          '--debug-addr=',
          '--telemetry=disable',
          '--log-level=error',
        ],
        {},
      ).start();
      ready.set('ferretdb', () => portOpen(plan.ferretdb));
      mongoUrl = `mongodb://127.0.0.1:${plan.ferretdb}`;
      await creds.ensureMongoUsers(adminMongoUrl, mongoUsers);
      mongoUsersMade = true;
    }
    for (const label of ready.keys()) await waitFor(label, ready.get(label), 30_000);

    const base = {
      ...process.env,
      NODE_ENV: process.env.NODE_ENV ?? 'development',
      EVENTS_REPLICAS: '3',
      // its own stream: the single-node NATS of `npm start` keeps its own
      EVENTS_STREAM: bus.stream,
      EVENTS_SUBJECT_PREFIX: bus.prefix,
      // longer than the balancers take to see a replica not ready (2 checks 500 ms apart), as in Kubernetes
      DRAIN_DELAY_MS: '3000',
      SMTP_PORT: String(plan.smtp),
      PUSH_SINK_URL: `http://127.0.0.1:${plan.push}/push`,
      // the virtual users of the chaos suite are not what rate limits are for
      RATE_LIMIT_FREE_PER_HOUR: '1000000',
      RATE_LIMIT_SUBSCRIBER_PER_HOUR: '1000000',
      RATE_LIMIT_CATALOGUE_FREE_PER_HOUR: '1000000',
      RATE_LIMIT_SIGNUP_PER_HOUR: '1000000',
      ...env,
    };
    const natsUrls = plan.nats.map((n) => `nats://127.0.0.1:${n.client}`).join(',');
    // REDIS_URL gives the user and password; the Sentinels say where the primary is
    const redisEnv = (user) => ({
      REDIS_URL: `redis://${user}:${passwords.redis[user]}@127.0.0.1:${plan.redis}`,
      REDIS_SENTINELS: plan.sentinels.map((port) => `127.0.0.1:${port}`).join(','),
      REDIS_SENTINEL_MASTER: REDIS_MASTER,
      REDIS_SENTINEL_PASSWORD: redisHa.sentinelPass,
    });
    /** Each service's own credentials (the cluster's FerretDB: its user; another database: as given). */
    const connections = (name) => ({
      MONGO_URL: mongoUsersMade
        ? creds.mongoUrlFor(
            mongoUrl,
            mongoUsers.find((u) => u.service === name),
          )
        : mongoUrl,
      NATS_URL: creds.withCredentials(natsUrls, name, passwords.nats[name]),
      ...redisEnv(name),
    });
    // services reach each other's gRPC through their Services (HAProxy)
    const serviceAddresses = Object.fromEntries(
      SERVICES.filter(([, , hasGrpc]) => hasGrpc).map(([name]) => [
        `${name.toUpperCase()}_ADDR`,
        `127.0.0.1:${plan.services[name].grpc}`,
      ]),
    );
    for (const [name, dir, hasGrpc] of SERVICES)
      plan.services[name].replicas.forEach((x, i) => {
        const SVC = name.toUpperCase();
        const label = `${name}-${i + 1}`;
        // the heap its container would give it (deploy/local/container-memory.js)
        define(label, process.execPath, [...heapArgs(name), 'dist/main.js'], {
          cwd: path.join(ROOT, dir),
          env: {
            ...base,
            ...connections(name),
            [`${SVC}_HTTP_PORT`]: String(x.http),
            [`${SVC}_METRICS_PORT`]: String(x.metrics),
            ...(hasGrpc && { [`${SVC}_GRPC_PORT`]: String(x.grpc) }),
            ...(dbPrefix && { [`${SVC}_MONGO_DB`]: `${dbPrefix}${name}` }),
            ...serviceAddresses,
          },
        }).start();
        ready.set(label, () => httpOk(`http://127.0.0.1:${x.http}/health/ready`));
      });
    const serviceUrls = Object.fromEntries(
      SERVICES.map(([name]) => [
        `${name.toUpperCase()}_HTTP_URL`,
        `http://127.0.0.1:${plan.services[name].http}`,
      ]),
    );
    plan.gateways.forEach((g, i) => {
      const label = `gateway-${i + 1}`;
      define(label, process.execPath, [...heapArgs('gateway'), 'dist/main.js'], {
        cwd: path.join(ROOT, 'gateway'),
        // only the ingress (nginx, through HAProxy on 127.0.0.1) may name the client
        env: {
          ...base,
          ...redisEnv('gateway'),
          ...serviceUrls,
          GATEWAY_PORT: String(g.port),
          GATEWAY_METRICS_PORT: String(g.metrics),
          TRUST_PROXY: '127.0.0.1',
        },
      }).start();
      ready.set(label, () => httpOk(`http://127.0.0.1:${g.port}/health/ready`));
    });
    fs.writeFileSync(path.join(balancerDir, 'haproxy.cfg'), haproxyConfig(balancerDir, plan));
    define('haproxy', HAPROXY, ['-db', '-f', path.join(balancerDir, 'haproxy.cfg')], {}).start();
    fs.writeFileSync(path.join(balancerDir, 'nginx.conf'), nginxConfig(balancerDir, plan, logDir));
    define(
      'nginx',
      NGINX,
      [
        '-c',
        path.join(balancerDir, 'nginx.conf'),
        '-e',
        path.join(logDir ?? balancerDir, 'nginx-error.log'),
        '-p',
        balancerDir,
      ],
      {},
    ).start();
  } catch (err) {
    await stop({ dropData: true });
    throw err;
  }

  const socket = path.join(balancerDir, 'admin.sock');
  /** Whether HAProxy sends new connections to this replica (every backend of it UP). */
  const inRotation = async (label) => {
    const status = (await haproxyStatus(socket)).get(label);
    return Boolean(status?.length) && status.every((s) => s === 'UP');
  };

  /**
   * A pod's restart: the signal, then a new process once the old one has exited, back in rotation
   * once ready (HAProxy's check, as a Service's endpoints follow readiness). A graceful stop takes
   * the replica out by itself: not ready at once, still serving for DRAIN_DELAY_MS. `downMs` keeps
   * the process stopped that long before it starts again (a NATS node, Redis, the database).
   */
  const restart = async (label, signal = 'SIGTERM', { downMs = 0 } = {}) => {
    const p = processes.get(label);
    if (!p) throw new Error(`no process ${label}`);
    await p.stop(signal);
    if (downMs) await new Promise((r) => setTimeout(r, downMs));
    p.start();
    // as long as a first start gets: Kubernetes bounds a pod's start by its liveness (startupProbe),
    // not by when it is ready, and boots beside each other and the load can take a minute
    await waitFor(label, ready.get(label), readyTimeoutMs);
    if (/^(gateway|[a-z]+)-\d$/.test(label) && !DATA_PROCESSES.includes(label))
      await waitFor(`${label} in rotation`, () => inRotation(label), 30_000);
  };

  /** The label of the Redis node the Sentinels name primary now (what a failover changes). */
  const redisPrimary = async () => {
    const { createClient } = require('redis');
    for (const port of plan.sentinels) {
      const client = createClient({
        socket: { port, connectTimeout: 1000, reconnectStrategy: false },
        password: redisHa.sentinelPass,
      });
      client.on('error', () => undefined);
      try {
        await client.connect();
        const [, primaryPort] = await client.sendCommand([
          'SENTINEL',
          'GET-MASTER-ADDR-BY-NAME',
          REDIS_MASTER,
        ]);
        return [plan.redis, ...plan.redisReplicas].indexOf(Number(primaryPort)) === 0
          ? 'redis'
          : `redis-replica-${[plan.redis, ...plan.redisReplicas].indexOf(Number(primaryPort))}`;
      } catch {
        /* the next Sentinel */
      } finally {
        if (client.isOpen) await client.destroy();
      }
    }
    throw new Error('no Sentinel answers');
  };

  const url = `http://127.0.0.1:${plan.ingress}`;
  try {
    for (const [label, check] of ready) await waitFor(label, check, readyTimeoutMs);
    for (const label of ready.keys())
      if (/^[a-z]+-\d$/.test(label) && !DATA_PROCESSES.includes(label))
        await waitFor(`${label} in rotation`, () => inRotation(label), 30_000);
    await waitFor('ingress', () => httpOk(`${url}/health`), readyTimeoutMs);
  } catch (err) {
    await stop({ dropData: true });
    throw err;
  }
  return {
    url,
    plan,
    processes,
    restart,
    stop,
    natsNodes: plan.nats,
    services: SERVICES,
    mails: sink?.mails,
    pushes: pushSink?.pushes,
    hasOwnDatabase: processes.has('ferretdb'),
    redisPrimary,
    /** The operator's Redis user (every key), at a node's port. */
    redisOperatorUrl: (port) => `redis://operator:${redisHa.operator}@127.0.0.1:${port}`,
    /** The operator's NATS user (every right), e.g. to look into the streams. */
    natsAdminUrl: creds.withCredentials(
      plan.nats.map((n) => `nats://127.0.0.1:${n.client}`).join(','),
      creds.NATS_ADMIN,
      passwords.nats[creds.NATS_ADMIN],
    ),
  };
}

/** Drops the databases a run with `dbPrefix` made (the shared server keeps nothing of it). */
async function dropDatabases(mongoUrl, prefix) {
  const { MongoClient } = require('mongodb');
  const client = await MongoClient.connect(mongoUrl, { serverSelectionTimeoutMS: 5000 });
  try {
    const { databases } = await client.db('admin').admin().listDatabases({ nameOnly: true });
    for (const { name } of databases) if (name.startsWith(prefix)) await client.db(name).dropDatabase();
  } finally {
    await client.close();
  }
}

module.exports = { startCluster, haproxyConfig, nginxConfig, portPlan };

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
