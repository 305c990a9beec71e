// A Redis primary with replicas and Sentinels on one machine (docs/adr/0031): the configuration of
// each process, used by `npm run start:cluster` (which supervises them) and by startRedisHa() for
// tests. Debian's redis-server and redis-sentinel (infra.sh installs them).
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const net = require('node:net');
const path = require('node:path');

const bin = (name) => [`/usr/bin/${name}`, `/usr/sbin/${name}`].find((p) => fs.existsSync(p));
const REDIS = bin('redis-server');
const SENTINEL = bin('redis-sentinel');

/** Users the data nodes need besides the services': replication, and the Sentinels' own. */
const REPLICA_USER = 'replica';
const SENTINEL_USER = 'sentinel';
// the commands Redis's Sentinel documentation lists for a Sentinel's user on the data nodes
const SENTINEL_RULES = [
  'allchannels',
  '+multi',
  '+slaveof',
  '+replicaof',
  '+ping',
  '+exec',
  '+subscribe',
  '+config|rewrite',
  '+role',
  '+publish',
  '+info',
  '+client|setname',
  '+client|kill',
  '+script|kill',
];

/**
 * Timings: a primary is down after 1 s without an answer (two Sentinels agreeing), and a failover
 * may take 5 s before another is tried. What a chaos run measures follows from them.
 */
const DOWN_AFTER_MS = 1000;
const FAILOVER_TIMEOUT_MS = 5000;

/**
 * On every data node. The Sentinel that leads a failover announces the new primary only once the
 * other replicas have re-synced from it (or failover-timeout passed), and clients asking that
 * Sentinel wait for it. A replica that needs a full copy waits repl-diskless-sync-delay first (5 s
 * by default, for more replicas to share the transfer): the failover then always ran into its
 * timeout (about 7 s instead of 3). The two replicas connect at once anyway.
 */
const DATA_NODE_ARGS = ['--repl-diskless-sync-delay', '0'];

/**
 * The processes of one set: `nodes[0]` starts as primary, the others as its replicas; every
 * Sentinel watches it under `masterName` (`quorum` of them must agree it is down). `users`: extra
 * `--user` argument lists (the services' ACL users); `passwords`: { replica, sentinel } on the data
 * nodes (without them, no ACL at all); `sentinelPass`: the Sentinels' own password (clients and
 * Sentinels use it).
 */
function redisHaProcesses({
  dir,
  nodePorts,
  sentinelPorts,
  masterName = 'lingua',
  users = [],
  passwords,
  sentinelPass,
  quorum = 2,
}) {
  const [primary] = nodePorts;
  const acl = passwords
    ? [
        ...users.flat(),
        ...['--user', REPLICA_USER, 'on', `>${passwords.replica}`, '+psync', '+replconf', '+ping'],
        ...['--user', SENTINEL_USER, 'on', `>${passwords.sentinel}`, ...SENTINEL_RULES],
        ...['--masteruser', REPLICA_USER, '--masterauth', passwords.replica],
      ]
    : [];
  const nodes = nodePorts.map((port, i) => ({
    label: i === 0 ? 'redis' : `redis-replica-${i}`,
    port,
    command: REDIS,
    args: [
      // append-only file, as infra.sh's Redis: a node restarted faster than the Sentinels notice
      // comes back with its data instead of as an empty primary its replicas would copy
      ...['--bind', '127.0.0.1', '--port', String(port), '--save', '', '--appendonly', 'yes'],
      ...DATA_NODE_ARGS,
      ...['--dir', dir, '--dbfilename', `dump-${port}.rdb`, '--appenddirname', `aof-${port}`],
      ...(i === 0 ? [] : ['--replicaof', '127.0.0.1', String(primary)]),
      ...acl,
    ],
  }));
  const sentinels = sentinelPorts.map((port, i) => {
    // a Sentinel rewrites its file (the current primary, its peers): one file per process and run
    const file = path.join(dir, `sentinel-${port}.conf`);
    const lines = [
      'bind 127.0.0.1',
      `port ${port}`,
      `dir ${dir}`,
      `sentinel monitor ${masterName} 127.0.0.1 ${primary} ${quorum}`,
      `sentinel down-after-milliseconds ${masterName} ${DOWN_AFTER_MS}`,
      `sentinel failover-timeout ${masterName} ${FAILOVER_TIMEOUT_MS}`,
      `sentinel parallel-syncs ${masterName} 1`,
      ...(passwords
        ? [
            `sentinel auth-user ${masterName} ${SENTINEL_USER}`,
            `sentinel auth-pass ${masterName} ${passwords.sentinel}`,
          ]
        : []),
      ...(sentinelPass ? [`requirepass ${sentinelPass}`, `sentinel sentinel-pass ${sentinelPass}`] : []),
    ];
    return {
      label: `sentinel-${i + 1}`,
      port,
      file,
      config: lines.join('\n') + '\n',
      command: SENTINEL,
      args: [file],
    };
  });
  return { nodes, sentinels, masterName };
}

