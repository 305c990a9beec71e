import { isolatedServiceEnv, waitFor } from '@lingua/testing';
import { type InProcessStack, startInProcessStack } from '../platform/in-process-stack';
import { clientAddress, gatewayCaller, newCredentials, stopAndDrop } from '../platform/gateway-caller';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { startMailSink } = require('../../deploy/local/mail-sink.js') as {
  startMailSink(o: { port: number }): Promise<{
    port: number;
    mails: { to: string; subject: string; links: string[] }[];
    close(): Promise<void>;
  }>;
};

// The mailed links, followed on a phone: the association files that make iOS and Android open the
// app, and, in a browser without the app, the pages at the links' paths that complete the action
// with a form (a GET never spends the token: mail scanners open links first).
jest.setTimeout(120_000);

const APPLE_APP = 'ABCDE12345.com.lingua.app';
const FINGERPRINT =
  '14:6D:E9:83:C5:73:06:50:D8:EE:B9:95:2F:34:FC:64:16:A0:83:42:E6:1D:BE:A8:8A:04:96:B2:3F:CF:44:E5';

let stack: InProcessStack;
let sink: Awaited<ReturnType<typeof startMailSink>>;
const call = gatewayCaller(() => stack.gateway.url);

beforeAll(async () => {
  sink = await startMailSink({ port: 0 });
  stack = await startInProcessStack(
    isolatedServiceEnv({
      IDENTITY_BCRYPT_COST: '4',
      IDENTITY_PUBLIC_BASE_URL: 'https://app.lingua.test',
      IDENTITY_APPLE_APP_IDS: APPLE_APP,
      IDENTITY_ANDROID_APPS: `com.lingua.app=${FINGERPRINT}`,
      SMTP_PORT: String(sink.port),
    }),
  );
});
afterAll(async () => {
  await stopAndDrop(stack);
  await sink?.close();
});

/** The link of the latest e-mail to `email` whose subject matches, moved onto the gateway. */
async function mailedLink(email: string, subject: RegExp): Promise<URL> {
  const link = await waitFor(
    () => {
      const mail = sink.mails.filter((m) => m.to.includes(email) && subject.test(m.subject)).at(-1);
      const found = mail?.links.find((l) => l.includes('token='));
      expect(found).toBeDefined();
      return found!;
    },
    { timeoutMs: 30_000, intervalMs: 100 },
  );
  const url = new URL(link);
  expect(url.origin).toBe('https://app.lingua.test');
  return new URL(`${url.pathname}${url.search}`, stack.gateway.url);
}

/** A browser on a phone: GET the page, keep its cookie, read the form's hidden fields. */
async function openPage(url: URL) {
  const from = clientAddress();
  const res = await fetch(url, { headers: { 'x-forwarded-for': from } });
  const html = await res.text();
  const field = (name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1];
  const cookie = (res.headers.get('set-cookie') ?? '').split(';')[0]!;
  return { res, html, cookie, from, token: field('token'), csrf: field('csrf') };
}

const submit = (path: string, from: string, fields: Record<string, string>, cookie?: string) =>
  fetch(new URL(path, stack.gateway.url), {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      'x-forwarded-for': from,
      ...(cookie && { cookie }),
    },
    body: new URLSearchParams(fields).toString(),
  });

async function register() {
  const u = newCredentials('ln');
  const res = await call('POST', '/api/auth/register', { body: { ...u, confirmPassword: u.password } });
  expect(res.status).toBe(201);
  return u;
}

