import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { type ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { DEV_EMAIL_LINK_KEY, type RunningService } from '@lingua/bootstrap';
import { sealAccountMail } from '@lingua/contracts';
import { isolatedServiceEnv } from '@lingua/testing';
import { stopAndDrop, publish, startNotifications, waitFor } from './support';

jest.setTimeout(120_000);

// A real SMTP server on loopback receives what nodemailer sends; a small HTTP server stands in for
// the page the link opens (identity's reset / verify page).
let service: RunningService;
let smtp: SMTPServer;
let smtpPort: number;
let page: http.Server;
let pageUrl: string;
const mails: ParsedMail[] = [];
const pageHits: string[] = [];
let failSmtp = false;
let refusals = 0;

beforeAll(async () => {
  smtp = new SMTPServer({
    authOptional: true,
    closeTimeout: 500,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, _session, callback) {
      if (failSmtp) {
        refusals += 1;
        stream.resume();
        stream.on('end', () => callback(new Error('451 try again later')));
        return;
      }
      simpleParser(stream)
        .then((mail) => {
          mails.push(mail);
          callback();
        })
        .catch(callback);
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  smtpPort = (smtp.server.address() as AddressInfo).port;

  page = http.createServer((req, res) => {
    pageHits.push(req.url ?? '');
    res.writeHead(200, { 'content-type': 'text/html' }).end('<h1>Choose a new password</h1>');
  });
  await new Promise<void>((resolve) => page.listen(0, '127.0.0.1', resolve));
  pageUrl = `http://127.0.0.1:${(page.address() as AddressInfo).port}`;

  // the service builds its own SMTP mailer from SMTP_HOST / SMTP_PORT
  ({ service } = await startNotifications(
    { useSmtp: true },
    // retries 100, 200, 400 and 800 ms apart, not the production 1 s, 5 s, 30 s and 60 s
    isolatedServiceEnv({
      SMTP_HOST: '127.0.0.1',
      SMTP_PORT: String(smtpPort),
      EVENTS_RETRY_BACKOFF_MS: '100,200',
    }),
  ));
});
afterAll(async () => {
  await stopAndDrop(service);
  await new Promise<void>((resolve) => smtp.close(() => resolve()));
  page.closeAllConnections();
  await new Promise<void>((resolve) => page.close(() => resolve()));
});

// what identity puts on the events: recipient and link sealed with the (development) EMAIL_LINK_KEY
const key = Buffer.from(DEV_EMAIL_LINK_KEY, 'base64');
const resetMail = (email: string, url: string) =>
  sealAccountMail(key, 'user.password_reset_requested', { email, url });

const linkIn = (mail: ParsedMail) => {
  const match = /https?:\/\/\S+/.exec(mail.text ?? '');
  if (!match) throw new Error('no link in the e-mail');
  return match[0];
};

describe('account e-mails', () => {
  it('When a password reset is requested, Then the user receives an e-mail whose link opens the reset page', async () => {
    const email = `${randomUUID()}@example.com`;
    const token = randomUUID();
    await publish(service, 'user.password_reset_requested', {
      userId: randomUUID(),
      mail: resetMail(email, `${pageUrl}/reset-password?token=${token}`),
      expiresAt: new Date(Date.now() + 15 * 60_000).toISOString(),
    });
    const mail = await waitFor(() => {
      const m = mails.find((x) => x.to && !Array.isArray(x.to) && x.to.text === email);
      expect(m).toBeDefined();
      return m!;
    });
    expect(mail.subject).toBe('Reset your Lingua password');
    expect(mail.from?.text).toContain('no-reply@lingua.local');
    expect(mail.html).toContain(`reset-password?token=${token}`);

    const res = await fetch(linkIn(mail));
    expect(res.status).toBe(200);
    expect(pageHits).toContain(`/reset-password?token=${token}`);
  });

  it('When an e-mail verification is requested, Then the verification e-mail carries the link', async () => {
    const email = `${randomUUID()}@example.com`;
    await publish(service, 'user.email_verification_requested', {
      userId: randomUUID(),
      mail: sealAccountMail(key, 'user.email_verification_requested', {
        email,
        url: `${pageUrl}/verify-email?token=abc`,
      }),
      expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
    });
    const mail = await waitFor(() => {
      const m = mails.find((x) => x.to && !Array.isArray(x.to) && x.to.text === email);
      expect(m).toBeDefined();
      return m!;
    });
    expect(mail.subject).toBe('Verify your e-mail address for Lingua');
    expect(linkIn(mail)).toBe(`${pageUrl}/verify-email?token=abc`);
    expect((await fetch(linkIn(mail))).status).toBe(200);
  });

  it('When the SMTP server refuses for a while, Then the e-mail is sent on a retry, once', async () => {
    failSmtp = true;
    const before = refusals;
    const email = `${randomUUID()}@example.com`;
    await publish(service, 'user.password_reset_requested', {
      userId: randomUUID(),
      mail: resetMail(email, `${pageUrl}/reset-password?token=retry`),
      expiresAt: new Date(Date.now() + 15 * 60_000).toISOString(),
    });
    // the first attempt was refused: from now on the server accepts
    await waitFor(() => expect(refusals).toBeGreaterThan(before));
    failSmtp = false;
    // the consumer retries after 1 s
    await waitFor(
      () => expect(mails.filter((x) => !Array.isArray(x.to) && x.to?.text === email)).toHaveLength(1),
      {
        timeoutMs: 60_000,
      },
    );
  });

  it('When the sealed recipient does not open (another key), Then nothing is mailed and the event is dead-lettered after the consumer attempts, not retried for ever', async () => {
    const otherKey = Buffer.alloc(32, 7);
    const email = `${randomUUID()}@example.com`;
    const event = await publish(service, 'user.password_reset_requested', {
      userId: randomUUID(),
      mail: sealAccountMail(otherKey, 'user.password_reset_requested', {
        email,
        url: `${pageUrl}/reset-password?token=k`,
      }),
      expiresAt: new Date(Date.now() + 15 * 60_000).toISOString(),
    });
    const { jsm } = service.deps.nats;
    // five failed attempts, 100, 200, 400 and 800 ms apart (EVENTS_RETRY_BACKOFF_MS above)
    const started = Date.now();
    const letter = await waitFor(
      async () => {
        const found = await jsm.streams.getMessage(`${service.deps.bus.streamName}_DLQ`, {
          last_by_subj: `${service.deps.bus.subjectPrefix}_dlq.notifications`,
        });
        expect(found?.json<{ id: string }>().id).toBe(event.id);
        return found!;
      },
      { timeoutMs: 30_000, intervalMs: 100 },
    );
    expect(letter.header.get('x-dead-letter-reason')).toMatch(/account e-mail does not open/);
    expect(letter.header.get('x-failed-attempts')).toBe('5');
    // paced by the schedule: at least its 1.5 s of delays
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_400);
    expect(mails.some((x) => !Array.isArray(x.to) && x.to?.text === email)).toBe(false);
  }, 60_000);

  it('When the link has already expired, Then no e-mail is sent', async () => {
    const expired = `${randomUUID()}@example.com`;
    const fresh = `${randomUUID()}@example.com`;
    const userId = randomUUID();
    const url = `${pageUrl}/reset-password?token=x`;
    await publish(service, 'user.password_reset_requested', {
      userId,
      mail: resetMail(expired, url),
      expiresAt: new Date(Date.now() - 1_000).toISOString(),
    });
    await publish(service, 'user.password_reset_requested', {
      userId,
      mail: resetMail(fresh, url),
      expiresAt: new Date(Date.now() + 60_000).toISOString(),
    });
    // events are handled in order: once the later one arrived, the earlier one was handled
    await waitFor(() => expect(mails.some((x) => !Array.isArray(x.to) && x.to?.text === fresh)).toBe(true));
    expect(mails.some((x) => !Array.isArray(x.to) && x.to?.text === expired)).toBe(false);
  });
});
