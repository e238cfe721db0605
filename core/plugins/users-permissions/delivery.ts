/**
 * Mail (nodemailer over SMTP_URL, else .eml files in the outbox) and SMS (POST JSON {to, text} to
 * SMS_WEBHOOK_URL, else *.sms.txt in the outbox). Short plain texts.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Transporter } from 'nodemailer';
import type { Logger } from 'pino';
import type { Config } from '../../../config/schema';

export interface Delivery {
  mail(to: string, subject: string, text: string): Promise<void>;
  sms(to: string, text: string): Promise<void>;
  close(): void;
}

/**
 * Time bounds of one SMTP delivery (ms), tighter than nodemailer's own (2 min to connect, 30 s for the
 * greeting, 10 min of silence): a server that accepts and then stalls held each mail's connection that
 * long, one per mail sent meanwhile. Query parameters of SMTP_URL (`?socketTimeout=…`) still override them.
 */
export const SMTP_TIMEOUTS = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 60_000 } as const;

const fileStem = (): string => `${new Date().toISOString().replace(/[:.]/g, '-')}-${randomBytes(4).toString('hex')}`;

export function delivery(mail: Config['mail'], log: Logger): Delivery {
  let transport: Transporter | null = null;
  const outbox = (): string => {
    mkdirSync(mail.outboxDir, { recursive: true });
    return mail.outboxDir;
  };
  return {
    async mail(to, subject, text) {
      if (mail.smtpUrl) {
        // Loaded on the first mail: ~12 MB of memory a deployment without SMTP_URL never uses (issue 17).
        transport ??= (require('nodemailer') as typeof import('nodemailer')).createTransport({ url: mail.smtpUrl, ...SMTP_TIMEOUTS });
        await transport.sendMail({ from: mail.from, to, subject, text });
        return;
      }
      const file = join(outbox(), `${fileStem()}.eml`);
      const eml = [`From: ${mail.from}`, `To: ${to}`, `Subject: ${subject}`, `Date: ${new Date().toUTCString()}`, 'Content-Type: text/plain; charset=utf-8', '', text, ''].join('\r\n');
      writeFileSync(file, eml, { mode: 0o600 });
      log.info({ to, subject, file }, 'mail written to the outbox (SMTP_URL unset)');
    },
    async sms(to, text) {
      if (mail.smsWebhookUrl) {
        const res = await fetch(mail.smsWebhookUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ to, text }), signal: AbortSignal.timeout(10_000) });
        if (!res.ok) throw new Error(`SMS gateway answered ${res.status}`);
        return;
      }
      const file = join(outbox(), `${fileStem()}.sms.txt`);
      writeFileSync(file, `To: ${to}\n\n${text}\n`, { mode: 0o600 });
      log.info({ to, file }, 'SMS written to the outbox (SMS_WEBHOOK_URL unset)');
    },
    close() {
      transport?.close();
    },
  };
}