describe('mailed links through the gateway', () => {
  it('When iOS and Android fetch the association files, Then they name the configured apps and the links paths', async () => {
    const apple = await fetch(`${stack.gateway.url}/.well-known/apple-app-site-association`);
    expect(apple.status).toBe(200);
    expect(apple.headers.get('content-type')).toMatch(/^application\/json/);
    const aasa = (await apple.json()) as {
      applinks: { details: { appIDs: string[]; components: { '/': string }[] }[] };
    };
    expect(aasa.applinks.details[0]!.appIDs).toEqual([APPLE_APP]);
    expect(aasa.applinks.details[0]!.components.map((c) => c['/'])).toEqual([
      '/verify-email',
      '/reset-password',
    ]);

    const android = await fetch(`${stack.gateway.url}/.well-known/assetlinks.json`);
    expect(android.status).toBe(200);
    expect(await android.json()).toEqual([
      {
        relation: ['delegate_permission/common.handle_all_urls'],
        target: {
          namespace: 'android_app',
          package_name: 'com.lingua.app',
          sha256_cert_fingerprints: [FINGERPRINT],
        },
      },
    ]);
  });

  it('When a user opens the verification link in a browser and confirms, Then the address is verified; opening alone (a mail scanner) spends nothing', async () => {
    const u = await register();
    const link = await mailedLink(u.email, /Verify/);
    const scanned = await openPage(link); // a scanner's GET
    expect(scanned.res.status).toBe(200);
    const opened = await openPage(link); // the user's
    expect(opened.res.status).toBe(200);
    expect(opened.res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(opened.res.headers.get('referrer-policy')).toBe('no-referrer');
    expect(opened.res.headers.get('cache-control')).toBe('no-store');
    expect(opened.cookie).toMatch(/^lingua_link_csrf=/);
    expect(opened.res.headers.get('set-cookie')).toMatch(/HttpOnly/i);
    expect(opened.res.headers.get('set-cookie')).toMatch(/SameSite=Strict/i);
    expect(opened.token).toBe(link.searchParams.get('token'));

    // a forged cross-site form (no cookie, a guessed value) is refused and spends nothing
    const forged = await submit('/verify-email', opened.from, { token: opened.token!, csrf: 'guess' });
    expect(forged.status).toBe(403);

    const done = await submit(
      '/verify-email',
      opened.from,
      { token: opened.token!, csrf: opened.csrf! },
      opened.cookie,
    );
    expect(done.status).toBe(200);
    expect(await done.text()).toContain('E-mail address confirmed');
    const login = await call('POST', '/api/auth/login', { body: { email: u.email, password: u.password } });
    expect(login.status).toBe(200);
    const profile = await call('GET', '/api/users/profile', { token: login.body.data.accessToken });
    expect(profile.body.data.user ?? profile.body.data).toMatchObject({ emailVerified: true });

    // the link is single use: submitted again, the page says so
    const again = await submit(
      '/verify-email',
      opened.from,
      { token: opened.token!, csrf: opened.csrf! },
      opened.cookie,
    );
    expect(again.status).toBe(400);
    expect(await again.text()).toMatch(/invalid, expired or already used|invalid/i);
  });

  it('When a user opens the reset link and sets a new password in the page, Then the new password signs in and the old one does not', async () => {
    const u = await register();
    const forgot = await call('POST', '/api/auth/forgot-password', { body: { email: u.email } });
    expect(forgot.status).toBe(200);
    const opened = await openPage(await mailedLink(u.email, /[Rr]eset/));
    expect(opened.res.status).toBe(200);
    expect(opened.html).toContain('name="newPassword"');

    const mismatch = await submit(
      '/reset-password',
      opened.from,
      { token: opened.token!, csrf: opened.csrf!, newPassword: 'Fresh12345', confirmPassword: 'Other12345' },
      opened.cookie,
    );
    expect(mismatch.status).toBe(400);
    expect(await mismatch.text()).toContain('That did not work');

    const done = await submit(
      '/reset-password',
      opened.from,
      { token: opened.token!, csrf: opened.csrf!, newPassword: 'Fresh12345', confirmPassword: 'Fresh12345' },
      opened.cookie,
    );
    expect(done.status).toBe(200);
    expect(await done.text()).toContain('Password changed');
    const fresh = await call('POST', '/api/auth/login', { body: { email: u.email, password: 'Fresh12345' } });
    expect(fresh.status).toBe(200);
    const old = await call('POST', '/api/auth/login', { body: { email: u.email, password: u.password } });
    expect(old.status).toBe(401);
  });

  it('When a page is opened without its token or with markup in it, Then it answers 400 or shows the text inert', async () => {
    const bare = await fetch(`${stack.gateway.url}/reset-password`, {
      headers: { 'x-forwarded-for': clientAddress() },
    });
    expect(bare.status).toBe(400);
    const hostile = await openPage(
      new URL(`/verify-email?token=${encodeURIComponent('"><script>x()</script>')}`, stack.gateway.url),
    );
    expect(hostile.html).not.toContain('<script>');
  });
});
