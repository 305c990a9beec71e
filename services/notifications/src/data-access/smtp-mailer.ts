import nodemailer from 'nodemailer';
import type { Mailer } from '../domain/send-account-email.use-case';

/** E-mail over SMTP with nodemailer (pooled connections). */
export function smtpMailer(options: {
  host: string;
  port: number;
  secure: boolean;
  user?: string | undefined;
  password?: string | undefined;
  from: string;
}): Mailer & { close(): void } {
  const transport = nodemailer.createTransport({
    host: options.host,
    port: options.port,
    secure: options.secure,
    pool: true,
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 30_000,
    ...(options.user && { auth: { user: options.user, pass: options.password ?? '' } }),
    // local and test SMTP servers offer STARTTLS with self-signed certificates
    tls: { rejectUnauthorized: options.secure },
  });
  return {
    async send(mail) {
      const { language, ...message } = mail;
      await transport.sendMail({ from: options.from, ...message, headers: { 'Content-Language': language } });
    },
    close: () => transport.close(),
  };
}
