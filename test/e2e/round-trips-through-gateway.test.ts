import { RedisClient } from '@redis/client';
import mongoose from 'mongoose';
import { admittedOnCredit } from '@lingua/metrics';
import { isolatedServiceEnv, waitFor } from '@lingua/testing';
import { type InProcessStack, startInProcessStack } from '../platform/in-process-stack';
import { gatewayCaller, newCredentials, stopAndDrop } from '../platform/gateway-caller';

// Issue 39 item 4: the hot calls of the journey, counted as the app makes them (through the gateway),
// in sequential round trips to the database and Redis together: every command of every service of
// the stack between the request and its answer, overlapping ones (a Promise.all) counted as one step.
// Not on the path: the outbox relay's read of the events the call staged (kicked, never awaited).
// The gateway's rate-limit admission is one Redis round trip before forwarding only for a caller this
// replica knows nothing of; a caller it knows is admitted on credit, the point taken behind the request
// (a busy caller's requests are served from a lease; ADR 0006).
jest.setTimeout(120_000);

interface Command {
  name: string;
  start: number;
  end: number;
}
let recording: Command[] | undefined;
const now = () => performance.timeOrigin + performance.now();
/** Records the command from its sending to its reply (or failure). */
function timed<T>(name: string, run: () => Promise<T>): Promise<T> {
  const log = recording;
  if (!log) return run();

  const c: Command = { name, start: now(), end: Infinity };
  log.push(c);
  return run().finally(() => (c.end = now()));
}

// MongoDB: the driver's command monitoring, switched on for every client the stack connects
const { MongoClient } = mongoose.mongo;
const connect = MongoClient.prototype.connect;
MongoClient.prototype.connect = function (this: InstanceType<typeof MongoClient>) {
  (this.options as { monitorCommands: boolean }).monitorCommands = true;
  const open = new Map<number, Command>();
  this.on('commandStarted', (e) => {
    if (!recording || isRelayRead(e.command)) return;
    const target = (e.command as Record<string, unknown>)[e.commandName];
    const c: Command = {
      name: `mongo ${e.commandName}${typeof target === 'string' ? ` ${target}` : ''}`,
      start: now(),
      end: Infinity,
    };
    recording.push(c);
    open.set(e.requestId, c);
  });
  const done = (e: { requestId: number }) => {
    const c = open.get(e.requestId);
    if (c) c.end = now();
    open.delete(e.requestId);
  };
  this.on('commandSucceeded', done);
  this.on('commandFailed', done);
  return connect.call(this);
} as typeof connect;

// Redis: every command, pipeline and MULTI of node-redis' client (one write to the socket each)
type Proto = Record<string, (...args: unknown[]) => Promise<unknown>>;
const proto = RedisClient.prototype as unknown as Proto;
for (const method of ['sendCommand', '_executeMulti', '_executePipeline'] as const) {
  const original = proto[method]!;
  proto[method] = function (this: unknown, ...args: unknown[]) {
    const name = method === 'sendCommand' ? redisName(args[0] as unknown[]) : method.slice(8);
    return timed(`redis ${name}`, () => original.apply(this, args));
  };
}

/** The outbox relay reads what a call staged, with the `_outbox` field (libs/events/src/outbox.ts). */
const isRelayRead = (command: Record<string, unknown>) =>
  (command.projection as Record<string, unknown> | undefined)?._outbox === 1;

/** The gateway's rate-limit admission: its Redis keys end in `-rl:<bucket>` (gateway/src/server.ts). */
const isAdmission = (c: Command) => /^redis EVAL\S* \S*-rl:/.test(c.name);

/** The command and its first key (a script's first key follows the script and the key count). */
function redisName(args: unknown[]): string {
  const command = String(args[0]);
  const key = /^EVAL/i.test(command) ? args[3] : args[1];
  return `${command} ${String(key ?? '').slice(0, 40)}`;
}

/** The critical path: commands that overlap in time (run together) are one step. */
function steps(commands: Command[]): string[][] {
  const sorted = [...commands].sort((a, b) => a.start - b.start);
  const out: { end: number; names: string[] }[] = [];
  for (const c of sorted) {
    const last = out[out.length - 1];
    if (last && c.start < last.end) {
      last.names.push(c.name);
      last.end = Math.max(last.end, c.end);
    } else out.push({ end: c.end, names: [c.name] });
  }
  return out.map((s) => s.names);
}

let stack: InProcessStack;
const call = gatewayCaller(() => stack.gateway.url);

