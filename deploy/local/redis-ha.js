// A Redis primary with replicas and Sentinels on one machine (docs/adr/0030): the configuration of
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
 * The processes of one set: `nodes[0]` starts as primary, the others as its replicas; every
 * Sentinel watches it under `masterName` (quorum 2). `users`: extra `--user` argument lists (the
 * services' ACL users); `passwords`: { replica, sentinel } on the data nodes, and `sentinelPass`
 * the Sentinels' own password (clients and Sentinels use it). Without passwords, no ACL at all.
 */
function redisHaProcesses({ dir, nodePorts, sentinelPorts, masterName = 'lingua', users = [], passwords }) {
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
      ...['--bind', '127.0.0.1', '--port', String(port), '--save', '', '--appendonly', 'no'],
      ...['--dir', dir, '--dbfilename', `dump-${port}.rdb`],
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
      `sentinel monitor ${masterName} 127.0.0.1 ${primary} 2`,
      `sentinel down-after-milliseconds ${masterName} ${DOWN_AFTER_MS}`,
      `sentinel failover-timeout ${masterName} ${FAILOVER_TIMEOUT_MS}`,
      `sentinel parallel-syncs ${masterName} 1`,
      ...(passwords
        ? [
            `sentinel auth-user ${masterName} ${SENTINEL_USER}`,
            `sentinel auth-pass ${masterName} ${passwords.sentinel}`,
            `requirepass ${passwords.sentinelPass}`,
            `sentinel sentinel-pass ${passwords.sentinelPass}`,
          ]
        : []),
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
 * kill(label, signal), and stop(), which stops them all and removes `dir`.
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
    for (const p of set.nodes) run(p);
    for (const p of set.nodes) await until(p.label, () => portOpen(p.port), 10_000);
    for (const p of set.sentinels) run(p);
    for (const p of set.sentinels) await until(p.label, () => portOpen(p.port), 10_000);
  } catch (err) {
    await stop();
    throw err;
  }
  return { ...set, children, kill, stop };
}

module.exports = { redisHaProcesses, startRedisHa, REDIS, SENTINEL, DOWN_AFTER_MS, FAILOVER_TIMEOUT_MS };
