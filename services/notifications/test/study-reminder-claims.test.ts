import { randomUUID } from 'node:crypto';
import { isolatedServiceEnv, TestClock } from '@lingua/testing';
import { reminderSendLogRepository } from '../src/data-access/reminder-send-log.repository';
import type { PushMessage } from '../src/domain/push-sender';
import { publish, startNotifications, stopAndDrop, waitFor } from './support';

// A study reminder as flashcards announces it on the bus, said once whatever happens to the replica
// saying it: a repeat of the event says nothing, a claim whose replica died before saying it is
// taken over once its lease is out, never while it holds (issue 37 item 4).
jest.setTimeout(60_000);

const clock = new TestClock(new Date());
const pushed: PushMessage[] = [];
let svc: Awaited<ReturnType<typeof startNotifications>>;

beforeAll(async () => {
  svc = await startNotifications(
    {
      clock,
      push: { send: async (m) => (pushed.push(m), { outcome: 'sent' }) },
      users: {
        reach: async () => ({
          found: true,
          pushNotifications: true,
          emailNotifications: true,
          email: 'learner@example.com',
          language: 'de',
          devices: [{ platform: 'ios', token: 'a'.repeat(64), locale: 'de-DE' }],
        }),
        removeDevice: async () => undefined,
      },
    },
    isolatedServiceEnv({ PUSH_TIMEOUT_MS: '1000', PUSH_MAX_ATTEMPTS: '1' }),
  );
});
afterAll(() => stopAndDrop(svc?.service));

const reminder = (userId: string, localDay = '2026-11-28') => ({
  userId,
  localDay,
  scheduledFor: clock.now().toISOString(),
  timezone: 'Europe/Berlin',
  streak: 3,
  dueCards: 7,
  dailyGoal: 10,
  reviewedToday: 0,
});
const pushesTo = (userId: string) =>
  pushed.filter((m) => m.data?.notificationId === `reminder:${userId}:2026-11-28`);
/** The lease the service derives (PUSH_TIMEOUT_MS x attempts + Retry-After waits + 30 s). */
const LEASE_MS = 1000 * 1 + 0 + 30_000;

describe('a study reminder said once', () => {
  it("When the same reminder is announced twice, Then one push goes out, in the user's language, collapsed as a study reminder", async () => {
    const userId = randomUUID();
    const id = randomUUID();
    await publish(svc.service, 'reminder.triggered', reminder(userId), id);
    await waitFor(async () => expect(pushesTo(userId)).toHaveLength(1));
    await publish(svc.service, 'reminder.triggered', reminder(userId));
    // the later, positive signal: a third user's reminder after both went through the same consumer
    const later = randomUUID();
    await publish(svc.service, 'reminder.triggered', reminder(later));
    await waitFor(async () => expect(pushesTo(later)).toHaveLength(1));
    expect(pushesTo(userId)).toHaveLength(1);
    expect(pushesTo(userId)[0]).toMatchObject({ platform: 'ios', collapseKey: 'study_reminder' });
  });

  it('When a replica claimed the reminder and died before saying it, Then it is not said while the claim holds, and said once after its lease', async () => {
    const userId = randomUUID();
    const sends = reminderSendLogRepository(svc.service.deps.mongo.connection);
    // the dead replica's claim, just made
    await sends.record({
      id: `reminder:${userId}:2026-11-28`,
      userId,
      templateId: 'short',
      channel: 'push',
      sentAt: clock.now(),
      fresh: [],
      scores: {},
      probabilities: {},
      banditEnabled: true,
    });
    await publish(svc.service, 'reminder.triggered', reminder(userId));
    const other = randomUUID();
    await publish(svc.service, 'reminder.triggered', reminder(other));
    await waitFor(async () => expect(pushesTo(other)).toHaveLength(1));
    expect(pushesTo(userId)).toEqual([]);
    // the lease runs out: the retried event takes the claim over
    clock.advance(LEASE_MS + 1000);
    await waitFor(async () => expect(pushesTo(userId)).toHaveLength(1), {
      timeoutMs: 45_000,
      intervalMs: 200,
    });
    expect((await sends.find(`reminder:${userId}:2026-11-28`))!.deliveredAt).not.toBeNull();
  });
});
