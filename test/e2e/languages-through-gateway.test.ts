import { isolatedServiceEnv, waitFor } from '@lingua/testing';
import { type InProcessStack, startInProcessStack } from '../platform/in-process-stack';
import { gatewayCaller, newCredentials, stopAndDrop } from '../platform/gateway-caller';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { startMailSink } = require('../../deploy/local/mail-sink.js') as {
  startMailSink(o: { port: number }): Promise<{
    port: number;
    mails: { to: string; subject: string; text: string }[];
    close(): Promise<void>;
  }>;
};

// What the user reads, in the language the app asks for (Accept-Language): error messages and
// validation details, plan names and prices, in-app notifications and account e-mails, each with
// Content-Language; English for a language not offered.
jest.setTimeout(120_000);

let stack: InProcessStack;
let sink: Awaited<ReturnType<typeof startMailSink>>;
const call = gatewayCaller(() => stack.gateway.url);

beforeAll(async () => {
  sink = await startMailSink({ port: 0 });
  stack = await startInProcessStack(
    isolatedServiceEnv({ IDENTITY_BCRYPT_COST: '4', SMTP_PORT: String(sink.port) }),
  );
});
afterAll(async () => {
  await stopAndDrop(stack);
  await sink?.close();
});

const lang = (language: string) => ({ 'accept-language': language });

describe('languages through the gateway', () => {
  it('When a German app sends an invalid sign-up, Then the message and the field details are German, with Content-Language: de', async () => {
    const res = await call('POST', '/api/v1/auth/register', {
      body: { email: 'not-an-email', username: 'x', password: 'Secret123', nickname: 'x' },
      headers: lang('de-DE,de;q=0.9,en;q=0.5'),
    });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-language')).toBe('de');
    expect(res.headers.get('vary')).toMatch(/Accept-Language/i);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect(res.body.error.message).toBe('Die Eingabe ist ungültig');
    // zod's own messages in German (a message a schema sets itself stays as written)
    expect(JSON.stringify(res.body.error.details)).toContain('Unbekannter Schlüssel: \\"nickname\\"');

    const english = await call('POST', '/api/v1/auth/register', {
      body: { email: 'not-an-email', username: 'x', password: 'Secret123' },
      headers: lang('ja'),
    });
    expect(english.headers.get('content-language')).toBe('en');
    expect(english.body.error.message).toBe('Validation failed');
  });

  it('When the edge refuses a Spanish app (no token), Then the refusal is Spanish too', async () => {
    const res = await call('GET', '/api/users/profile', { headers: lang('es-ES') });
    expect(res.status).toBe(401);
    expect(res.headers.get('content-language')).toBe('es');
    expect(res.body.error.message).toBe('Es necesario iniciar sesión');
  });

  it('When a French app lists the plans, Then names and prices are written as French reads them; amounts stay', async () => {
    const res = await call('GET', '/api/v1/subscriptions/plans', { headers: lang('fr') });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-language')).toBe('fr');
    const plan = res.body.data.available_plans[0];
    expect(plan.description).toMatch(/^Dialogues illimités/);
    expect(plan.pricing.regular_price).toMatchObject({ amount: 999, currency: 'USD' });
    expect(plan.pricing.regular_price.display).toBe(
      `${new Intl.NumberFormat('fr', { style: 'currency', currency: 'USD' }).format(9.99)}/mois`,
    );
    const english = await call('GET', '/api/v1/subscriptions/plans');
    expect(english.body.data.available_plans[0].pricing.regular_price.display).toBe('$9.99/month');
  });

  it('When a Russian user registers and reads the notifications, Then the welcome and the verification e-mail are Russian', async () => {
    const u = newCredentials('ru');
    const reg = await call('POST', '/api/auth/register', {
      body: { ...u, confirmPassword: u.password },
      headers: lang('ru'),
    });
    expect(reg.status).toBe(201);
    const mail = await waitFor(
      () => {
        const found = sink.mails.find((m) => m.to.includes(u.email));
        expect(found).toBeDefined();
        return found!;
      },
      { timeoutMs: 30_000, intervalMs: 100 },
    );
    expect(mail.subject).toBe('Подтвердите адрес e-mail для Lingua');
    expect(mail.text).toContain('Подтвердить e-mail');

    const login = await call('POST', '/api/auth/login', { body: { email: u.email, password: u.password } });
    const token = login.body.data.accessToken as string;
    const welcome = await waitFor(
      async () => {
        const list = await call('GET', '/api/notifications', { token, headers: lang('ru') });
        expect(list.body.data.notifications).toHaveLength(1);
        return { list, n: list.body.data.notifications[0] as { title: string; body: string } };
      },
      { timeoutMs: 20_000, intervalMs: 200 },
    );
    expect(welcome.list.headers.get('content-language')).toBe('ru');
    expect(welcome.n.title).toBe(`Добро пожаловать, ${u.username}!`);
    expect(welcome.n.body).toMatch(/^Ваш аккаунт готов/);
    // the same notification, read in English
    const english = await call('GET', '/api/notifications', { token });
    expect(english.body.data.notifications[0].title).toBe(`Welcome, ${u.username}!`);
  });
});
