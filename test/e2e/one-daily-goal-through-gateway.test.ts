import { TestClock, isolatedServiceEnv } from '@lingua/testing';
import { gatewayCaller, newCredentials, stopAndDrop } from '../platform/gateway-caller';
import { type InProcessStack, startInProcessStack } from '../platform/in-process-stack';

// One daily goal and the profile's time zone (issue 37 item 0, ADR 0025), as the app sees them
// through the gateway: identity's settings and profile write the goal and zone through to flashcards,
// which keeps the one goal that /api/learning/settings also sets and the stats count against.
jest.setTimeout(120_000);

// flashcards' calendar clock: set to instants before the real now (the gateway's assertions are
// checked against it only for expiry)
const clock = new TestClock('2026-11-27T17:47:00Z');
const at = (iso: string) => clock.advance(Date.parse(iso) - clock.now().getTime());

let stack: InProcessStack;
const call = gatewayCaller(() => stack.gateway.url);

beforeAll(async () => {
  stack = await startInProcessStack(
    isolatedServiceEnv({ IDENTITY_BCRYPT_COST: '4' }),
    {},
    { flashcards: { clock } },
  );
});
afterAll(() => stopAndDrop(stack));

async function learner(cards = 1) {
  const reg = await call('POST', '/api/v1/auth/register', { body: newCredentials('tz') });
  expect(reg.status).toBe(201);
  const token = reg.body.data.accessToken as string;
  const set = await call('POST', '/api/flashcard-sets', { token, body: { name: 'days' } });
  expect(set.status).toBe(201);
  const ids: string[] = [];
  for (let i = 0; i < cards; i++) {
    const c = await call('POST', '/api/flashcards', {
      token,
      body: { setId: set.body.data.set.id, word: `w${i}`, translation: `t${i}` },
    });
    expect(c.status).toBe(201);
    ids.push(c.body.data.card.id);
  }
  return { token, ids };
}

const review = async (token: string, cardId: string, zone?: string) => {
  const r = await call('POST', '/api/learning/review', {
    token,
    body: { cardId, rating: 4, responseTime: 2000 },
    ...(zone && { headers: { 'x-timezone': zone } }),
  });
  expect(r.status).toBe(200);
};
const stats = async (token: string, period: string, zone?: string) => {
  const r = await call('GET', `/api/learning/stats?period=${period}`, {
    token,
    ...(zone && { headers: { 'x-timezone': zone } }),
  });
  expect([r.status, r.status === 200 ? '' : JSON.stringify(r.body)]).toEqual([200, '']);
  return r.body.data;
};

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
    await stack.services.identity.deps.mongo.connection
      .collection('users')
      .updateOne({ _id: userId as never }, { $set: { 'profile.timezone': 'Asia/Kathmandu' } });
    expect((await stats(token, 'today')).from).toBe('2026-11-27T00:00:00.000Z');
    expect((await call('GET', '/api/users/profile', { token })).status).toBe(200);
    expect((await stats(token, 'today')).from).toBe('2026-11-26T18:15:00.000Z'); // 23:32 in Kathmandu
  });
});
