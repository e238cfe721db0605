import { expect } from 'chai';
import { mkdtempSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { delivery, SMTP_TIMEOUTS } from '../../../core/plugins/users-permissions/delivery';

/**
 * A mail to an SMTP server that accepts the connection and never greets fails after SMTP_TIMEOUTS'
 * greeting bound (10 s), not nodemailer's 30 s; a query parameter of SMTP_URL still overrides it.
 */
describe('identity delivery: SMTP time bounds', function () {
  this.timeout(30_000);
  let server: Server;
  let port = 0;
  const sockets = new Set<Socket>();

  before(async () => {
    server = createServer((s) => {
      sockets.add(s);
      s.on('error', () => undefined);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as { port: number }).port;
  });
  after(async () => {
    for (const s of sockets) s.destroy();
    await new Promise<void>((r) => server.close(() => r()));
  });

  const send = async (url: string): Promise<{ ms: number; error: Error | null }> => {
    const d = delivery({ smtpUrl: url, from: 'cms@example.test', smsWebhookUrl: null, outboxDir: mkdtempSync(join(tmpdir(), 'ris-mail-')) }, pino({ level: 'silent' }));
    const t0 = Date.now();
    try {
      await d.mail('someone@example.test', 'Hello', 'text');
      return { ms: Date.now() - t0, error: null };
    } catch (e) {
      return { ms: Date.now() - t0, error: e as Error };
    } finally {
      d.close();
    }
  };

  it(`a server that never greets: the mail fails after ${SMTP_TIMEOUTS.greetingTimeout} ms, not 30 s`, async () => {
    const { ms, error } = await send(`smtp://127.0.0.1:${port}`);
    expect(error, 'the mail failed').to.not.equal(null);
    expect(ms).to.be.within(SMTP_TIMEOUTS.greetingTimeout - 500, SMTP_TIMEOUTS.greetingTimeout + 5_000);
  });

  it('SMTP_URL query parameters override the bounds', async () => {
    const { ms, error } = await send(`smtp://127.0.0.1:${port}?greetingTimeout=300`);
    expect(error).to.not.equal(null);
    expect(ms).to.be.below(3_000);
  });
});
