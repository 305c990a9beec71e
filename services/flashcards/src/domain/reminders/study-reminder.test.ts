import type { DomainEvent } from '@lingua/contracts';
import type { LearningProfile } from '../ports';
import { type DueProfile, reminderEventId, runDueReminder } from './study-reminder';

// One due reminder decided: said once per local day, skipped when late, when the goal is met or
// the day was reminded already; the schedule always moves on.
const profile = (over: Partial<DueProfile> = {}): DueProfile => ({
  userId: 'u1',
  algorithm: 'exponential',
  dailyGoal: 10,
  currentStreak: 4,
  longestStreak: 9,
  lastStudyDay: '2026-11-26',
  timezone: 'Asia/Kathmandu',
  reminderEnabled: true,
  reminderTime: '19:00',
  xp: 0,
  updatedAt: new Date(0),
  nextReminderAt: new Date('2026-11-27T13:15:00Z'), // 19:00 in Kathmandu (+5:45)
  ...over,
});

function harness(now: string, reviewedToday = 0) {
  const moves: { from: Date; to: Date | null; event?: DomainEvent<'reminder.triggered'> }[] = [];
  let taken = false;
  const deps = {
    now: () => new Date(now),
    countDue: async () => 12,
    reviews: { countBetween: async () => reviewedToday },
    schedule: {
      async *due() {},
      async advance(
        _userId: string,
        from: Date,
        to: Date | null,
        sent?: { localDay: string; event: DomainEvent<'reminder.triggered'> },
      ) {
        if (taken) return false;
        moves.push({ from, to, ...(sent && { event: sent.event }) });
        return true;
      },
    },
  };
  return { deps, moves, takeFirst: () => (taken = true) };
}

describe('a due study reminder', () => {
  it('When the user has not studied today, Then it is announced with the streak and due cards, under an id of the user and day, and the next is tomorrow at the same local time', async () => {
    const h = harness('2026-11-27T13:15:03Z');
    await expect(runDueReminder(profile(), h.deps)).resolves.toBe('triggered');
    const [move] = h.moves;
    expect(move!.to!.toISOString()).toBe('2026-11-28T13:15:00.000Z');
    expect(move!.event!.id).toBe(reminderEventId('u1', '2026-11-27'));
    expect(move!.event!.data).toMatchObject({
      localDay: '2026-11-27',
      streak: 4,
      dueCards: 12,
      dailyGoal: 10,
      reviewedToday: 0,
      timezone: 'Asia/Kathmandu',
    });
  });

  it.each<[string, Partial<LearningProfile> & Partial<DueProfile>, string, number, string]>([
    ['the goal is met', { lastStudyDay: '2026-11-27' }, '2026-11-27T13:16:00Z', 10, 'goal_met'],
    [
      'the day was reminded already',
      { lastReminderDay: '2026-11-27' },
      '2026-11-27T13:16:00Z',
      0,
      'already_reminded',
    ],
    ['it is more than an hour late', {}, '2026-11-27T14:16:00Z', 0, 'late'],
  ])('When %s, Then it is skipped and the schedule moves on', async (_what, over, now, reviewed, outcome) => {
    const h = harness(now, reviewed);
    await expect(runDueReminder(profile(over), h.deps)).resolves.toBe(outcome);
    expect(h.moves).toHaveLength(1);
    expect(h.moves[0]!.event).toBeUndefined();
    expect(h.moves[0]!.to!.getTime()).toBeGreaterThan(Date.parse(now));
  });

  it('When another replica took it first, Then this one says nothing', async () => {
    const h = harness('2026-11-27T13:15:03Z');
    h.takeFirst();
    await expect(runDueReminder(profile(), h.deps)).resolves.toBe('taken');
  });

  it('When the user studied today but below the goal, Then the reminder goes out with the count', async () => {
    const h = harness('2026-11-27T13:15:03Z', 3);
    await expect(runDueReminder(profile({ lastStudyDay: '2026-11-27' }), h.deps)).resolves.toBe('triggered');
    expect(h.moves[0]!.event!.data.reviewedToday).toBe(3);
  });
});
