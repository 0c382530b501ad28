import nodemailer, { type Transporter } from 'nodemailer';
import { logger } from '../logger.js';

export interface Mail {
  to: string;
  subject: string;
  text: string;
  /** Stable id, so a receiving system can recognise a resend. */
  messageId: string;
}

export interface Mailer {
  send(mail: Mail): Promise<void>;
  close(): void;
}

/**
 * How long an SMTP conversation may stall, well below the outbox's lease (60 s, outbox-worker.ts):
 * a send still under way when its lease lapses would be sent again by another worker. nodemailer's
 * own are 2 minutes to connect and 10 of silence. Settings in `SMTP_URL`'s query take precedence.
 */
const SMTP_TIMEOUTS = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 20_000 };

/**
 * Mail through nodemailer: SMTP when `SMTP_URL` is set (smtp://user:pass@host:port), otherwise
 * each message is written to the log (nodemailer's JSON transport renders it without sending).
 */
export function createMailer(smtpUrl: string | undefined, from: string): Mailer {
  const transport: Transporter = smtpUrl
    ? nodemailer.createTransport({ url: smtpUrl, ...SMTP_TIMEOUTS })
    : nodemailer.createTransport({ jsonTransport: true });
  return {
    async send(mail) {
      const info = await transport.sendMail({
        from,
        to: mail.to,
        subject: mail.subject,
        text: mail.text,
        messageId: mail.messageId,
      });
      if (!smtpUrl)
        logger.info(
          { mail: JSON.parse(String((info as { message: string }).message)) },
          'mail (no SMTP_URL: logged, not sent)',
        );
    },
    close: () => transport.close(),
  };
}