const portOpen = (port) =>
  new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    s.once('connect', () => (s.destroy(), resolve(true)));
    s.once('error', () => resolve(false));
  });

async function until(what, check, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what} not ready after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Starts a set (for tests): resolves once every process listens. Returns the processes by label,
 * kill(label, signal), and stop(), which stops them all and removes `dir`. `sentinelsOnly`: the
 * data node at nodePorts[0] runs already (Sentinels watching an existing server).
 */
async function startRedisHa(options) {
  if (!REDIS || !SENTINEL)
    throw new Error('redis-server / redis-sentinel missing: bash deploy/local/infra.sh up');
  fs.mkdirSync(options.dir, { recursive: true });
  const set = redisHaProcesses(options);
  const children = new Map();
  const run = (p) => {
    if (p.file) fs.writeFileSync(p.file, p.config, { mode: 0o600 });
    const child = spawn(p.command, p.args, { stdio: 'ignore' });
    children.set(p.label, child);
  };
  const kill = (label, signal = 'SIGKILL') =>
    new Promise((resolve) => {
      const child = children.get(label);
      if (!child || child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill(signal);
    });
  const stop = async () => {
    for (const label of children.keys()) await kill(label, 'SIGKILL');
    fs.rmSync(options.dir, { recursive: true, force: true });
  };
  try {
    const nodes = options.sentinelsOnly ? [] : set.nodes;
    for (const p of nodes) run(p);
    for (const p of nodes) await until(p.label, () => portOpen(p.port), 10_000);
    for (const p of set.sentinels) run(p);
    for (const p of set.sentinels) await until(p.label, () => portOpen(p.port), 10_000);
  } catch (err) {
    await stop();
    throw err;
  }
  return { ...set, children, kill, stop };
}

/**
 * Starts a Redis Cluster of `ports.length` primaries (for tests): cluster mode on, joined by
 * redis-cli (Debian's redis-tools), resolved once every node reports cluster_state:ok (a command
 * before the nodes agree by gossip answers CLUSTERDOWN). Returns stop(), which kills the nodes and
 * removes `dir`.
 */
async function startRedisCluster({ dir, ports }) {
  if (!REDIS) throw new Error('redis-server missing: bash deploy/local/infra.sh up');
  const { execFileSync } = require('node:child_process');
  fs.mkdirSync(dir, { recursive: true });
  // Each node also listens on a cluster bus port, by default its port + 10,000, which may be taken
  // (or past 65,535) for a port the caller found free: seen as a node that never started. The bus
  // ports are chosen free here, as the tests choose theirs, and named explicitly.
  const { freePort } = require('../../libs/testing/dist');
  const busPorts = [];
  for (let i = 0; i < ports.length; i++) busPorts.push(await freePort());
  const errors = ports.map(() => []);
  const children = ports.map((port, i) => {
    const child = spawn(
      REDIS,
      [
        ...['--bind', '127.0.0.1', '--port', String(port), '--save', '', '--appendonly', 'no'],
        ...['--cluster-enabled', 'yes', '--cluster-port', String(busPorts[i])],
        ...['--cluster-config-file', path.join(dir, `nodes-${port}.conf`), '--dir', dir],
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    // kept for the error below: a node that exits at start says why on its output
    const keep = (chunk) => (errors[i] = [...errors[i].slice(-3), String(chunk).slice(-500)]);
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    return child;
  });
  const stop = async () => {
    await Promise.all(
      children.map(
        (c) =>
          new Promise((resolve) => {
            if (c.exitCode !== null || c.signalCode !== null) return resolve();
            c.once('exit', () => resolve());
            c.kill('SIGKILL');
          }),
      ),
    );
    fs.rmSync(dir, { recursive: true, force: true });
  };
  const cli = (...args) =>
    execFileSync('redis-cli', args, { stdio: ['ignore', 'pipe', 'ignore'] }).toString();
  try {
    for (const [i, port] of ports.entries())
      await until(`redis ${port}`, () => portOpen(port), 10_000).catch((err) => {
        throw new Error(`${err.message}: ${errors[i].join('').slice(-500)}`);
      });
    cli('--cluster', 'create', ...ports.map((p) => `127.0.0.1:${p}`), '--cluster-yes');
    await until(
      'cluster_state:ok',
      () => ports.every((p) => cli('-p', String(p), 'cluster', 'info').includes('cluster_state:ok')),
      20_000,
    );
  } catch (err) {
    await stop();
    throw err;
  }
  return { ports, stop, keySlot: (key) => Number(cli('-p', String(ports[0]), 'cluster', 'keyslot', key)) };
}

/** Where the compose overlay with the Sentinel shape is written (`node deploy/local/redis-ha.js render`). */
const COMPOSE_OVERLAY = 'deploy/compose/docker-compose.redis-sentinel.yml';
const DEPLOYABLES = ['identity', 'flashcards', 'subscriptions', 'ai', 'notifications', 'gateway'];

/**
 * The compose overlay that turns the core file's Redis into a primary with two replicas and three
 * Sentinels: the data nodes run the core file's command (its ACL users) plus the replication and
 * Sentinel users, and every deployable is told where the Sentinels are. Made from docker-compose.yml,
 * so the users stay the core file's (a test fails when the written file differs).
 */
function composeSentinelOverlay(coreComposeText) {
  const YAML = require('yaml');
  const core = YAML.parse(coreComposeText).services.redis;
  const replicaPw = '${REDIS_REPLICA_PASSWORD:?set REDIS_REPLICA_PASSWORD}';
  const sentinelUserPw = '${REDIS_SENTINEL_USER_PASSWORD:?set REDIS_SENTINEL_USER_PASSWORD}';
  const sentinelPw = '${REDIS_SENTINEL_PASSWORD:?set REDIS_SENTINEL_PASSWORD}';
  const node = (extra) => ({
    command: [
      ...core.command,
      ...['--user', REPLICA_USER, 'on', `>${replicaPw}`, '+psync', '+replconf', '+ping'],
      ...['--user', SENTINEL_USER, 'on', `>${sentinelUserPw}`, ...SENTINEL_RULES],
      ...['--masteruser', REPLICA_USER, '--masterauth', replicaPw],
      ...DATA_NODE_ARGS,
      ...extra,
    ],
  });
  const replica = (i) => ({
    ...core,
    ...node(['--replicaof', 'redis', '6379']),
    volumes: [`redis-replica-${i}-data:/data`],
    depends_on: { redis: { condition: 'service_healthy' } },
  });
  // a Sentinel rewrites its configuration: written at start into its own volume
  const conf = [
    'port 26379',
    'sentinel resolve-hostnames yes',
    'sentinel announce-hostnames yes',
    `sentinel monitor lingua redis 6379 2`,
    `sentinel down-after-milliseconds lingua ${DOWN_AFTER_MS}`,
    `sentinel failover-timeout lingua ${FAILOVER_TIMEOUT_MS}`,
    'sentinel parallel-syncs lingua 1',
    `sentinel auth-user lingua ${SENTINEL_USER}`,
    `sentinel auth-pass lingua ${sentinelUserPw}`,
    `requirepass ${sentinelPw}`,
    `sentinel sentinel-pass ${sentinelPw}`,
  ];
  const sentinel = (i) => ({
    image: core.image,
    command: [
      'sh',
      '-c',
      `[ -f /data/sentinel.conf ] || printf '%s\\n' ${conf.map((l) => `'${l}'`).join(' ')} > /data/sentinel.conf; exec redis-sentinel /data/sentinel.conf`,
    ],
    restart: core.restart,
    ...(core.logging && { logging: core.logging }),
    volumes: [`redis-sentinel-${i}-data:/data`],
    depends_on: { redis: { condition: 'service_healthy' } },
    healthcheck: {
      test: ['CMD-SHELL', 'redis-cli -p 26379 ping | grep -qE "PONG|NOAUTH"'],
      interval: '10s',
      timeout: '5s',
      retries: 5,
    },
    deploy: { resources: { limits: { memory: '64M' } } },
  });
  const services = {
    redis: node([]),
    'redis-replica-1': replica(1),
    'redis-replica-2': replica(2),
    'redis-sentinel-1': sentinel(1),
    'redis-sentinel-2': sentinel(2),
    'redis-sentinel-3': sentinel(3),
  };
  for (const name of DEPLOYABLES)
    services[name] = {
      environment: {
        REDIS_SENTINELS: 'redis-sentinel-1:26379,redis-sentinel-2:26379,redis-sentinel-3:26379',
        REDIS_SENTINEL_MASTER: 'lingua',
        REDIS_SENTINEL_PASSWORD: sentinelPw,
      },
      depends_on: Object.fromEntries(
        [1, 2, 3].map((i) => [`redis-sentinel-${i}`, { condition: 'service_healthy' }]),
      ),
    };
  const volumes = Object.fromEntries(
    ['redis-replica-1-data', 'redis-replica-2-data', ...[1, 2, 3].map((i) => `redis-sentinel-${i}-data`)].map(
      (v) => [v, {}],
    ),
  );
  return [
    "# Redis with Sentinel (docs/adr/0031): the core file's Redis becomes the primary of two replicas,",
    '# watched by three Sentinels; every deployable asks them for the primary and follows a failover.',
    '#   docker compose -f docker-compose.yml -f deploy/compose/docker-compose.redis-sentinel.yml up -d',
    "# .env, besides the core file's: REDIS_REPLICA_PASSWORD (replication), REDIS_SENTINEL_USER_PASSWORD",
    "# (the Sentinels' user on the data nodes), REDIS_SENTINEL_PASSWORD (the Sentinels' own).",
    '# Written by `node deploy/local/redis-ha.js render` from docker-compose.yml: do not edit.',
    YAML.stringify({ services, volumes }, { lineWidth: 0, version: '1.1', aliasDuplicateObjects: false }),
  ].join('\n');
}

if (require.main === module && process.argv[2] === 'render') {
  const root = path.resolve(__dirname, '../..');
  const text = composeSentinelOverlay(fs.readFileSync(path.join(root, 'docker-compose.yml'), 'utf8'));
  fs.writeFileSync(path.join(root, COMPOSE_OVERLAY), text);
  console.log(`wrote ${COMPOSE_OVERLAY}`);
}

module.exports = {
  redisHaProcesses,
  startRedisHa,
  startRedisCluster,
  composeSentinelOverlay,
  COMPOSE_OVERLAY,
  REDIS,
  SENTINEL,
  DOWN_AFTER_MS,
  FAILOVER_TIMEOUT_MS,
};
