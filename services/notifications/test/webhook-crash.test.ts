import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { makeEvent } from '@lingua/contracts';
import { connectNats, createEventPublisher, eventBusConfig } from '@lingua/events';
import { connectMongo } from '@lingua/mongo';
import { isolatedServiceEnv, natsUrl } from '@lingua/testing';
import { webhookDeliveryRepository } from '../src/data-access/webhook-delivery.repository';
import { call, startNotifications, startReceiver, stopAndDrop, tokenFor, waitFor } from './support';

jest.setTimeout(120_000);

const ROOT = path.resolve(__dirname, '../../..');

// The hot path stores the delivery claimed, sends, then records the outcome: a real crash (SIGKILL of
// the built service, as `npm test` builds first) between the request and that record must lose nothing.
it('When the service dies after sending a first attempt and before recording it, Then the redelivered event is sent again with the same webhook-id and recorded', async () => {
  // short claim: the dead process's claim on the attempt (timeout + 5 s) must run out before it is resent
  const env = isolatedServiceEnv({
    WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
    WEBHOOK_TIMEOUT_MS: '2000',
    WEBHOOK_LEASE_MS: '1000',
  });
  const receiver = await startReceiver();
  // registers the endpoint, creates the stream and the durable consumer, and goes away
  const setup = await startNotifications({}, env);
  const user = tokenFor(setup.service);
  const ep = (
    await call(setup.service, 'POST', '/api/webhooks', {
      headers: user.auth,
      body: { url: receiver.url, events: ['user.created'] },
    })
  ).body.data as { id: string };
  await setup.service.stop();

  const nats = await connectNats(natsUrl(), { name: 'crash-test' });
  const bus = eventBusConfig({ streamName: env.EVENTS_STREAM!, subjectPrefix: env.EVENTS_SUBJECT_PREFIX! });
  const event = makeEvent('user.created', {
    userId: user.sub,
    email: 'crash@example.com',
    username: 'crash',
    authProvider: 'password',
  });
  let service: Awaited<ReturnType<typeof startNotifications>>['service'] | undefined;
  let child: ChildProcess | undefined;
  try {
    // the receiver kills the service the moment the request arrives, before it can record anything
    receiver.respondWith(() => {
      child?.kill('SIGKILL');
      return { status: 200 };
    });
    child = spawn(process.execPath, [path.join(ROOT, 'services/notifications/dist/main.js')], {
      env: { ...process.env, ...env },
      stdio: 'ignore',
    });
    const exited = new Promise((resolve) => child!.once('exit', resolve));
    await createEventPublisher(nats, bus).publish(event);
    await waitFor(() => expect(receiver.received).toHaveLength(1));
    await exited;
    expect(receiver.received[0]!.headers['webhook-id']).toBe(event.id);
    const db = await connectMongo(setup.config.MONGO_URL, setup.config.mongoDb);
    try {
      // stored claimed just before the request: pending, no attempt counted, due again once the
      // claim (timeout + 5 s) runs out
      expect(await webhookDeliveryRepository(db.connection).get(`${ep.id}:${event.id}`)).toMatchObject({
        status: 'pending',
        attempts: 0,
        version: 1,
      });
    } finally {
      await db.close();
    }

    // a replica (or the restarted service) sends the claimed attempt once the claim has run out
    receiver.respondWith(() => ({ status: 200 }));
    ({ service } = await startNotifications({}, env));
    await waitFor(() => expect(receiver.received).toHaveLength(2), { timeoutMs: 60_000 });
    expect(receiver.received[1]!.headers['webhook-id']).toBe(event.id);
    const deliveries = webhookDeliveryRepository(service.deps.mongo.connection);
    await waitFor(async () =>
      expect(await deliveries.get(`${ep.id}:${event.id}`)).toMatchObject({
        status: 'succeeded',
        attempts: 1,
      }),
    );
    // signals that nothing more is coming: the event is acked, and a later test delivery to the same
    // endpoint, sent by a worker scan (oldest due first), arrives after it
    await waitFor(async () => {
      const info = await service!.deps.nats.jsm.consumers.info(service!.deps.bus.streamName, 'notifications');
      expect(info.num_pending + info.num_ack_pending).toBe(0);
    });
    const later = await call(service, 'POST', `/api/webhooks/${ep.id}/test`, { headers: user.auth });
    await waitFor(() =>
      expect(receiver.received.map((x) => x.headers['webhook-id'])).toContain(later.body.data.eventId),
    );
    expect(receiver.received.filter((x) => x.headers['webhook-id'] === event.id)).toHaveLength(2);
    expect(receiver.received).toHaveLength(3);
  } finally {
    child?.kill('SIGKILL');
    await nats.close();
    await receiver.close();
    await stopAndDrop(service);
  }
});
