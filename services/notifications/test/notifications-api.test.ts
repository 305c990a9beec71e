import { randomUUID } from 'node:crypto';
import type { RunningService } from '@lingua/bootstrap';
import { call, stopAndDrop, publish, startNotifications, tokenFor, waitFor } from './support';

jest.setTimeout(120_000);

let service: RunningService;

beforeAll(async () => {
  ({ service } = await startNotifications());
});
afterAll(async () => {
  await stopAndDrop(service);
});

const subscription = (userId: string, status: 'active' | 'cancelled' = 'active') => ({
  subscriptionId: randomUUID(),
  userId,
  deviceId: null,
  planId: 'premium_monthly',
  status,
  platform: 'ios' as const,
  expiresAt: new Date(Date.now() + 30 * 86_400_000).toISOString(),
  autoRenewal: true,
  isTrialPeriod: false,
  userRole: 'subscriber' as const,
  userSubscriptionStatus: 'active' as const,
});

/** A user with a welcome, a subscription and an achievement notification (3, all unread). */
async function userWithThreeNotifications() {
  const user = tokenFor(service);
  await publish(service, 'user.created', {
    userId: user.sub,
    email: 'a@example.com',
    username: 'alice',
    authProvider: 'password',
  });
  await publish(service, 'subscription.created', subscription(user.sub));
  await publish(service, 'achievement.unlocked', {
    userId: user.sub,
    achievementId: 'streak-7',
    name: '7-day streak',
    xp: 50,
  });
  await waitFor(async () => {
    const res = await call(service, 'GET', '/api/notifications', { headers: user.auth });
    expect(res.body.data.pagination.total).toBe(3);
  });
  return user;
}

