// Runs once before all tests: fails early, with a clear message, if the real servers are not reachable.
const net = require('node:net');

function reachable(url, fallbackPort) {
  const u = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect({ host: u.hostname, port: Number(u.port || fallbackPort) });
    socket.setTimeout(2000);
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => (socket.destroy(), resolve(false)));
  });
}

const os = require('node:os');
const path = require('node:path');
const { removeStaleResources } = require('./test-resources');

/** Older than any run: what a run made this long ago is an interrupted run's leftover. */
const STALE_AFTER_MS = 6 * 3_600_000;

/** True for the whole suite (`npm test`): no test path and no name filter on the command line. */
function wholeSuite() {
  return process.argv
    .slice(2)
    .every((arg) => arg.startsWith('-') && !/^(-t|--testNamePattern|--testPathPattern)/.test(arg));
}

module.exports = async function globalSetup() {
  // The whole suite checks every JSON answer against the OpenAPI document and, at the end, that
  // every documented operation had a matching answer (global teardown). A run of a few files
  // would leave most operations unexercised, so it records only when asked (OPENAPI_CONFORMANCE).
  if (wholeSuite() && !process.env.OPENAPI_CONFORMANCE) {
    process.env.OPENAPI_CONFORMANCE = path.join(
      os.tmpdir(),
      `lingua-conformance-${process.pid}-${Date.now()}`,
    );
    process.env.OPENAPI_CONFORMANCE_GATE = '1';
  }
  // the services, gateways and tools the tests start as processes of their own (some hundred, and
  // some twenty in the chaos run, restarted) compile the same modules: V8's code cache, kept on
  // disk between runs as jest keeps its transforms, spares each start a part of that
  process.env.NODE_COMPILE_CACHE ??= path.join(os.tmpdir(), 'lingua-node-compile-cache');
  // every unique name of this run carries its id, so the global teardown can find what was left
  process.env.LINGUA_TEST_RUN ??= `r${Date.now().toString(36).slice(-4)}${Math.floor(Math.random() * 1296)
    .toString(36)
    .padStart(2, '0')}`;
  const targets = {
    'MongoDB-compatible server (FerretDB)': [
      process.env.MONGO_URL ?? `mongodb://127.0.0.1:${process.env.FERRETDB_PORT ?? 27017}`,
      27017,
    ],
    NATS: [process.env.NATS_URL ?? `nats://127.0.0.1:${process.env.NATS_PORT ?? 4222}`, 4222],
    Redis: [process.env.REDIS_URL ?? `redis://127.0.0.1:${process.env.REDIS_PORT ?? 6379}`, 6379],
  };
  const down = [];
  for (const [name, [url, port]] of Object.entries(targets))
    if (!(await reachable(url, port))) down.push(`${name} at ${url}`);
  if (down.length > 0)
    throw new Error(
      `Test infrastructure is not reachable: ${down.join(', ')}. Run \`npm run infra:up\` (npm test does it for you).`,
    );
  // what an interrupted run left (killed before its suites cleaned up): its streams keep their
  // JetStream storage reserved, and enough of them refuse the next run's streams
  const stale = await removeStaleResources(STALE_AFTER_MS);
  if (stale.streams + stale.databases + stale.keys > 0)
    process.stdout.write(
      `Removed what interrupted test runs left over ${STALE_AFTER_MS / 3_600_000} h ago: ${stale.streams} streams, ${stale.databases} databases, ${stale.keys} Redis keys.\n`,
    );
};
