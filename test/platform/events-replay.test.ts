// `npm run events:replay` as an operator runs it (docs/operations/runbook.md#replaying-dead-letters):
// a dead letter is listed by a dry run, re-published to its original subject for the consumer that
// dead-lettered it, applied there (and only there), and removed from the dead-letter stream.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { type AnyDomainEvent, makeEvent } from '@lingua/contracts';
import {
  connectNats,
  createEventPublisher,
  ensureStreams,
  eventBusConfig,
  type NatsHandle,
  PermanentEventError,
  type RunningConsumer,
  startDurableConsumer,
} from '@lingua/events';
import { natsUrl, silentLogger, uniqueName, waitFor } from '@lingua/testing';

const ROOT = path.resolve(__dirname, '../..');
const logger = silentLogger();
let nats: NatsHandle;
beforeAll(async () => {
  nats = await connectNats(natsUrl(), { name: 'events-replay-test' });
});
afterAll(() => nats.close());

/** Runs the npm script with the bus's names in the environment, as the runbook says. */
function replay(args: string[], env: Record<string, string>) {
  return new Promise<{ code: number | null; lines: Record<string, unknown>[]; stderr: string }>(
    (resolve, reject) => {
      const child = spawn('npm', ['run', '--silent', 'events:replay', '--', ...args], {
        cwd: ROOT,
        env: { ...process.env, NATS_URL: natsUrl(), ...env },
      });
      let out = '';
      let stderr = '';
      child.stdout.on('data', (d) => (out += d));
      child.stderr.on('data', (d) => (stderr += d));
      child.on('error', reject);
      child.on('close', (code) =>
        resolve({
          code,
          stderr,
          lines: out
            .split('\n')
            .filter((l) => l.startsWith('{'))
            .map((l) => JSON.parse(l) as Record<string, unknown>),
        }),
      );
    },
  );
}

jest.setTimeout(60_000);

describe('npm run events:replay', () => {
  it('When a dead letter is replayed after the fix, Then the consumer that dead-lettered it applies it, no other consumer handles it again, and it leaves the dead-letter stream', async () => {
    const name = uniqueName('replay').toUpperCase();
    const cfg = eventBusConfig({ streamName: name, subjectPrefix: name.toLowerCase() });
    await ensureStreams(nats.jsm, cfg);
    const dlq = `${name}_DLQ`;
    let fixed = false;
    const erased: string[] = [];
    const bystander: string[] = [];
    const consumers: RunningConsumer[] = [];
    try {
      consumers.push(
        await startDurableConsumer(nats, cfg, {
          durable: 'erasure',
          events: ['user.deleted'],
          logger,
          maxAttempts: 1,
          handler: async (e) => {
            if (!fixed) throw new PermanentEventError('erasure bug');
            erased.push(e.id);
          },
        }),
        await startDurableConsumer(nats, cfg, {
          durable: 'bystander',
          events: ['user.deleted'],
          logger,
          handler: async (e) => void bystander.push(e.id),
        }),
        // another consumer's dead letter, which the filters leave alone
        await startDurableConsumer(nats, cfg, {
          durable: 'welcome',
          events: ['user.created'],
          logger,
          maxAttempts: 1,
          handler: async () => {
            throw new PermanentEventError('welcome bug');
          },
        }),
      );
      const deleted = makeEvent('user.deleted', { userId: 'u-1' });
      const created = makeEvent('user.created', {
        userId: 'u-2',
        email: 'u2@x.io',
        username: 'u2',
        authProvider: 'password',
      });
      const publisher = createEventPublisher(nats, cfg);
      await publisher.publish(deleted);
      await publisher.publish(created);
      await waitFor(async () => expect((await nats.jsm.streams.info(dlq)).state.messages).toBe(2));
      await waitFor(() => expect(bystander).toEqual([deleted.id]));
      const env = { EVENTS_STREAM: name, EVENTS_SUBJECT_PREFIX: cfg.subjectPrefix };

      const dry = await replay(['--dry-run', '--consumer', 'erasure', '--event', 'user.deleted'], env);
      expect(dry.stderr).toBe('');
      expect(dry.code).toBe(0);
      expect(dry.lines).toEqual([
        expect.objectContaining({
          consumer: 'erasure',
          event: 'user.deleted',
          id: deleted.id,
          subject: `${cfg.subjectPrefix}.user.deleted`,
          reason: 'erasure bug',
        }),
        { summary: expect.objectContaining({ dryRun: true, matched: 1, replayed: 0, failed: 0 }) },
      ]);
      expect((await nats.jsm.streams.info(dlq)).state.messages).toBe(2);

      fixed = true; // the bug is fixed and deployed
      const run = await replay(['--consumer', 'erasure', '--event', 'user.deleted'], env);
      expect(run.code).toBe(0);
      expect(run.lines.at(-1)).toEqual({
        summary: expect.objectContaining({ dryRun: false, matched: 1, replayed: 1, failed: 0 }),
      });
      await waitFor(() => expect(erased).toEqual([deleted.id]));
      // only the welcome letter is left; the bystander did not handle the event a second time
      const left = await nats.jsm.streams.getMessage(dlq, {
        seq: 1,
        next_by_subj: `${cfg.subjectPrefix}_dlq.>`,
      });
      expect(left!.json<AnyDomainEvent>().id).toBe(created.id);
      expect((await nats.jsm.streams.info(dlq)).state.messages).toBe(1);
      await waitFor(async () => {
        const info = await nats.jsm.consumers.info(name, 'bystander');
        expect(info.num_pending + info.num_ack_pending).toBe(0);
      });
      expect(bystander).toEqual([deleted.id]);
    } finally {
      for (const c of consumers) await c.stop();
    }
  });
});
