import { randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import type { RunningService } from '@lingua/bootstrap';
import { isolatedServiceEnv, TestClock } from '@lingua/testing';
import { webhookDeliveryRepository } from '../src/data-access/webhook-delivery.repository';
import { RETRY_DELAYS_MS } from '../src/domain/retry-policy';
import { call, stopAndDrop, publish, startNotifications, startReceiver, tokenFor, waitFor } from './support';

jest.setTimeout(120_000);

// Retries are hours apart: the service runs on a clock the tests move. It starts at the real time so
// the receiver's standardwebhooks library (5-minute tolerance) accepts the first attempts.
const clock = new TestClock(new Date());
let service: RunningService;
const receivers: Awaited<ReturnType<typeof startReceiver>>[] = [];

beforeAll(async () => {
  ({ service } = await startNotifications({ clock, random: () => 0.5 }));
});
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  await stopAndDrop(service);
});

async function receiver(port?: number) {
  const r = await startReceiver(port);
  receivers.push(r);
  return r;
}

type User = ReturnType<typeof tokenFor>;

/** Every event published so far has been handled and acknowledged by the service's consumer. */
const eventsHandled = (svc: RunningService = service) =>
  waitFor(async () => {
    const info = await svc.deps.nats.jsm.consumers.info(svc.deps.bus.streamName, 'notifications');
    expect(info.num_pending + info.num_ack_pending).toBe(0);
  });

/**
 * A positive signal that the delivery worker has scanned for due attempts after this point: a test
 * delivery to a separate marker endpoint is queued (not sent from the consumer) and is sent only by a
 * scan; the scan reads due attempts oldest first, so any attempt due before it would be taken too.
 */
async function workerScannedSince(user: User, svc: RunningService = service) {
  const marker = await receiver();
  const ep = (
    await call(svc, 'POST', '/api/webhooks', {
      headers: user.auth,
      body: { url: marker.url, events: ['user.deleted'] },
    })
  ).body.data as { id: string };
  const sent = await call(svc, 'POST', `/api/webhooks/${ep.id}/test`, { headers: user.auth });
  expect(sent.status).toBeLessThan(300);
  await waitFor(() =>
    expect(marker.received.map((x) => x.headers['webhook-id'])).toContain(sent.body.data.eventId),
  );
}

async function register(user: User, url: string, body: Record<string, unknown> = {}) {
  const res = await call(service, 'POST', '/api/webhooks', {
    headers: user.auth,
    body: { url, events: ['user.created', 'achievement.unlocked'], ...body },
  });
  expect(res.status).toBe(201);
  return res.body.data as { id: string; secret: string };
}

const userCreated = (userId: string) =>
  publish(service, 'user.created', {
    userId,
    email: `${userId}@example.com`,
    username: 'bob',
    authProvider: 'password',
  });

const deliveries = async (user: User, endpointId: string, query = '') =>
  (await call(service, 'GET', `/api/webhooks/${endpointId}/deliveries${query}`, { headers: user.auth })).body
    .data.deliveries as Array<{
    id: string;
    eventId: string;
    status: string;
    attempts: number;
    nextAttemptAt: string;
    replays: number;
  }>;

