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
 * Mail through nodemailer: SMTP when `SMTP_URL` is set (smtp://user:pass@host:port), otherwise
 * each message is written to the log (nodemailer's JSON transport renders it without sending).
 */
export function createMailer(smtpUrl: string | undefined, from: string): Mailer {
  const transport: Transporter = smtpUrl
    ? nodemailer.createTransport(smtpUrl)
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
