import { learningDayStack } from './learning-day-stack';

// The user's day and goal (issue 37 item 0), as the app sees them through the gateway: "today",
// streaks, daily-goal progress and the stats' period boundaries are counted in the user's time zone
// (the profile's, else the request's X-Timezone, else UTC), across DST changes and 30/45-minute
// offsets; and there is one daily goal, whichever endpoint set it.
jest.setTimeout(120_000);

const { at, call, learner, review, statsReply } = learningDayStack();
const stats = async (token: string, period: string, zone?: string) => {
  const r = await statsReply(token, period, zone);
  // one zone's answer (and ETag) is not another's
  expect(r.headers.get('vary')).toMatch(/X-Timezone/i);
  return r.body.data;
};

describe('the user’s day through the gateway', () => {
  it('When a Tokyo app (X-Timezone: Asia/Tokyo) studies at 17:47Z, Then "today" is the next day there: its window, chart, streak, due list, next review and study-test day', async () => {
    at('2026-11-27T17:47:00Z');
    const { token, ids } = await learner(2);
    await review(token, ids[0]!, 'Asia/Tokyo');
    const today = await stats(token, 'today', 'Asia/Tokyo');
    expect(today).toMatchObject({
      from: '2026-11-27T15:00:00.000Z',
      to: '2026-11-28T14:59:59.999Z',
      reviews: 1,
      streak: 1,
      chart: { dates: ['2026-11-28'], values: [1] },
    });
    const week = await stats(token, 'week', 'Asia/Tokyo');
    expect(week.chart.dates.at(-1)).toBe('2026-11-28');
    expect(week.from).toBe('2026-11-21T15:00:00.000Z');
    // the Group B due list cuts "today" in the same zone: at 15:30Z (28 Nov in Tokyo) the unanswered
    // card (created due at 17:47Z, later on the same Tokyo day) is due today; the answered one is not
    at('2026-11-27T15:30:00Z');
    const due = await call('GET', '/api/flashcards/due?includeToday=true&includeOverdue=false', {
      token,
      headers: { 'x-timezone': 'Asia/Tokyo' },
    });
    expect(due.status).toBe(200);
    expect(due.body.data.flashcards.map((c: { id: string }) => c.id)).toEqual([ids[1]]);
    // at 14:30Z it is still 27 Nov in Tokyo: the next card (due 02:47 on 28 Nov there) is due tomorrow
    at('2026-11-27T14:30:00Z');
    const next = await call('GET', '/api/flashcards/next-review', {
      token,
      headers: { 'x-timezone': 'Asia/Tokyo' },
    });
    expect(next.body.data).toMatchObject({ status: 'upcoming', daysUntilDue: 1, isDueToday: false });
    // a study test taken at 17:47Z is filed under Tokyo's 28 Nov
    at('2026-11-27T17:47:00Z');
    const recorded = await call('POST', '/api/study/record-test', {
      token,
      body: { flashcardId: ids[1], testType: 'flashcard', isCorrect: true },
      headers: { 'x-timezone': 'Asia/Tokyo' },
    });
    expect(recorded.status).toBe(201);
    expect(recorded.body.data.studyDate).toBe('2026-11-28');
  });

  it('When zones are 30 or 45 minutes off the hour (Kolkata +5:30, Kathmandu +5:45, St John’s −3:30), Then the day starts at their midnight', async () => {
    at('2026-11-27T19:00:00Z'); // 00:30 on 28 Nov in Kolkata, 00:45 in Kathmandu
    const { token, ids } = await learner(1);
    await review(token, ids[0]!, 'Asia/Kolkata');
    expect(await stats(token, 'today', 'Asia/Kolkata')).toMatchObject({
      from: '2026-11-27T18:30:00.000Z',
      to: '2026-11-28T18:29:59.999Z',
      reviews: 1,
      chart: { dates: ['2026-11-28'], values: [1] },
    });
    expect(await stats(token, 'today', 'Asia/Kathmandu')).toMatchObject({
      from: '2026-11-27T18:15:00.000Z',
      to: '2026-11-28T18:14:59.999Z',
      reviews: 1,
    });
    const west = await learner(1);
    at('2026-11-26T02:00:00Z'); // 22:30 on 25 Nov in St John's (NST, −3:30)
    await review(west.token, west.ids[0]!, 'America/St_Johns');
    expect(await stats(west.token, 'today', 'America/St_Johns')).toMatchObject({
      from: '2026-11-25T03:30:00.000Z',
      to: '2026-11-26T03:29:59.999Z',
      reviews: 1,
      chart: { dates: ['2026-11-25'], values: [1] },
    });
  });

  it('When a New York user studies across the spring-forward night, Then a skipped local day breaks the streak and the week is cut at local midnights (EST, then EDT)', async () => {
    const { token, ids } = await learner(2);
    const ny = 'America/New_York';
    at('2026-03-08T04:30:00Z'); // 23:30 on 7 Mar (EST)
    await review(token, ids[0]!, ny);
    at('2026-03-09T04:30:00Z'); // 00:30 on 9 Mar (EDT): 8 Mar was skipped (UTC days 8 and 9 would be consecutive)
    await review(token, ids[1]!, ny);
    const week = await stats(token, 'week', ny);
    expect(week).toMatchObject({
      from: '2026-03-03T05:00:00.000Z', // midnight EST
      to: '2026-03-10T03:59:59.999Z', // midnight EDT, less 1 ms
      streak: 1,
      longestStreak: 1,
    });
    expect(week.chart.dates).toEqual([
      '2026-03-03',
      '2026-03-04',
      '2026-03-05',
      '2026-03-06',
      '2026-03-07',
      '2026-03-08',
      '2026-03-09',
    ]);
    expect(week.chart.values).toEqual([0, 0, 0, 0, 1, 0, 1]);
  });

  it('When a New York user studies on both sides of the fall-back night, Then the two local days count as a streak of 2', async () => {
    const { token, ids } = await learner(2);
    const ny = 'America/New_York';
    at('2026-10-31T04:30:00Z'); // 00:30 on 31 Oct (EDT)
    await review(token, ids[0]!, ny);
    at('2026-11-02T04:30:00Z'); // 23:30 on 1 Nov (EST): the next local day (UTC days 31 Oct and 2 Nov are not)
    await review(token, ids[1]!, ny);
    expect(await stats(token, 'today', ny)).toMatchObject({
      from: '2026-11-01T04:00:00.000Z', // midnight EDT; this day lasts 25 hours
      to: '2026-11-02T04:59:59.999Z',
      streak: 2,
      longestStreak: 2,
      reviews: 1,
    });
  });
});