describe('webhook delivery', () => {
  it('When an event about the owner happens, Then the endpoint receives it signed so that standardwebhooks verifies it', async () => {
    const r = await receiver();
    const user = tokenFor(service);
    const { secret } = await register(user, r.url);
    const event = await userCreated(user.sub);

    await waitFor(() => expect(r.received).toHaveLength(1));
    const { headers, body } = r.received[0]!;
    expect(headers['webhook-id']).toBe(event.id);
    expect(headers['webhook-signature']).toMatch(/^v1,/);
    expect(headers['content-type']).toBe('application/json');
    // the independent library, on the raw bytes received
    const verified = new Webhook(secret).verify(body, {
      'webhook-id': String(headers['webhook-id']),
      'webhook-timestamp': String(headers['webhook-timestamp']),
      'webhook-signature': String(headers['webhook-signature']),
    }) as Record<string, unknown>;
    expect(verified).toEqual({
      event: 'user.created',
      timestamp: event.timestamp,
      data: event.data,
      signature: expect.stringMatching(/^v1,/),
    });
    // the payload's own signature: <webhook-id>.<event time>.<data JSON>, same scheme and secret
    expect(verified.signature).toBe(
      new Webhook(secret).sign(event.id, new Date(event.timestamp), JSON.stringify(event.data)),
    );
    expect(() =>
      new Webhook(`whsec_${Buffer.from('another secret of 24 bytes!').toString('base64')}`).verify(body, {
        'webhook-id': String(headers['webhook-id']),
        'webhook-timestamp': String(headers['webhook-timestamp']),
        'webhook-signature': String(headers['webhook-signature']),
      }),
    ).toThrow();

    await waitFor(async () =>
      expect(await deliveries(user, (await register(user, r.url, { events: ['user.deleted'] })).id)).toEqual(
        [],
      ),
    );
  });

  it('When the secret is rotated, Then deliveries carry signatures by the new and the previous secret', async () => {
    const r = await receiver();
    const user = tokenFor(service);
    const ep = await register(user, r.url);
    const rotated = await call(service, 'POST', `/api/webhooks/${ep.id}/rotate-secret`, {
      headers: user.auth,
    });
    expect(rotated.status).toBe(200);
    expect(rotated.body.data.secret).toMatch(/^whsec_/);
    expect(rotated.body.data.secret).not.toBe(ep.secret);

    await call(service, 'POST', `/api/webhooks/${ep.id}/test`, { headers: user.auth });
    await waitFor(() => expect(r.received).toHaveLength(1));
    const { headers, body } = r.received[0]!;
    const h = {
      'webhook-id': String(headers['webhook-id']),
      'webhook-timestamp': String(headers['webhook-timestamp']),
      'webhook-signature': String(headers['webhook-signature']),
    };
    expect(h['webhook-signature'].split(' ')).toHaveLength(2);
    for (const secret of [ep.secret, rotated.body.data.secret as string])
      expect(new Webhook(secret).verify(body, h)).toMatchObject({ event: 'webhook.test' });
  });
  it("When an event is about another account, Then a user's endpoint does not get it but an admin's all-scope endpoint does", async () => {
    const mine = await receiver();
    const adminReceiver = await receiver();
    const user = tokenFor(service);
    const admin = tokenFor(service, { role: 'admin' });
    await register(user, mine.url);
    await register(admin, adminReceiver.url, { scope: 'all', events: ['achievement.unlocked'] });

    const stranger = randomUUID();
    const ev = await publish(service, 'achievement.unlocked', {
      userId: stranger,
      achievementId: 'a',
      name: 'A',
      xp: 1,
    });
    await waitFor(() => expect(adminReceiver.received.map((x) => x.headers['webhook-id'])).toContain(ev.id));
    const own = await publish(service, 'achievement.unlocked', {
      userId: user.sub,
      achievementId: 'b',
      name: 'B',
      xp: 1,
    });
    await waitFor(() => expect(mine.received.map((x) => x.headers['webhook-id'])).toEqual([own.id]));
  });

  it('When the same event arrives several times, Then each endpoint receives it once', async () => {
    const r = await receiver();
    const user = tokenFor(service);
    const ep = await register(user, r.url);
    const ev = await userCreated(user.sub);
    // re-published with the same id after the stream's duplicate window: a new NATS message
    await service.deps.nats.js.publish(`${service.deps.bus.subjectPrefix}.user.created`, JSON.stringify(ev));
    await service.deps.publisher.publish(ev);
    const marker = await publish(service, 'achievement.unlocked', {
      userId: user.sub,
      achievementId: 'm',
      name: 'M',
      xp: 0,
    });

    // events are handled concurrently: the marker may overtake the copies, so wait for every copy to be acked
    await waitFor(() =>
      expect(r.received.map((x) => x.headers['webhook-id'])).toEqual(
        expect.arrayContaining([ev.id, marker.id]),
      ),
    );
    await waitFor(async () => {
      const info = await service.deps.nats.jsm.consumers.info(service.deps.bus.streamName, 'notifications');
      expect(info.num_pending + info.num_ack_pending).toBe(0);
    });
    await waitFor(async () =>
      expect((await deliveries(user, ep.id)).every((d) => d.status === 'succeeded')).toBe(true),
    );
    // a queued duplicate would be sent by the worker: once a scan after the acks has run, it would be there
    await workerScannedSince(user);
    expect(r.received.filter((x) => x.headers['webhook-id'] === ev.id)).toHaveLength(1);
    expect((await deliveries(user, ep.id)).filter((d) => d.eventId === ev.id)).toHaveLength(1);
  });

  it('When the receiver fails and then is down, Then the attempt is retried on the back-off schedule until it succeeds', async () => {
    const r = await receiver();
    r.respondWith(() => ({ status: 500 }));
    const user = tokenFor(service);
    const ep = await register(user, r.url);
    const ev = await userCreated(user.sub);

    await waitFor(() => expect(r.received).toHaveLength(1));
    await waitFor(async () =>
      expect((await deliveries(user, ep.id))[0]).toMatchObject({ status: 'pending', attempts: 1 }),
    );
    const [d] = await deliveries(user, ep.id);
    expect(new Date(d!.nextAttemptAt).getTime() - clock.now().getTime()).toBe(RETRY_DELAYS_MS[0]);

    // not before it is due
    clock.advance(RETRY_DELAYS_MS[0] - 1_000);
    await workerScannedSince(user);
    expect(r.received).toHaveLength(1);

    // the receiver goes down: the second attempt fails to connect
    await r.close();
    clock.advance(1_000);
    await waitFor(async () => expect((await deliveries(user, ep.id))[0]).toMatchObject({ attempts: 2 }));
    const detail = await call(
      service,
      'GET',
      `/api/webhooks/${ep.id}/deliveries/${encodeURIComponent(d!.id)}`,
      {
        headers: user.auth,
      },
    );
    expect(detail.body.data.lastAttempt).toMatchObject({ statusCode: null, error: expect.any(String) });
    expect(detail.body.data.attemptLog.map((a: { statusCode: number | null }) => a.statusCode)).toEqual([
      null,
      500,
    ]);

    // …and comes back up on the same port, answering 200
    const back = await receiver(r.port);
    clock.advance(RETRY_DELAYS_MS[1]);
    await waitFor(() => expect(back.received).toHaveLength(1));
    expect(back.received[0]!.headers['webhook-id']).toBe(ev.id);
    await waitFor(async () =>
      expect((await deliveries(user, ep.id))[0]).toMatchObject({ status: 'succeeded', attempts: 3 }),
    );
  });

  it('When every attempt fails, Then the delivery is dead-lettered after the last one and a replay delivers it with the same id', async () => {
    const r = await receiver();
    r.respondWith(() => ({ status: 503 }));
    const user = tokenFor(service);
    const ep = await register(user, r.url);
    const ev = await userCreated(user.sub);
    await waitFor(() => expect(r.received).toHaveLength(1));

    for (const [i, delay] of RETRY_DELAYS_MS.entries()) {
      await waitFor(async () => expect((await deliveries(user, ep.id))[0]?.attempts).toBe(i + 1));
      clock.advance(delay);
      await waitFor(() => expect(r.received).toHaveLength(i + 2));
    }
    await waitFor(async () =>
      expect((await deliveries(user, ep.id))[0]).toMatchObject({
        status: 'failed',
        attempts: RETRY_DELAYS_MS.length + 1,
      }),
    );
    const failed = await deliveries(user, ep.id, '?status=failed');
    expect(failed).toHaveLength(1);

    r.respondWith(() => ({ status: 204 }));
    const replay = await call(
      service,
      'POST',
      `/api/webhooks/${ep.id}/deliveries/${encodeURIComponent(failed[0]!.id)}/replay`,
      {
        headers: user.auth,
      },
    );
    expect(replay.status).toBe(202);
    expect(replay.body.data).toMatchObject({ status: 'pending', attempts: 0, replays: 1 });
    // the circuit opened after the last failures: the replay waits for it, then goes through
    clock.advance(3_600_000);
    await waitFor(async () =>
      expect((await deliveries(user, ep.id))[0]).toMatchObject({ status: 'succeeded', replays: 1 }),
    );
    expect(r.received.at(-1)!.headers['webhook-id']).toBe(ev.id);
    expect(r.received.at(-1)!.body).toBe(r.received[0]!.body);

    const endpoint = await call(service, 'GET', `/api/webhooks/${ep.id}`, { headers: user.auth });
    expect(endpoint.body.data.circuit).toMatchObject({ state: 'closed', consecutiveFailures: 0 });
  });

  it('When an endpoint keeps failing, Then its circuit opens and later attempts wait instead of hammering it', async () => {
    const r = await receiver();
    r.respondWith(() => ({ status: 500 }));
    const user = tokenFor(service);
    const ep = await register(user, r.url);
    for (let i = 1; i <= 5; i++) {
      await call(service, 'POST', `/api/webhooks/${ep.id}/test`, { headers: user.auth });
      await waitFor(() => expect(r.received).toHaveLength(i));
      // one failure at a time: FerretDB's $inc is not isolated, so overlapping failures could count once
      await waitFor(async () => {
        const e = await call(service, 'GET', `/api/webhooks/${ep.id}`, { headers: user.auth });
        expect(e.body.data.circuit.consecutiveFailures).toBe(i);
      });
    }
    await waitFor(async () => {
      const e = await call(service, 'GET', `/api/webhooks/${ep.id}`, { headers: user.auth });
      expect(e.body.data.circuit).toMatchObject({ state: 'open', consecutiveFailures: 5 });
    });
    const sixth = await call(service, 'POST', `/api/webhooks/${ep.id}/test`, { headers: user.auth });
    await waitFor(async () => {
      const d = (await deliveries(user, ep.id)).find((x) => x.id === sixth.body.data.id)!;
      expect(new Date(d.nextAttemptAt).getTime()).toBeGreaterThan(clock.now().getTime());
      expect(d.attempts).toBe(0);
    });
    expect(r.received).toHaveLength(5);

    // after the cool-down one probe goes through; its success closes the circuit and the rest follow
    r.respondWith(() => ({ status: 200 }));
    clock.advance(60_000);
    await waitFor(async () =>
      expect((await deliveries(user, ep.id)).some((d) => d.status === 'succeeded')).toBe(true),
    );
    clock.advance(60_000);
    await waitFor(async () =>
      expect((await deliveries(user, ep.id)).every((d) => d.status === 'succeeded')).toBe(true),
    );
    const e = await call(service, 'GET', `/api/webhooks/${ep.id}`, { headers: user.auth });
    expect(e.body.data.circuit.state).toBe('closed');
  });

  it('When the receiver answers 410 Gone, Then the endpoint is disabled and the delivery dead-lettered', async () => {
    const r = await receiver();
    r.respondWith(() => ({ status: 410 }));
    const user = tokenFor(service);
    const ep = await register(user, r.url);
    await userCreated(user.sub);
    await waitFor(async () =>
      expect((await deliveries(user, ep.id))[0]).toMatchObject({ status: 'failed', attempts: 1 }),
    );
    const e = await call(service, 'GET', `/api/webhooks/${ep.id}`, { headers: user.auth });
    expect(e.body.data).toMatchObject({ enabled: false, disabledReason: 'gone' });

    // re-enabled by its owner, a replay of everything dead-lettered goes out
    r.respondWith(() => ({ status: 200 }));
    const patch = await call(service, 'PATCH', `/api/webhooks/${ep.id}`, {
      headers: user.auth,
      body: { enabled: true },
    });
    expect(patch.body.data).toMatchObject({ enabled: true, disabledReason: null });
    const replay = await call(service, 'POST', `/api/webhooks/${ep.id}/deliveries/replay-failed`, {
      headers: user.auth,
    });
    expect(replay.body.data).toEqual({ replayed: 1 });
    await waitFor(async () =>
      expect((await deliveries(user, ep.id))[0]).toMatchObject({ status: 'succeeded' }),
    );
  });
  it('When an account is deleted, Then its own endpoints get nothing more and are deleted with their deliveries, while scope-all endpoints get user.deleted', async () => {
    const own = await receiver();
    const partner = await receiver();
    const user = tokenFor(service);
    const admin = tokenFor(service, { role: 'admin' });
    const mine = await register(user, own.url, { events: ['user.created', 'user.deleted'] });
    await register(admin, partner.url, { events: ['user.deleted'], scope: 'all' });

    const deleted = await publish(service, 'user.deleted', { userId: user.sub });
    await waitFor(() => expect(partner.received.map((x) => x.headers['webhook-id'])).toContain(deleted.id));
    // nothing of the deleted account is kept (ADR 0022)
    await waitFor(async () =>
      expect((await call(service, 'GET', `/api/webhooks/${mine.id}`, { headers: admin.auth })).status).toBe(
        404,
      ),
    );
    // a late event about the deleted account (events are unordered) sends and stores nothing
    await userCreated(user.sub);
    // the event has been handled (acked) and a worker scan has run since: a delivery would exist and be sent
    await eventsHandled();
    await workerScannedSince(admin);
    expect(own.received).toHaveLength(0);
    expect(
      await service.deps.mongo.connection
        .db!.collection('webhook_deliveries')
        .countDocuments({ endpointId: mine.id }),
    ).toBe(0);
  });

  it('When an endpoint has failed for the disabling period without a success, Then it is disabled and its owner is told once, in the app', async () => {
    const r = await receiver();
    r.respondWith(() => ({ status: 500 }));
    const user = tokenFor(service);
    const ep = await register(user, r.url);
    await userCreated(user.sub);
    await waitFor(() => expect(r.received).toHaveLength(1));
    await waitFor(async () => expect((await deliveries(user, ep.id))[0]).toMatchObject({ attempts: 1 }));

    // five days on, the retry fails again: the endpoint goes
    clock.advance(5 * 24 * 3_600_000);
    await waitFor(async () => {
      const e = await call(service, 'GET', `/api/webhooks/${ep.id}`, { headers: user.auth });
      expect(e.body.data).toMatchObject({ enabled: false, disabledReason: 'persistent_failure' });
    });
    const notices = async () =>
      (await call(service, 'GET', '/api/notifications?type=system', { headers: user.auth })).body.data
        .notifications as Array<{ title: string; body: string; data: Record<string, unknown> }>;
    await waitFor(async () =>
      expect(await notices()).toEqual([
        expect.objectContaining({
          title: 'Webhook endpoint disabled',
          body: expect.stringContaining(r.url),
          data: { endpointId: ep.id, reason: 'persistent_failure' },
        }),
      ]),
    );
    // a later attempt finds it disabled: dead-lettered, and no second notice
    await call(service, 'POST', `/api/webhooks/${ep.id}/test`, { headers: user.auth });
    await waitFor(async () =>
      expect((await deliveries(user, ep.id, '?status=failed')).length).toBeGreaterThanOrEqual(1),
    );
    expect(await notices()).toHaveLength(1);
    expect(r.received).toHaveLength(2);
  });
});

