/** Real delivery endpoints for the identity tests: an SMTP server and an HTTP SMS gateway on 127.0.0.1. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface Message {
  readonly to: string;
  readonly text: string;
}

abstract class Sink {
  readonly messages: Message[] = [];
  private waiters: (() => void)[] = [];

  protected push(m: Message): void {
    this.messages.push(m);
    for (const w of this.waiters.splice(0)) w();
  }

  /** The newest message to `to` arriving after `since` messages, waiting up to `ms`. */
  async next(to: string, since: number, ms = 5000): Promise<Message> {
    const deadline = Date.now() + ms;
    for (;;) {
      const found = this.messages.slice(since).reverse().find((m) => m.to.toLowerCase() === to.toLowerCase());
      if (found) return found;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no message to ${to} within ${ms} ms`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, Math.min(left, 200));
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  }

  count(): number {
    return this.messages.length;
  }
}

/** Undoes quoted-printable soft breaks and escapes, enough to read a code or token from a raw mail. */
function readable(raw: string): string {
  return raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16)));
}

export class MailSink extends Sink {
  private server: SMTPServer | null = null;
  port = 0;

  async start(): Promise<this> {
    this.server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['AUTH', 'STARTTLS'],
      logger: false,
      onData: (stream, session, callback) => {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => {
          const text = readable(Buffer.concat(chunks).toString('utf8'));
          for (const r of session.envelope.rcptTo) this.push({ to: r.address, text });
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', () => resolve()));
    this.port = ((this.server as unknown as { server: Server }).server.address() as AddressInfo).port;
    return this;
  }

  get url(): string {
    return `smtp://127.0.0.1:${this.port}`;
  }

  close(): Promise<void> {
    return new Promise((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

export class SmsSink extends Sink {
  private server: Server | null = null;
  port = 0;

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { to: string; text: string };
        this.push({ to: body.to, text: body.text });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', () => resolve()));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/sms`;
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      if (!this.server) return resolve();
      this.server.closeAllConnections();
      this.server.close(() => resolve());
    });
  }
}

export const otpIn = (m: Message): string => {
  const found = /\b(\d{6})\b/.exec(m.text.split(/\r?\n\r?\n/).slice(1).join('\n') || m.text);
  if (!found) throw new Error(`no 6-digit code in: ${m.text}`);
  return found[1];
};

export const resetTokenIn = (m: Message): string => {
  const found = /token is:\s+([A-Za-z0-9_-]{32,})/.exec(m.text);
  if (!found) throw new Error(`no reset token in: ${m.text}`);
  return found[1];
};
