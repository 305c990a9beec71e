import type { Clock } from '@lingua/auth';
import { type AccountMail, type DomainEvent, openAccountMail } from '@lingua/contracts';

export interface Mail {
  to: string;
  subject: string;
  text: string;
  html: string;
  /** Lets the receiving side de-duplicate a redelivered event's e-mail. */
  messageId: string;
}

export interface Mailer {
  send(mail: Mail): Promise<void>;
}

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

type AccountEmailEvent =
  DomainEvent<'user.password_reset_requested'> | DomainEvent<'user.email_verification_requested'>;

/** The e-mail an account event asks for, from its opened recipient and link (pure). */
export function accountEmail(event: AccountEmailEvent, opened: AccountMail): Mail {
  const reset = event.event === 'user.password_reset_requested';
  const link = opened.url;
  const expires = new Date(event.data.expiresAt).toUTCString();
  const subject = reset ? 'Reset your Lingua password' : 'Verify your e-mail address for Lingua';
  const intro = reset
    ? 'Someone (hopefully you) asked to reset the password of your Lingua account.'
    : 'Please confirm that this e-mail address belongs to your Lingua account.';
  const action = reset ? 'Reset password' : 'Verify e-mail';
  const outro = reset
    ? 'If you did not ask for this, ignore this e-mail: your password stays unchanged.'
    : '';
  return {
    to: opened.email,
    subject,
    messageId: `<${event.id}@lingua.local>`,
    text: `${intro}\n\n${action}: ${link}\n\nThe link expires ${expires}.\n${outro}\n`,
    html:
      `<p>${escapeHtml(intro)}</p><p><a href="${escapeHtml(link)}">${action}</a></p>` +
      `<p>The link expires ${escapeHtml(expires)}.</p>${outro && `<p>${escapeHtml(outro)}</p>`}`,
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
