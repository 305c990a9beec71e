import { learningDayStack } from './learning-day-stack';

// One daily goal and the profile's time zone (issue 37 item 0, ADR 0025), as the app sees them
// through the gateway: identity's settings and profile write the goal and zone through to flashcards,
// which keeps the one goal that /api/learning/settings also sets and the stats count against.
jest.setTimeout(120_000);

const { at, call, learner, review, statsReply, stack } = learningDayStack();
const stats = async (token: string, period: string, zone?: string) =>
  (await statsReply(token, period, zone)).body.data;

describe('the profile’s zone and one daily goal through the gateway', () => {
  it('When the profile says Asia/Tokyo, Then the day is Tokyo’s without X-Timezone, and the profile wins over the header', async () => {
    at('2026-11-27T17:47:00Z');
    const { token, ids } = await learner(1);
    const put = await call('PUT', '/api/users/profile', { token, body: { timezone: 'Asia/Tokyo' } });
    expect(put.status).toBe(200);
    // written through to flashcards before the answer: no waiting
    expect((await stats(token, 'today')).from).toBe('2026-11-27T15:00:00.000Z');
    await review(token, ids[0]!, 'Europe/London');
    expect(await stats(token, 'today', 'America/New_York')).toMatchObject({
      from: '2026-11-27T15:00:00.000Z',
      chart: { dates: ['2026-11-28'], values: [1] },
    });
  });

  it('When dailyGoal 10 is set in /api/users/settings and 9 cards are reviewed, Then stats say goal 10 and 90 %; a goal set in /api/learning/settings shows in the profile', async () => {
    at('2026-11-27T10:00:00Z');
    const { token, ids } = await learner(9);
    const put = await call('PUT', '/api/users/settings', { token, body: { dailyGoal: 10 } });
    expect(put.status).toBe(200);
    for (const id of ids) await review(token, id);
    expect(await stats(token, 'today')).toMatchObject({ dailyGoal: 10, dailyGoalProgress: 90 });
    const learning = await call('GET', '/api/learning/settings', { token });
    expect(learning.body.data).toMatchObject({ dailyGoal: 10 });

    const other = await call('PUT', '/api/learning/settings', { token, body: { dailyGoal: 15 } });
    expect(other.status).toBe(200);
    const profile = await call('GET', '/api/users/profile', { token });
    expect(JSON.stringify(profile.body.data)).toContain('"dailyGoal":15');
    // and the answer to a settings change that leaves the goal alone shows the goal flashcards holds
    const mute = await call('PUT', '/api/users/settings', { token, body: { pushNotifications: false } });
    expect(mute.body.data.settings).toMatchObject({ dailyGoal: 15, pushNotifications: false });
    expect(await stats(token, 'today')).toMatchObject({ dailyGoal: 15, dailyGoalProgress: 60 });
  });

  it('When a zone was set in the profile before flashcards kept one, Then the next profile read hands it over', async () => {
    at('2026-11-27T17:47:00Z');
    const { token } = await learner(0);
    const me = await call('GET', '/api/users/profile', { token });
    const userId = me.body.data.user.id as string;
    // as an account from before ADR 0025: the zone in identity only
    await stack()
      .services.identity.deps.mongo.connection.collection('users')
      .updateOne({ _id: userId as never }, { $set: { 'profile.timezone': 'Asia/Kathmandu' } });
    expect((await stats(token, 'today')).from).toBe('2026-11-27T00:00:00.000Z');
    expect((await call('GET', '/api/users/profile', { token })).status).toBe(200);
    expect((await stats(token, 'today')).from).toBe('2026-11-26T18:15:00.000Z'); // 23:32 in Kathmandu
  });
});
