/**
 * A client that does not read its answer leaves it in the service's memory. Three bounds keep that
 * finite (README: One caller's share):
 * - the caller's turn (CALLER_CONCURRENCY) lasts until its answer has been taken, so one caller holds at
 *   most that many unread answers, and the rest of its requests wait or answer 429;
 * - HTTP_SEND_TIMEOUT closes a connection that takes no byte of its answer for that long (the answer and
 *   the turn are freed); a slow reader that keeps reading is not cut;
 * - ANSWER_BUFFER_MAX_BYTES bounds the unread read answers of every caller together: past it a read
 *   answers 503 naming the setting, while small answers and writes still go.
 * Before these, 200 unread connections of one user held 1.2 GB in the process.
 *
 * The answers here are ~6 MB: more than the kernel's socket buffers take from a client that reads
 * nothing (Linux loopback: at most 4 MiB sent and queued), so the rest stays in the process.
 */
import { connect, type Socket } from 'node:net';
import { expect } from 'chai';
import { DIALECTS } from '../../helpers/dialects';
import { startTestApp, type TestApp, type TestUser } from '../../helpers/test-app';

/** 100 fee types, each with its institute and the institute's 100 fee types: ~10,000 records of ~600 bytes. */
const BIG = '/api/fee-type?limit=100&populate[institute][populate][feeTypes][limit]=100';
const SMALL = '/api/institute?limit=1';

async function seed(app: TestApp): Promise<void> {
  expect((await app.http.post('/api/institute', { name: 'Held answers', code: 'HELD', city: 'Nowhere' })).status).to.equal(200);
  const items = Array.from({ length: 100 }, (_, i) => ({ feeType: `F${i} ${'x'.repeat(240)}`, instituteUserKey: 'HELD', latePaymentFeesType: 'fixed', latePaymentFees: 1, dueDate: '2026-03-31' }));
  expect((await app.http.post('/api/fee-type/bulk', items)).status).to.equal(200);
}

/** The answer's length, read whole. */
async function bigBytes(app: TestApp): Promise<number> {
  const r = await fetch(new URL(BIG, app.url), { headers: { authorization: `Bearer ${app.admin?.accessToken ?? ''}` } });
  const bytes = (await r.arrayBuffer()).byteLength;
  expect(r.status).to.equal(200);
  expect(bytes).to.be.greaterThan(5_500_000);
  return bytes;
}

interface Unread {
  readonly socket: Socket;
  /** The status line, once the first bytes came. */
  readonly status: Promise<string>;
  /** Bytes read once `drain` is called, when the connection ends. */
  readonly drained: Promise<number>;
  /** Reads the rest (after a pause, or up to the close). */
  drain(): void;
}

/** Sends GET `path` and reads only the first bytes of the answer (the status line), then nothing. */
function unread(app: TestApp, token: string, path = BIG): Unread {
  const url = new URL(app.url);
  const socket = connect({ host: url.hostname, port: Number(url.port) });
  let received = 0;
  let resolveStatus: (s: string) => void = () => undefined;
  const status = new Promise<string>((r) => (resolveStatus = r));
  const drained = new Promise<number>((resolve) => {
    socket.on('close', () => resolve(received));
  });
  socket.on('error', () => undefined);
  socket.once('data', (chunk: Buffer) => {
    received += chunk.length;
    socket.pause();
    resolveStatus(chunk.toString('latin1').split('\r\n')[0]);
    socket.on('data', (c: Buffer) => (received += c.length));
  });
  socket.write(`GET ${path} HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${token}\r\nConnection: close\r\n\r\n`);
  return { socket, status, drained, drain: () => socket.resume() };
}

