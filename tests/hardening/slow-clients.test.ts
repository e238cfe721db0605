/**
 * Issue 8: a slow client cannot hold a connection forever. With HTTP_HEADERS_TIMEOUT=1s and
 * HTTP_REQUEST_TIMEOUT=2s (production defaults 10 s / 30 s), a client that trickles its headers, or
 * its body, or sends nothing at all, is cut off within the bound (Node answers 408 and closes).
 */
import { connect, type Socket } from 'node:net';
import { expect } from 'chai';
import { DIALECTS } from '../helpers/dialects';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { figures } from './helpers/load';

const HEADERS_MS = 1000;
const REQUEST_MS = 2000;
/** Node checks the bounds on an interval (core/http/server.ts: a quarter of the smaller bound, at most 1 s). */
const SLACK_MS = 800;

interface Cut {
  readonly ms: number;
  readonly answer: string;
  readonly bytesSent: number;
}

/** Opens a socket, writes `first`, then `drip` every `everyMs` until the server closes the socket. */
function trickle(url: string, first: string, drip: string, everyMs: number, giveUpMs = 10_000): Promise<Cut> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    let answer = '';
    let bytesSent = 0;
    const sock: Socket = connect(Number(port), hostname);
    let timer: NodeJS.Timeout | undefined;
    const giveUp = setTimeout(() => {
      sock.destroy();
      reject(new Error(`not cut off after ${giveUpMs} ms; answer so far: ${answer}`));
    }, giveUpMs);
    const finish = (): void => {
      clearInterval(timer);
      clearTimeout(giveUp);
      resolve({ ms: performance.now() - t0, answer: answer.split('\r\n')[0] ?? '', bytesSent });
    };
    sock.setEncoding('utf8');
    sock.on('data', (d: string) => (answer += d));
    sock.on('close', finish);
    sock.on('error', () => undefined); // a reset also ends it; 'close' follows
    sock.on('connect', () => {
      if (first) {
        sock.write(first);
        bytesSent += first.length;
      }
      if (drip) {
        timer = setInterval(() => {
          if (!sock.writable) return;
          sock.write(drip);
          bytesSent += drip.length;
        }, everyMs);
      }
    });
  });
}

for (const dialect of DIALECTS) {
  describe(`slow clients are cut off [${dialect}]`, function () {
    this.timeout(30_000);
    let app: TestApp;
    before(async () => {
      app = await startTestApp(dialect, { env: { HTTP_HEADERS_TIMEOUT: `${HEADERS_MS}ms`, HTTP_REQUEST_TIMEOUT: `${REQUEST_MS}ms` } });
    });
    after(async () => app?.close());

    it('headers sent one line at a time: 408 and closed within the headers timeout', async () => {
      const cut = await trickle(app.url, 'GET /api/institute HTTP/1.1\r\nHost: x\r\n', 'X-Slow: 1\r\n', 200);
      figures(`slow headers [${dialect}]`, { boundMs: HEADERS_MS, cutAfterMs: Math.round(cut.ms), bytesSent: cut.bytesSent, answer: cut.answer });
      expect(cut.ms).to.be.within(HEADERS_MS - 100, HEADERS_MS + SLACK_MS);
      expect(cut.answer).to.match(/^HTTP\/1\.1 408|^$/);
    });

    it('a connection that sends nothing is closed within the headers timeout', async () => {
      const cut = await trickle(app.url, '', '', 0);
      figures(`silent connection [${dialect}]`, { boundMs: HEADERS_MS, cutAfterMs: Math.round(cut.ms), answer: cut.answer });
      expect(cut.ms).to.be.below(HEADERS_MS + SLACK_MS);
    });

    it('a body sent one byte at a time: cut off within the request timeout, nothing written', async () => {
      // A permitted caller: its body is read (an anonymous one is answered 401 before that, below).
      const head = `POST /api/institute HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${app.admin?.accessToken}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n`;
      const cut = await trickle(app.url, head + '{"name":"slow","code":"slow","city":"', 'x', 100);
      figures(`slow body [${dialect}]`, { boundMs: REQUEST_MS, cutAfterMs: Math.round(cut.ms), bytesSent: cut.bytesSent, answer: cut.answer });
      expect(cut.ms).to.be.within(REQUEST_MS - 100, REQUEST_MS + SLACK_MS);
      expect(cut.answer).to.match(/^HTTP\/1\.1 408|^$/);
      const list = await app.http.get('/api/institute?filters[code][$eq]=slow');
      expect(list.body.meta.totalRecords).to.equal(0);
    });

    it('an anonymous body sent one byte at a time: answered 401 at once, unread, and the connection still cut within the request timeout', async () => {
      const head = 'POST /api/institute HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n';
      const cut = await trickle(app.url, head + '{"name":"slow","code":"slow","city":"', 'x', 100);
      figures(`slow anonymous body [${dialect}]`, { boundMs: REQUEST_MS, cutAfterMs: Math.round(cut.ms), bytesSent: cut.bytesSent, answer: cut.answer });
      expect(cut.answer).to.match(/^HTTP\/1\.1 401/);
      expect(cut.ms).to.be.within(REQUEST_MS - 100, REQUEST_MS + SLACK_MS);
    });

    it('an ordinary client on the same server is served meanwhile', async () => {
      const slow = trickle(app.url, 'GET /health HTTP/1.1\r\nHost: x\r\n', 'X-Slow: 1\r\n', 200);
      const res = await app.http.get('/health');
      expect(res.status).to.equal(200);
      await slow;
    });
  });
}