describe('webhook delivery across restarts and replicas', () => {
  it('When the service restarts between attempts, or dies holding an attempt, Then the delivery still goes out once', async () => {
    const env = isolatedServiceEnv();
    const localClock = new TestClock(new Date());
    const first = await startNotifications({ clock: localClock, random: () => 0.5 }, env);
    const r = await receiver();
    r.respondWith(() => ({ status: 500 }));
    const user = tokenFor(first.service);
    const ep = (
      await call(first.service, 'POST', '/api/webhooks', {
        headers: user.auth,
        body: { url: r.url, events: ['user.created'] },
      })
    ).body.data;
    const ev = await publish(first.service, 'user.created', {
      userId: user.sub,
      email: 'r@example.com',
      username: 'r',
      authProvider: 'password',
    });
    await waitFor(() => expect(r.received).toHaveLength(1));
    await first.service.stop();

    r.respondWith(() => ({ status: 200 }));
    const second = await startNotifications({ clock: localClock, random: () => 0.5 }, env);
    try {
      localClock.advance(RETRY_DELAYS_MS[0]);
      await waitFor(() => expect(r.received).toHaveLength(2));
      expect(r.received[1]!.headers['webhook-id']).toBe(ev.id);

      // a worker claims the test attempt and dies before answering: once the claim runs out (its
      // due time, moved ahead by the claim), another worker sends it
      await second.service.stop();
      const third = await startNotifications({ clock: localClock, runWebhookWorker: false }, env);
      const test = await call(third.service, 'POST', `/api/webhooks/${ep.id}/test`, { headers: user.auth });
      const store = webhookDeliveryRepository(third.service.deps.mongo.connection);
      const claimed = (await store.claim((await store.get(test.body.data.id))!, localClock.now(), 60_000))!;
      expect(claimed).not.toBeNull();
      await third.service.stop();

      const fourth = await startNotifications({ clock: localClock }, env);
      try {
        // the fourth worker has polled (a new delivery it sends proves it) and left the claimed one alone
        const later = await call(fourth.service, 'POST', `/api/webhooks/${ep.id}/test`, {
          headers: user.auth,
        });
        await waitFor(() =>
          expect(r.received.map((x) => x.headers['webhook-id'])).toContain(later.body.data.eventId),
        );
        expect(r.received.map((x) => x.headers['webhook-id'])).not.toContain(claimed.eventId);
        localClock.advance(60_000);
        await waitFor(() =>
          expect(r.received.map((x) => x.headers['webhook-id'])).toContain(claimed.eventId),
        );
        await waitFor(async () =>
          expect(
            (await webhookDeliveryRepository(fourth.service.deps.mongo.connection).get(claimed.id))?.status,
          ).toBe('succeeded'),
        );
      } finally {
        await stopAndDrop(fourth.service);
      }
    } finally {
      await second.service.stop().catch(() => undefined);
    }
  });

  it('When two replicas run workers on the same deliveries, Then every delivery is sent exactly once', async () => {
    const env = isolatedServiceEnv({ WEBHOOK_CONCURRENCY: '4' });
    const a = await startNotifications({}, env);
    const b = await startNotifications({}, env);
    try {
      const r = await receiver();
      const admin = tokenFor(a.service, { role: 'admin' });
      await call(a.service, 'POST', '/api/webhooks', {
        headers: admin.auth,
        body: { url: r.url, events: ['user.created'], scope: 'all' },
      });
      const ids = new Set<string>();
      for (let i = 0; i < 40; i++) {
        const ev = await publish(a.service, 'user.created', {
          userId: randomUUID(),
          email: `${i}@example.com`,
          username: `n${i}`,
          authProvider: 'password',
        });
        ids.add(ev.id);
      }
      await waitFor(
        () => expect(new Set(r.received.map((x) => String(x.headers['webhook-id'])))).toEqual(ids),
        {
          timeoutMs: 90_000,
        },
      );
      // every event acked, and both replicas' workers have scanned since: a duplicate would have been sent
      await eventsHandled(a.service);
      await workerScannedSince(admin, a.service);
      await workerScannedSince(admin, b.service);
      expect(r.received).toHaveLength(40);
    } finally {
      await b.service.stop();
      await stopAndDrop(a.service);
    }
  });
  it('When one replica changes an endpoint, Then events handled by either replica follow the change at once', async () => {
    const env = isolatedServiceEnv();
    const a = await startNotifications({}, env);
    const b = await startNotifications({}, env);
    try {
      const before = await receiver();
      const after = await receiver();
      const admin = tokenFor(a.service, { role: 'admin' });
      const ep = (
        await call(a.service, 'POST', '/api/webhooks', {
          headers: admin.auth,
          body: { url: before.url, events: ['user.created'], scope: 'all' },
        })
      ).body.data as { id: string };
      const burst = async (n: number) => {
        const ids: string[] = [];
        for (let i = 0; i < n; i++)
          ids.push(
            (
              await publish(a.service, 'user.created', {
                userId: randomUUID(),
                email: `${i}@example.com`,
                username: `c${i}`,
                authProvider: 'password',
              })
            ).id,
          );
        return ids;
      };
      // both replicas handle some of these, so both hold the endpoint in their copies
      const warm = await burst(20);
      await waitFor(() => expect(before.received).toHaveLength(warm.length));

      const moved = await call(b.service, 'PATCH', `/api/webhooks/${ep.id}`, {
        headers: admin.auth,
        body: { url: after.url },
      });
      expect(moved.status).toBe(200);
      const later = await burst(20);
      await waitFor(() =>
        expect(after.received.map((x) => x.headers['webhook-id']).sort()).toEqual([...later].sort()),
      );
      expect(before.received).toHaveLength(warm.length);
    } finally {
      await b.service.stop();
      await stopAndDrop(a.service);
    }
  });
});