async function until(check: () => Promise<boolean>, what: string, ms = 8000): Promise<number> {
  const start = Date.now();
  while (Date.now() - start < ms) {
    if (await check()) return Date.now() - start;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

for (const dialect of DIALECTS) {
  describe(`answers a client has not taken: caller turns, HTTP_SEND_TIMEOUT [${dialect}]`, () => {
    let app: TestApp;
    let other: TestUser;
    let size: number;
    before(async function () {
      this.timeout(60_000);
      app = await startTestApp(dialect, { env: { CALLER_CONCURRENCY: '1', CALLER_QUEUE: '0', HTTP_SEND_TIMEOUT: '1500ms' } });
      other = await app.createUser({ roles: ['admin'] });
      await seed(app);
      size = await bigBytes(app);
    });
    after(async () => app?.close());

    it('an unread answer holds its caller’s turn (429) until HTTP_SEND_TIMEOUT closes its connection; other callers go on', async function () {
      this.timeout(30_000);
      const held = unread(app, app.admin?.accessToken ?? '');
      expect(await held.status).to.equal('HTTP/1.1 200 OK');
      // The turn is the caller's only one and stays taken while the answer waits to be read.
      const refused = await app.http.get(SMALL);
      expect(refused.status).to.equal(429);
      expect(refused.body.error.details).to.include({ setting: 'CALLER_QUEUE' });
      expect((await other.http.get(SMALL)).status).to.equal(200);
      // HTTP_SEND_TIMEOUT (1.5 s of no progress) closes the connection and the turn comes back.
      const waited = await until(async () => (await app.http.get(SMALL)).status === 200, 'the turn to come back');
      expect(waited).to.be.greaterThan(700);
      held.drain();
      const received = await held.drained;
      expect(received, 'the answer was cut, not finished').to.be.lessThan(size);
    });

    it('a client that reads slowly, with pauses shorter than HTTP_SEND_TIMEOUT, gets the whole answer', async function () {
      this.timeout(60_000);
      const slow = unread(app, other.accessToken);
      expect(await slow.status).to.equal('HTTP/1.1 200 OK');
      // Read whatever has arrived every 1.2 s (the bound is 1.5 s of no progress), until the end.
      const timer = setInterval(() => {
        slow.socket.resume();
        setTimeout(() => slow.socket.pause(), 20);
      }, 1200);
      try {
        const received = await slow.drained;
        expect(received).to.be.greaterThan(size);
      } finally {
        clearInterval(timer);
      }
    });
  });

  describe(`a client gone while its request waited for a turn gives the turn back [${dialect}]`, () => {
    let app: TestApp;
    before(async function () {
      this.timeout(60_000);
      app = await startTestApp(dialect, { env: { CALLER_CONCURRENCY: '1', CALLER_QUEUE: '2', HTTP_SEND_TIMEOUT: '0' } });
      await seed(app);
    });
    after(async () => app?.close());

    it('the turn it was given is not kept (before: the caller was stuck for good once its turns leaked so)', async function () {
      this.timeout(30_000);
      const token = app.admin?.accessToken ?? '';
      const held = unread(app, token);
      expect(await held.status).to.equal('HTTP/1.1 200 OK');
      // In line behind the held turn, then gone.
      const waiting = unread(app, token, SMALL);
      await new Promise((r) => setTimeout(r, 300));
      waiting.socket.destroy();
      await new Promise((r) => setTimeout(r, 100));
      held.socket.destroy();
      const started = Date.now();
      const next = await app.http.get(SMALL);
      expect(next.status, next.text).to.equal(200);
      expect(Date.now() - started).to.be.lessThan(3000);
    });
  });

  describe(`pipelined requests through the caller gate [${dialect}]`, () => {
    let app: TestApp;
    before(async () => {
      app = await startTestApp(dialect);
    });
    after(async () => app?.close());

    it('two requests sent at once on one connection are both answered in full (the second has no socket of its own yet)', async () => {
      const url = new URL(app.url);
      const token = app.admin?.accessToken ?? '';
      const request = (close: boolean): string => `GET ${SMALL} HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${token}\r\n${close ? 'Connection: close\r\n' : ''}\r\n`;
      const text = await new Promise<string>((resolve, reject) => {
        const socket = connect({ host: url.hostname, port: Number(url.port) });
        let got = '';
        socket.on('data', (c: Buffer) => (got += c.toString('utf8')));
        socket.on('end', () => resolve(got));
        socket.on('error', reject);
        socket.write(request(false) + request(true));
      });
      expect(text.match(/HTTP\/1\.1 200 OK/g) ?? [], text.slice(0, 400)).to.have.length(2);
      expect(text.match(/"records":\[/g) ?? []).to.have.length(2);
    });
  });

  describe(`answers a client has not taken: ANSWER_BUFFER_MAX_BYTES [${dialect}]`, () => {
    let app: TestApp;
    let readers: TestUser[];
    let size: number;
    const open: Unread[] = [];
    before(async function () {
      this.timeout(60_000);
      // Sized after the seed: first a node whose bound is exactly two of the big answers.
      const probe = await startTestApp(dialect);
      try {
        await seed(probe);
        size = await bigBytes(probe);
      } finally {
        await probe.close();
      }
      app = await startTestApp(dialect, { env: { ANSWER_BUFFER_MAX_BYTES: String(2 * size), HTTP_SEND_TIMEOUT: '0' } });
      readers = [await app.createUser({ roles: ['admin'] }), await app.createUser({ roles: ['admin'] })];
      await seed(app);
      expect(await bigBytes(app)).to.equal(size);
    });
    after(async () => {
      for (const u of open) u.socket.destroy();
      await app?.close();
    });

    it('unread read answers up to the bound are sent; one past it answers 503 naming the setting; small reads and writes still go', async function () {
      this.timeout(30_000);
      // A client that leaves before its answer is made holds none of it (its `close` came first).
      const left = unread(app, readers[0].accessToken);
      await new Promise((r) => setTimeout(r, 30));
      left.socket.destroy();
      await new Promise((r) => setTimeout(r, 1500));
      // Two callers, one unread answer each: exactly the bound.
      for (const u of readers) {
        const held = unread(app, u.accessToken);
        open.push(held);
        expect(await held.status).to.equal('HTTP/1.1 200 OK');
      }
      const past = await app.http.get(BIG);
      expect(past.status).to.equal(503);
      expect(past.body.error.name).to.equal('ServiceBusyError');
      expect(past.body.error.details).to.include({ setting: 'ANSWER_BUFFER_MAX_BYTES', limit: 'answerBuffer', maxBytes: 2 * size, retryable: true });
      expect(past.body.error.message).to.contain('ANSWER_BUFFER_MAX_BYTES');
      expect(past.headers.get('retry-after')).to.equal('1');
      // Small answers are not held up by large unread ones, and a write is never refused after the fact.
      expect((await app.http.get(SMALL)).status).to.equal(200);
      expect((await app.http.post('/api/institute', { name: 'Still writable', code: 'WRT', city: 'X' })).status).to.equal(200);
      // A reader that goes away frees its answer's bytes: the next large read is sent.
      const gone = open.shift() as Unread;
      gone.socket.destroy();
      await until(async () => (await app.http.get(BIG)).status === 200, 'a large read to be sent again');
    });
  });
}
