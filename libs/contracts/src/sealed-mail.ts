import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { z } from 'zod';

/**
 * The recipient and link of an account e-mail, sealed for the notifications service alone.
 * Events stay 7 days in a stream every subscriber of `events.>` can read, so the live reset or
 * verification link (and the address it goes to) travels only as AES-256-GCM ciphertext under
 * `EMAIL_LINK_KEY`, which only identity and notifications hold. It lives here, beside the event
 * schemas, because it is part of those two events' contract: both sides must agree on the format.
 */
export interface AccountMail {
  email: string;
  url: string;
  /** The language the user asked in (Accept-Language of the request that asked for the mail). */
  language?: string | undefined;
}

const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const AccountMailSchema = z.object({
  email: z.string().min(1),
  url: z.string().min(1),
  language: z.string().max(35).optional(),
});

const checkKey = (key: Uint8Array) => {
  if (key.length !== 32) throw new Error('EMAIL_LINK_KEY must be 32 bytes');
};

/**
 * `v1.<iv>.<ciphertext>.<tag>` (base64url). The event name is authenticated data, so a sealed
 * reset link cannot be passed off as a verification link or the reverse.
 */
export function sealAccountMail(key: Uint8Array, event: string, mail: AccountMail): string {
  checkKey(key);
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(event));
  const body = Buffer.concat([cipher.update(JSON.stringify(mail), 'utf8'), cipher.final()]);
  return [VERSION, iv, body, cipher.getAuthTag()]
    .map((p) => (typeof p === 'string' ? p : p.toString('base64url')))
    .join('.');
}

/** Opens what sealAccountMail sealed; throws on a wrong key, another event name or any tampering. */
export function openAccountMail(key: Uint8Array, event: string, sealed: string): AccountMail {
  checkKey(key);
  const [version, iv, body, tag, ...rest] = sealed.split('.');
  if (version !== VERSION || !iv || body === undefined || !tag || rest.length > 0)
    throw new Error('not a sealed account e-mail');
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'), {
    authTagLength: TAG_BYTES,
  });
  decipher.setAAD(Buffer.from(event));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  const plain = Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]);
  return AccountMailSchema.parse(JSON.parse(plain.toString('utf8')));
}