describe('in-app notifications', () => {
  it('When events about a user arrive, Then the user lists one notification per event with the unread count', async () => {
    const user = await userWithThreeNotifications();
    const res = await call(service, 'GET', '/api/notifications', { headers: user.auth });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, meta: { requestId: expect.any(String) } });
    const { notifications, unreadCount, pagination } = res.body.data;
    expect(unreadCount).toBe(3);
    expect(pagination).toEqual({ page: 1, limit: 20, total: 3, totalPages: 1 });
    expect(notifications.map((n: { type: string }) => n.type).sort()).toEqual([
      'achievement',
      'subscription',
      'welcome',
    ]);
    expect(notifications.find((n: { type: string }) => n.type === 'achievement')).toMatchObject({
      title: 'Achievement unlocked: 7-day streak',
      read: false,
      readAt: null,
      data: { achievementId: 'streak-7', xp: 50 },
    });
  });

  it('When the same event is delivered twice, Then it notifies once', async () => {
    const user = tokenFor(service);
    const id = randomUUID();
    const data = { userId: user.sub, achievementId: 'first', name: 'First card', xp: 5 };
    await publish(service, 'achievement.unlocked', data, id);
    // a re-publish outside the stream's duplicate window looks like this: same id, new message
    await service.deps.nats.js.publish(
      `${service.deps.bus.subjectPrefix}.achievement.unlocked`,
      JSON.stringify({
        id,
        event: 'achievement.unlocked',
        version: 1,
        timestamp: new Date().toISOString(),
        data,
      }),
    );
    await publish(service, 'achievement.unlocked', { ...data, achievementId: 'second' });
    await waitFor(async () => {
      const res = await call(service, 'GET', '/api/notifications', { headers: user.auth });
      expect(res.body.data.pagination.total).toBe(2);
    });
  });

  it('When filtering by type, unreadOnly and paging, Then only matching notifications come back', async () => {
    const user = await userWithThreeNotifications();
    const byType = await call(service, 'GET', '/api/notifications?type=subscription', { headers: user.auth });
    expect(byType.body.data.notifications).toHaveLength(1);
    expect(byType.body.data.notifications[0].type).toBe('subscription');

    const page2 = await call(service, 'GET', '/api/notifications?page=2&limit=2', { headers: user.auth });
    expect(page2.body.data.notifications).toHaveLength(1);
    expect(page2.body.data.pagination).toEqual({ page: 2, limit: 2, total: 3, totalPages: 2 });

    const first = byType.body.data.notifications[0].id as string;
    const read = await call(service, 'PUT', `/api/notifications/${encodeURIComponent(first)}/read`, {
      headers: user.auth,
    });
    expect(read.status).toBe(200);
    expect(read.body.data).toMatchObject({ id: first, read: true, readAt: expect.any(String) });

    const unread = await call(service, 'GET', '/api/notifications?unreadOnly=true', { headers: user.auth });
    expect(unread.body.data.notifications).toHaveLength(2);
    expect(unread.body.data.unreadCount).toBe(2);
    expect(unread.body.data.notifications.every((n: { read: boolean }) => !n.read)).toBe(true);
  });

  it('When the user marks all read and deletes one, Then the unread count is 0 and the deleted one is gone', async () => {
    const user = await userWithThreeNotifications();
    const all = await call(service, 'PUT', '/api/notifications/read-all', { headers: user.auth });
    expect(all.status).toBe(200);
    expect(all.body.data).toEqual({ updated: 3, unreadCount: 0 });

    const list = await call(service, 'GET', '/api/notifications', { headers: user.auth });
    expect(list.body.data.unreadCount).toBe(0);
    const id = list.body.data.notifications[0].id as string;
    const del = await call(service, 'DELETE', `/api/notifications/${encodeURIComponent(id)}`, {
      headers: user.auth,
    });
    expect(del.status).toBe(200);
    expect(del.body.data).toEqual({ id, deleted: true });
    const again = await call(service, 'DELETE', `/api/notifications/${encodeURIComponent(id)}`, {
      headers: user.auth,
    });
    expect(again.status).toBe(404);
    expect(again.body.error.code).toBe('RES001');
    const after = await call(service, 'GET', '/api/notifications', { headers: user.auth });
    expect(after.body.data.pagination.total).toBe(2);
  });

  it("When a user touches another user's notification, Then it is not found and stays unchanged", async () => {
    const owner = await userWithThreeNotifications();
    const other = tokenFor(service);
    const list = await call(service, 'GET', '/api/notifications', { headers: owner.auth });
    const id = encodeURIComponent(list.body.data.notifications[0].id as string);

    expect(
      (await call(service, 'GET', '/api/notifications', { headers: other.auth })).body.data.pagination.total,
    ).toBe(0);
    expect(
      (await call(service, 'PUT', `/api/notifications/${id}/read`, { headers: other.auth })).status,
    ).toBe(404);
    expect((await call(service, 'DELETE', `/api/notifications/${id}`, { headers: other.auth })).status).toBe(
      404,
    );
    expect(
      (await call(service, 'PUT', '/api/notifications/read-all', { headers: other.auth })).body.data.updated,
    ).toBe(0);

    const still = await call(service, 'GET', '/api/notifications', { headers: owner.auth });
    expect(still.body.data.unreadCount).toBe(3);
  });

  it("When a user's account is deleted, Then their notifications are erased and others' stay", async () => {
    const gone = await userWithThreeNotifications();
    const stays = await userWithThreeNotifications();
    await publish(service, 'user.deleted', { userId: gone.sub });
    await waitFor(async () => {
      const res = await call(service, 'GET', '/api/notifications', { headers: gone.auth });
      expect(res.body.data.pagination.total).toBe(0);
    });
    const other = await call(service, 'GET', '/api/notifications', { headers: stays.auth });
    expect(other.body.data.pagination.total).toBe(3);
  });

  it('When the token is missing, invalid or revoked, Then the answer is 401 in the Group C envelope', async () => {
    const missing = await call(service, 'GET', '/api/notifications');
    expect(missing.status).toBe(401);
    expect(missing.body).toMatchObject({ success: false, error: { code: 'AUTH003' } });
    const invalid = await call(service, 'GET', '/api/notifications', {
      headers: { 'x-lingua-assertion': 'v1.nope.nope' },
    });
    expect(invalid.status).toBe(401);
    expect(invalid.body.error.code).toBe('AUTH001');
    const direct = await call(service, 'GET', '/api/notifications', {
      headers: { authorization: `Bearer ${tokenFor(service).token}` },
    });
    expect(direct.status).toBe(401);
    expect(direct.body.error.code).toBe('AUTH003');

    const user = tokenFor(service);
    const { createTokenBlacklist } = await import('@lingua/auth');
    await createTokenBlacklist(service.deps.redis!.client).revoke(
      user.jti,
      Math.floor(Date.now() / 1000) + 3600,
    );
    const revoked = await call(service, 'GET', '/api/notifications', { headers: user.auth });
    expect(revoked.status).toBe(401);
    expect(revoked.body.error.code).toBe('AUTH001');
  });

  it.each([
    ['page=0'],
    ['limit=1000'],
    ['limit=abc'],
    ['type=unknown'],
    ['unreadOnly=maybe'],
    ['page=1&page=2'],
    ['sort[$gt]=1'],
  ])('When the query is %s, Then the answer is 400 VAL001 naming the field', async (query) => {
    const user = tokenFor(service);
    const res = await call(service, 'GET', `/api/notifications?${query}`, { headers: user.auth });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      success: false,
      error: { code: 'VAL001', details: expect.any(Object) },
    });
  });

  it('When an id is very long, Then the answer is 400, not 500', async () => {
    const user = tokenFor(service);
    const res = await call(service, 'PUT', `/api/notifications/${'x'.repeat(500)}/read`, {
      headers: user.auth,
    });
    expect(res.status).toBe(400);
  });
});
