import type { Clock } from '@lingua/auth';
import type { DomainEvent } from '@lingua/contracts';

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

/** The e-mail an account event asks for (pure). */
export function accountEmail(
  event: DomainEvent<'user.password_reset_requested'> | DomainEvent<'user.email_verification_requested'>,
): Mail {
  const reset = event.event === 'user.password_reset_requested';
  const link = reset
    ? (event as DomainEvent<'user.password_reset_requested'>).data.resetUrl
    : (event as DomainEvent<'user.email_verification_requested'>).data.verifyUrl;
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
    to: event.data.email,
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
 * must not mail users stale links); an SMTP failure throws, so the event is retried.
 */
export async function sendAccountEmail(
  event: DomainEvent<'user.password_reset_requested'> | DomainEvent<'user.email_verification_requested'>,
  deps: { mailer: Mailer; clock: Clock },
): Promise<boolean> {
  if (new Date(event.data.expiresAt).getTime() <= deps.clock.now().getTime()) return false;
  await deps.mailer.send(accountEmail(event));
  return true;
}
