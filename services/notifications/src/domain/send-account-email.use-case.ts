import type { Clock } from '@lingua/auth';
import { type AccountMail, type DomainEvent, openAccountMail } from '@lingua/contracts';
import { LANGUAGES, type Language, type MessageKey, translate } from '@lingua/http';

export interface Mail {
  to: string;
  subject: string;
  text: string;
  html: string;
  /** Content-Language of the mail. */
  language: string;
  /** Lets the receiving side de-duplicate a redelivered event's e-mail. */
  messageId: string;
}

export interface Mailer {
  send(mail: Mail): Promise<void>;
}

export const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

type AccountEmailEvent =
  DomainEvent<'user.password_reset_requested'> | DomainEvent<'user.email_verification_requested'>;

/** The language of a mail: the one the user asked in, when we write it; English otherwise. */
const mailLanguage = (asked: string | undefined): Language =>
  (LANGUAGES as readonly string[]).includes(asked ?? '') ? (asked as Language) : 'en';

/** The e-mail an account event asks for, from its opened recipient and link, in the user's language (pure). */
export function accountEmail(event: AccountEmailEvent, opened: AccountMail): Mail {
  const reset = event.event === 'user.password_reset_requested';
  const language = mailLanguage(opened.language);
  const t = (key: MessageKey, params?: Record<string, string>) => translate(key, params, language);
  const link = opened.url;
  // timeStyle 'long' names the zone (UTC); dateStyle cannot be combined with timeZoneName
  const expires = new Intl.DateTimeFormat(language, {
    dateStyle: 'long',
    timeStyle: 'long',
    timeZone: 'UTC',
  }).format(new Date(event.data.expiresAt));
  const kind = reset ? 'reset' : 'verify';
  const subject = t(`mail.${kind}.subject`);
  const intro = t(`mail.${kind}.intro`);
  const action = t(`mail.${kind}.action`);
  const outro = reset ? t('mail.reset.outro') : '';
  const expiry = t('mail.expires', { expires });
  return {
    to: opened.email,
    subject,
    language,
    messageId: `<${event.id}@lingua.local>`,
    text: `${intro}\n\n${action}: ${link}\n\n${expiry}\n${outro}\n`,
    html:
      `<p>${escapeHtml(intro)}</p><p><a href="${escapeHtml(link)}">${escapeHtml(action)}</a></p>` +
      `<p>${escapeHtml(expiry)}</p>${outro && `<p>${escapeHtml(outro)}</p>`}`,
  };
}

/**
 * Sends the password-reset or verification e-mail. An expired link is not sent (a replayed stream
 * must not mail users stale links); an SMTP failure throws, so the event is retried until the server
 * takes it. The recipient and link arrive sealed (only this service and identity hold the key); one
 * that does not open throws an error marked `permanent` (no retry can help), so the consumer
 * dead-letters it after its attempts.
 */
export async function sendAccountEmail(
  event: AccountEmailEvent,
  deps: { mailer: Mailer; clock: Clock; emailLinkKey: Uint8Array },
): Promise<boolean> {
  if (new Date(event.data.expiresAt).getTime() <= deps.clock.now().getTime()) return false;
  let opened: AccountMail;
  try {
    opened = openAccountMail(deps.emailLinkKey, event.event, event.data.mail);
  } catch (err) {
    throw Object.assign(
      new Error(`account e-mail does not open: ${(err as Error).message}`, { cause: err }),
      {
        permanent: true,
      },
    );
  }
  await deps.mailer.send(accountEmail(event, opened));
  return true;
}
