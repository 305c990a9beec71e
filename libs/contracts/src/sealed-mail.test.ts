import { randomBytes } from 'node:crypto';
import { makeEvent } from './event-envelope';
import { openAccountMail, sealAccountMail } from './sealed-mail';

describe('sealed account e-mail', () => {
  const key = randomBytes(32);
  const mail = { email: 'ann@example.com', url: 'https://app.test/reset-password?token=s3cr3t-t0ken' };

  it('When sealed, Then neither the link, its token nor the address is readable, and the key opens it', () => {
    const sealed = sealAccountMail(key, 'user.password_reset_requested', mail);
    const event = makeEvent('user.password_reset_requested', {
      userId: 'u1',
      mail: sealed,
      expiresAt: '2026-01-01T00:00:00Z',
    });
    const bytes = JSON.stringify(event);
    for (const clear of ['s3cr3t-t0ken', 'reset-password', 'ann@example.com'])
      expect(bytes).not.toContain(clear);
    expect(openAccountMail(key, 'user.password_reset_requested', sealed)).toEqual(mail);
  });

  it('When opened with a wrong key, Then it fails', () => {
    const sealed = sealAccountMail(key, 'user.password_reset_requested', mail);
    expect(() => openAccountMail(randomBytes(32), 'user.password_reset_requested', sealed)).toThrow();
  });

  it('When moved to the other event or tampered with, Then it fails', () => {
    const sealed = sealAccountMail(key, 'user.password_reset_requested', mail);
    expect(() => openAccountMail(key, 'user.email_verification_requested', sealed)).toThrow();
    const [v, iv, body, tag] = sealed.split('.') as [string, string, string, string];
    const flipped = Buffer.from(body, 'base64url');
    flipped[0]! ^= 1;
    expect(() =>
      openAccountMail(
        key,
        'user.password_reset_requested',
        [v, iv, flipped.toString('base64url'), tag].join('.'),
      ),
    ).toThrow();
    expect(() => openAccountMail(key, 'user.password_reset_requested', 'v1.abc')).toThrow();
  });

  it('When the key is not 32 bytes, Then it refuses to seal', () => {
    expect(() => sealAccountMail(randomBytes(16), 'user.password_reset_requested', mail)).toThrow();
  });

  it('When a link is put in clear on the event, Then the schema refuses it', () => {
    expect(() =>
      makeEvent('user.email_verification_requested', {
        userId: 'u1',
        mail: 'https://app.test/verify-email?token=x',
        expiresAt: '2026-01-01T00:00:00Z',
      }),
    ).toThrow();
  });
});