/** The round trips of one call, and its answer. */
async function measured<R extends { status: number }>(run: () => Promise<R>) {
  await quiet();
  const creditBefore = await creditCount();
  recording = [];
  const res = await run();
  const answered = now();
  const commands = recording;
  recording = undefined;
  // what the answer did not wait for (the relay's publication, a background poll) is not on its path
  const path = commands.filter((c) => c.end <= answered);
  const service = steps(path.filter((c) => !isAdmission(c)));
  // admitted on credit: the gateway forwarded without waiting for its Redis command
  const credited = (await creditCount()) > creditBefore;
  return { res, steps: credited ? service : steps(path), service, credited };
}

const creditCount = async () => (await admittedOnCredit.get()).values[0]?.value ?? 0;

/**
 * Waits until the previous call's after-work is over: every consumer of the bus has handled what it
 * was sent (a positive signal), and the stack sent no database or Redis command between two checks
 * (the relay's publication and other after-work not on the bus). Proceeds after 10 s regardless, as
 * a busy stack can only add steps to a measurement, never remove them.
 */
async function quiet() {
  const { nats, bus } = stack.services.identity.deps;
  recording = [];
  let opened = false;
  await waitFor(
    async () => {
      const sent = recording?.length ?? 0;
      recording = [];
      if (!opened) {
        opened = true; // the first check only opens the window the next one looks back on
        throw new Error('window opened');
      }
      for await (const c of nats.jsm.consumers.list(bus.streamName))
        expect(c.num_pending + c.num_ack_pending).toBe(0);
      expect(sent).toBe(0);
    },
    { timeoutMs: 10_000, intervalMs: 200 },
  ).catch(() => undefined);
  recording = undefined;
}

beforeAll(async () => {
  // what polls on its own (the relay, reminders, webhook deliveries every second, identity's
  // revocation restore every 10 s) is off or far apart, so a poll does not fall inside a call: a
  // webhook poll once did, in a slow run, and made a review four steps
  stack = await startInProcessStack(
    isolatedServiceEnv({
      IDENTITY_BCRYPT_COST: '4',
      FLASHCARDS_REMINDERS: 'false',
      WEBHOOK_POLL_MS: '60000',
      IDENTITY_REVOCATION_RESTORE_MS: '600000',
    }),
  );
});
afterAll(() => stopAndDrop(stack));

describe('round trips of the hot calls through the gateway', () => {
  it('When a learner reviews a card, Then it is answered in at most 3 sequential round trips to the database and Redis, the gateway’s admission included', async () => {
    const registered = await call('POST', '/api/v1/auth/register', { body: newCredentials('rt') });
    expect(registered.status).toBe(201);
    const token = registered.body.data.accessToken as string;

    const created = await measured(() =>
      call('POST', '/api/flashcards', {
        token,
        body: { word: 'kettle', translation: 'Wasserkocher', definition: 'a pot for boiling water' },
      }),
    );
    expect(created.res.status).toBe(200);
    const id = (created.res as { body: { data: { id: string } } }).body.data.id;

    const due = await measured(() => call('GET', '/api/learning/due', { token }));
    expect(due.res.status).toBe(200);

    // warm: the first review of a user builds read models a later one finds ready
    const warm = await call('POST', '/api/learning/review', { token, body: { cardId: id, rating: 3 } });
    expect(warm.status).toBe(200);
    const review = await measured(() =>
      call('POST', '/api/learning/review', { token, body: { cardId: id, rating: 5 } }),
    );
    expect(review.res.status).toBe(200);
    // the due list again, its read model now built (the first one built it)
    const dueAgain = await measured(() => call('GET', '/api/learning/due', { token }));
    expect(dueAgain.res.status).toBe(200);

    const report = Object.entries({
      'card creation': created,
      'first due list': due,
      review,
      'due list': dueAgain,
    }).map(
      ([call, m]) =>
        `${call}: ${m.steps.length} steps (${m.service.length} behind the gateway${m.credited ? '; admitted on credit' : ''})\n` +
        m.steps.map((s) => `  ${s.join(' | ')}`).join('\n'),
    );
    process.stdout.write(`${report.join('\n')}\n`);
    // the reads together, the card's write, the follow-ups together (review-card.use-case.ts)
    expect(review.service.length).toBeLessThanOrEqual(3);
    // the learner signed up and created a card through this gateway: it knows the budget is far from spent
    expect(review.credited).toBe(true);
    expect(review.steps.length).toBeLessThanOrEqual(3);
  });
});
