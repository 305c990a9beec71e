import { connectMongo, ensureIndexes, type MongoHandle } from '@lingua/mongo';
import { mongoUrl, uniqueName } from '@lingua/testing';
import { notificationsIndexes } from '../src/data-access/indexes';
import { reminderSendLogRepository } from '../src/data-access/reminder-send-log.repository';
import type { ReminderSend } from '../src/domain/reminders/reminder-send-log';

// The send log on the real database (FerretDB locally), in a database of this run's own.
let mongo: MongoHandle;
const runId = uniqueName('reminders');

beforeAll(async () => {
  mongo = await connectMongo(mongoUrl(), uniqueName('notif_reminders'));
  const failures = await ensureIndexes(
    mongo.connection.db!,
    notificationsIndexes({ NOTIFICATIONS_RETENTION_DAYS: 90, WEBHOOK_DELIVERY_RETENTION_DAYS: 30 }).filter(
      (i) => i.collection === 'reminder_sends',
    ),
  );
  expect(failures).toEqual([]);
});
afterAll(async () => {
  await mongo.connection.dropDatabase().catch(() => undefined);
  await mongo.close();
});

const HOUR = 3600 * 1000;
const DAY = 24 * HOUR;
// the real time: the TTL index (30 days) would sweep sends dated long ago while a test reads them
const now = new Date();
const ago = (ms: number) => new Date(now.getTime() - ms);
let seq = 0;
const user = () => `${runId}-u${++seq}`;

const send = (userId: string, over: Partial<ReminderSend> = {}): ReminderSend => ({
  id: `${userId}:${++seq}`,
  userId,
  templateId: 'goal',
  channel: 'push',
  sentAt: ago(HOUR),
  fresh: ['goal', 'short'],
  scores: { goal: 0.05, short: -0.01 },
  probabilities: { goal: 0.8, short: 0.2 },
  banditEnabled: true,
  ...over,
});

describe('reminder send log', () => {
  it('When the same send is recorded twice, Then it is stored once with its audit and the second call says it was not new', async () => {
    // Arrange
    const log = reminderSendLogRepository(mongo.connection);
    const s = send(user());

    // Act
    const first = await log.record(s);
    const again = await log.record({ ...s, templateId: 'short' });

    // Assert
    expect([first, again]).toEqual([true, false]);
    expect(await log.listForUser(s.userId)).toEqual([{ ...s, rewardedAt: null, deliveredAt: null }]);
  });

  it('When the user reviews within 2 hours of reminders, Then only the latest unrewarded one in the window is rewarded, once', async () => {
    // Arrange
    const log = reminderSendLogRepository(mongo.connection);
    const u = user();
    const old = send(u, { sentAt: ago(3 * HOUR) });
    const recent = send(u, { sentAt: ago(HOUR) });
    const other = send(user(), { sentAt: ago(HOUR) });
    for (const s of [old, recent, other]) await log.record(s);

    // Act
    const rewarded = await log.reward(u, now, 2 * HOUR);
    // a second review 10 minutes later: the recent send is taken, the old one outside the window
    const second = await log.reward(u, new Date(now.getTime() + 10 * 60_000), 2 * HOUR);
    // a review before any send of this user's window
    const before = await log.reward(u, ago(5 * HOUR), 2 * HOUR);

    // Assert
    expect([rewarded, second, before]).toEqual([true, false, false]);
    const byId = Object.fromEntries((await log.listForUser(u)).map((s) => [s.id, s.rewardedAt]));
    expect(byId).toEqual({ [old.id]: null, [recent.id]: now });
    expect((await log.listForUser(other.userId))[0]!.rewardedAt).toBeNull();
  });

  it('When a user got templates on several days, Then userLastSeen gives the latest send of each', async () => {
    const log = reminderSendLogRepository(mongo.connection);
    const u = user();
    await log.record(send(u, { templateId: 'goal', sentAt: ago(5 * DAY) }));
    await log.record(send(u, { templateId: 'goal', sentAt: ago(2 * DAY) }));
    await log.record(send(u, { templateId: 'streak', sentAt: ago(3 * DAY) }));

    expect(await log.userLastSeen(u)).toEqual({ goal: ago(2 * DAY), streak: ago(3 * DAY) });
    expect(await log.userLastSeen(user())).toEqual({});
  });

  it('When sends are aggregated, Then each fresh template counts its own sends and the others it could have been, without sends still awaiting their outcome or older than the window', async () => {
    // Arrange: a database of its own, so that the other tests' sends do not count
    const db = await connectMongo(mongoUrl(), uniqueName('notif_reminder_stats'));
    try {
      const log = reminderSendLogRepository(db.connection, { statsCacheMs: 60_000 });
      const u = user();
      const at = (hoursAgo: number, over: Partial<ReminderSend>) =>
        send(u, { sentAt: ago(hoursAgo * HOUR), ...over });
      const sends = [
        at(5, { templateId: 'goal', fresh: ['goal', 'short'] }), // rewarded below
        at(26, { templateId: 'goal', fresh: ['goal', 'short', 'streak'] }),
        at(50, { templateId: 'short', fresh: ['goal', 'short'] }), // rewarded below
        at(74, { templateId: 'streak', fresh: ['short'] }), // streak itself was not fresh
        at(1, { templateId: 'goal', fresh: ['goal'] }), // within 2 h: no outcome yet
        // older than the 30-day window (this database has no TTL index: the query must leave it out)
        at(31 * 24, { templateId: 'goal', fresh: ['goal'] }),
      ];
      for (const s of sends) await log.record(s);
      await log.reward(u, new Date(sends[0]!.sentAt.getTime() + HOUR), 2 * HOUR);
      await log.reward(u, new Date(sends[2]!.sentAt.getTime() + 30 * 60_000), 2 * HOUR);

      // Act
      const stats = await log.stats(now);

      // Assert
      expect(stats).toEqual({
        goal: { sends: 2, rewarded: 1, baselineSends: 1, baselineRewarded: 1 },
        short: { sends: 1, rewarded: 1, baselineSends: 3, baselineRewarded: 1 },
        streak: { sends: 0, rewarded: 0, baselineSends: 1, baselineRewarded: 0 },
      });

      // and within a minute the same aggregate serves every reminder; after it, a new one is made
      await log.record(at(10, { templateId: 'goal', fresh: ['goal'] }));
      expect(await log.stats(new Date(now.getTime() + 30_000))).toEqual(stats);
      expect((await log.stats(new Date(now.getTime() + 61_000))).goal!.sends).toBe(3);
    } finally {
      await db.connection.dropDatabase().catch(() => undefined);
      await db.close();
    }
  });

  it('When an account is deleted, Then its sends are erased and no one else’s', async () => {
    const log = reminderSendLogRepository(mongo.connection);
    const [gone, stays] = [user(), user()];
    await log.record(send(gone));
    await log.record(send(gone, { sentAt: ago(DAY) }));
    await log.record(send(stays));

    expect(await log.removeAllForUser(gone)).toBe(2);
    expect(await log.listForUser(gone)).toEqual([]);
    expect(await log.listForUser(stays)).toHaveLength(1);
  });

  it('When the indexes are built, Then sends expire after the 30-day window', async () => {
    const indexes = await mongo.connection.db!.collection('reminder_sends').indexes();
    const ttl = indexes.find((i) => JSON.stringify(i.key) === JSON.stringify({ sentAt: 1 }));
    expect(ttl?.expireAfterSeconds).toBe(30 * 24 * 3600);
    expect(indexes.map((i) => i.name)).toContain('userId_1_sentAt_-1');
  });
});
