import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import es from '../../libs/http/src/messages/es.json';
import { TestClock, isolatedServiceEnv, waitFor } from '@lingua/testing';
import { startPushStandIns } from '../../services/notifications/test/support/push-stand-ins';
import { gatewayCaller, newCredentials, stopAndDrop } from '../platform/gateway-caller';
import { type InProcessStack, startInProcessStack } from '../platform/in-process-stack';

// Daily study reminders (issue 37 items 3 and 5), as the app sets them through the gateway: the
// user's zone and reminder time, a phone registered for push. Flashcards' schedule runs on a test
// clock moved past each reminder's minute; APNs is a real HTTP/2
// stand-in, e-mail a local SMTP sink.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { startMailSink } = require('../../deploy/local/mail-sink.js') as {
  startMailSink(o: { port: number }): Promise<{
    port: number;
    mails: { to: string; subject: string; text: string; links: string[] }[];
    close(): Promise<void>;
  }>;
};
jest.setTimeout(120_000);

// Started two minutes behind the real now: the tests move it about five minutes on in all, and the
// events flashcards stamps with it must stay within the consumers' five-minute skew (an event from
// further ahead is refused as from the future, whatever the test's own speed).
const clock = new TestClock(new Date(Date.now() - 2 * 60_000));
let stack: InProcessStack;
let push: Awaited<ReturnType<typeof startPushStandIns>>;
let apns: typeof push.apns;
let mail: Awaited<ReturnType<typeof startMailSink>>;
let dir: string;
const call = gatewayCaller(() => stack.gateway.url);

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'reminders-'));
  push = await startPushStandIns(dir);
  apns = push.apns;
  mail = await startMailSink({ port: 0 });
  stack = await startInProcessStack(
    isolatedServiceEnv({
      IDENTITY_BCRYPT_COST: '4',
      ...push.env,
      SMTP_HOST: '127.0.0.1',
      SMTP_PORT: String(mail.port),
      FLASHCARDS_REMINDER_POLL_MS: '100',
      PUSH_MAX_ATTEMPTS: '3',
    }),
    {},
    { flashcards: { clock } },
  );
});
afterAll(async () => {
  await stopAndDrop(stack);
  await push?.close();
  await mail?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

/** The wall-clock time ("HH:MM") in the zone `minutes` after the test clock's now. */
function localTime(zone: string, minutes: number) {
  const at = new Date(clock.now().getTime() + minutes * 60_000);
  return new Intl.DateTimeFormat('en-GB', {
    timeZone: zone,
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).format(at);
}

async function learner(options: {
  zone: string;
  language?: string;
  device?: string;
  settings: Record<string, unknown>;
}) {
  const creds = newCredentials('rm');
  const reg = await call('POST', '/api/v1/auth/register', { body: creds });
  expect(reg.status).toBe(201);
  const token = reg.body.data.accessToken as string;
  const userId = reg.body.data.userId as string;
  const profile = await call('PUT', '/api/users/profile', {
    token,
    body: { timezone: options.zone, ...(options.language && { preferredLanguage: options.language }) },
  });
  expect(profile.status).toBe(200);
  if (options.device) {
    const d = await call('POST', '/api/users/devices', {
      token,
      body: { platform: 'ios', token: options.device, appVersion: '2.0.0', locale: 'en-US' },
    });
    expect(d.status).toBe(201);
  }
  const settings = await call('PUT', '/api/users/settings', { token, body: options.settings });
  // the envelope too, so a failure says which service or deadline answered
  expect({ status: settings.status, body: settings.body }).toMatchObject({ status: 200 });
  return { token, userId, email: creds.email };
}

const reminders = async (token: string, language = 'en') => {
  const r = await call('GET', '/api/notifications', { token, headers: { 'accept-language': language } });
  expect(r.status).toBe(200);
  return (r.body.data.notifications as { type: string; title: string; body: string }[]).filter(
    (n) => n.type === 'study_reminder',
  );
};

const nextReminderAt = async (userId: string) =>
  (
    await stack.services.flashcards.deps.mongo.connection
      .db!.collection('learning_profiles')
      .findOne({ _id: userId as never })
  )?.nextReminderAt as Date | undefined;

describe('study reminders through the gateway', () => {
  it('When users set a reminder two minutes ahead in their zones, Then at its minute the one with a phone gets exactly one push and one in-app reminder, the one with e-mail gets one mail in Spanish, a dead token is removed, and users who met their goal or turned reminders off get none', async () => {
    const phone = randomBytes(32).toString('hex');
    const deadPhone = randomBytes(32).toString('hex');
    apns.script(deadPhone, { status: 410, reason: 'Unregistered' });
    // Kathmandu is UTC+5:45, St John's −3:30 (−2:30 in summer), Kolkata +5:30
    const pushUser = await learner({
      zone: 'Asia/Kathmandu',
      device: phone,
      settings: {
        reminderEnabled: true,
        reminderTime: localTime('Asia/Kathmandu', 2),
        pushNotifications: true,
      },
    });
    const mailUser = await learner({
      zone: 'America/St_Johns',
      language: 'es',
      settings: {
        reminderEnabled: true,
        reminderTime: localTime('America/St_Johns', 2),
        pushNotifications: false,
        emailNotifications: true,
      },
    });
    const deadUser = await learner({
      zone: 'Asia/Kolkata',
      device: deadPhone,
      settings: { reminderEnabled: true, reminderTime: localTime('Asia/Kolkata', 2) },
    });
    const studied = await learner({
      zone: 'Asia/Kolkata',
      settings: { reminderEnabled: true, reminderTime: localTime('Asia/Kolkata', 2), dailyGoal: 1 },
    });
    const off = await learner({
      zone: 'Asia/Kathmandu',
      device: randomBytes(32).toString('hex'),
      settings: { reminderEnabled: false, reminderTime: localTime('Asia/Kathmandu', 2) },
    });
    // the studious user reaches today's goal of one review before the reminder's minute
    const set = await call('POST', '/api/flashcard-sets', { token: studied.token, body: { name: 'rivers' } });
    expect(set.status).toBe(201);
    const card = await call('POST', '/api/flashcards', {
      token: studied.token,
      body: { setId: set.body.data.set.id, word: 'river', translation: 'Fluss' },
    });
    expect(card.status).toBe(201);
    const review = await call('POST', '/api/learning/review', {
      token: studied.token,
      body: { cardId: card.body.data.card.id, rating: 4, responseTime: 1200 },
    });
    expect(review.status).toBe(200);
    expect(await nextReminderAt(off.userId)).toBeUndefined();
    const due = await nextReminderAt(pushUser.userId);
    expect(due!.getTime() - clock.now().getTime()).toBeGreaterThan(60_000);
    expect(due!.getTime() - clock.now().getTime()).toBeLessThanOrEqual(120_000);

    // nothing before its minute
    expect(apns.requests.filter((r) => r.token === phone)).toEqual([]);
    clock.advance(121_000);

    await waitFor(async () => expect(apns.requests.filter((r) => r.token === phone)).toHaveLength(1), {
      timeoutMs: 30_000,
      intervalMs: 100,
    });
    const [pushed] = apns.requests.filter((r) => r.token === phone);
    expect(pushed!.headers['apns-collapse-id']).toBe('study_reminder');
    expect(pushed!.headers['apns-push-type']).toBe('alert');
    expect(pushed!.payload.aps.alert.title.length).toBeGreaterThan(0);
    await waitFor(async () => expect(await reminders(pushUser.token)).toHaveLength(1), { timeoutMs: 10_000 });
    // in German when the app reads in German
    const [german] = await reminders(pushUser.token, 'de');
    const [english] = await reminders(pushUser.token, 'en');
    expect(german!.title).not.toBe(english!.title);

    // the e-mail user: one mail, in the profile's language, and the in-app one
    // (the address's verification mail, with its link, came at sign-up)
    const mailsTo = (to: string) => mail.mails.filter((m) => m.to.includes(to) && m.links.length === 0);
    await waitFor(async () => expect(mailsTo(mailUser.email)).toHaveLength(1), { timeoutMs: 10_000 });
    const spanishTitles = Object.entries(es)
      .filter(([k]) => /^notification\.study_reminder\.\w+\.title$/.test(k))
      .map(([, v]) => v);
    const subject = mailsTo(mailUser.email)[0]!.subject;
    const asPattern = (t: string) =>
      new RegExp(`^${t.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{\w+\}/g, '\\d+')}$`);
    expect(spanishTitles.some((t) => asPattern(t).test(subject))).toBe(true);
    expect(await reminders(mailUser.token)).toHaveLength(1);

    // the dead token: APNs said 410, identity forgot it
    await waitFor(
      async () => {
        const devices = await call('GET', '/api/users/devices', { token: deadUser.token });
        expect(devices.body.data.devices).toEqual([]);
      },
      { timeoutMs: 10_000 },
    );
    expect(await reminders(deadUser.token)).toHaveLength(1);

    // decided, and none said: the goal-met user's schedule moved to tomorrow without a reminder
    await waitFor(
      async () =>
        expect((await nextReminderAt(studied.userId))!.getTime()).toBeGreaterThan(clock.now().getTime()),
      { timeoutMs: 10_000 },
    );
    expect(await reminders(studied.token)).toEqual([]);
    expect(await reminders(off.token)).toEqual([]);

    // the same day again (a later time set after the reminder went out): still only one
    const later = await call('PUT', '/api/users/settings', {
      token: pushUser.token,
      body: { reminderTime: localTime('Asia/Kathmandu', 1) },
    });
    expect(later.status).toBe(200);
    clock.advance(61_000);
    await waitFor(
      async () =>
        expect((await nextReminderAt(pushUser.userId))!.getTime() - clock.now().getTime()).toBeGreaterThan(
          3_600_000,
        ),
      { timeoutMs: 10_000 },
    );
    expect(apns.requests.filter((r) => r.token === phone)).toHaveLength(1);
    expect(await reminders(pushUser.token)).toHaveLength(1);
  });

  it('When a reminder was turned on before flashcards scheduled reminders, Then the app reading the profile hands it over and it fires once at its minute', async () => {
    const phone = randomBytes(32).toString('hex');
    const early = await learner({
      zone: 'America/St_Johns',
      device: phone,
      settings: { pushNotifications: true },
    });
    // the setting as an earlier release stored it: in identity only
    await stack.services.identity.deps.mongo.connection.db!.collection('users').updateOne(
      { _id: early.userId as never },
      {
        $set: {
          'settings.reminderEnabled': true,
          'settings.reminderTime': localTime('America/St_Johns', 2),
        },
      },
    );
    expect(await nextReminderAt(early.userId)).toBeUndefined();

    // a read whose call to flashcards fails or misses its deadline (a loaded machine) answers
    // without the counts and hands nothing over; the app's next read does, as at its next launch
    let due: Date | undefined;
    await waitFor(
      async () => {
        const profile = await call('GET', '/api/users/profile', { token: early.token });
        expect(profile.status).toBe(200);
        due = await nextReminderAt(early.userId);
        expect(due).toBeDefined();
      },
      { timeoutMs: 15_000, intervalMs: 200 },
    );
    expect(due!.getTime() - clock.now().getTime()).toBeGreaterThan(60_000);
    expect(due!.getTime() - clock.now().getTime()).toBeLessThanOrEqual(120_000);

    clock.advance(121_000);
    await waitFor(async () => expect(apns.requests.filter((r) => r.token === phone)).toHaveLength(1), {
      timeoutMs: 30_000,
      intervalMs: 100,
    });
    await waitFor(async () => expect(await reminders(early.token)).toHaveLength(1), { timeoutMs: 10_000 });
    // read again after it went out: the schedule is tomorrow's, nothing is sent again
    expect((await call('GET', '/api/users/profile', { token: early.token })).status).toBe(200);
    expect((await nextReminderAt(early.userId))!.getTime() - clock.now().getTime()).toBeGreaterThan(
      3_600_000,
    );
    expect(apns.requests.filter((r) => r.token === phone)).toHaveLength(1);
  });
});
