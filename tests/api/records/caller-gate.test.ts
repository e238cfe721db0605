/**
 * Issue 13 item 1: one caller cannot hold every database connection. At most CALLER_CONCURRENCY record
 * requests of one caller run at once, CALLER_QUEUE more wait for a turn, and past that 429 at once;
 * other callers are not held up; a turn that does not come within CALLER_QUEUE_TIMEOUT answers 503. A multipart write whose body is still arriving holds its turn (the
 * form is read inside the route), which makes the overlap deterministic here.
 */
import { request, type ClientRequest } from 'node:http';
import { expect } from 'chai';
import { DIALECTS } from '../../helpers/dialects';
import type { Reply } from '../../helpers/http';
import { startTestApp, type TestApp, type TestUser } from '../../helpers/test-app';

const BOUNDARY = 'caller-gate-boundary';

/** Starts a multipart create of an institute and sends only the first bytes of its body. */
function startSlowUpload(app: TestApp, token: string, code: string): { req: ClientRequest; finish: () => void; answer: Promise<number> } {
  const url = new URL('/api/institute', app.url);
  const req = request(url, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': `multipart/form-data; boundary=${BOUNDARY}`, 'transfer-encoding': 'chunked' } });
  const answer = new Promise<number>((resolve, reject) => {
    req.on("response", (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
  });
  req.write(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="data"\r\n\r\n`);
  req.flushHeaders();
  const finish = (): void => {
    req.end(`${JSON.stringify({ name: `Gate ${code}`, code })}\r\n--${BOUNDARY}--\r\n`);
  };
  return { req, finish, answer };
}

/** Gives the upload's first bytes time to reach the route before the same caller's next request. */
const settle = (): Promise<void> => new Promise((r) => setTimeout(r, 300));

/** Polls until `check` holds, bounded. */
async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  const end = Date.now() + 5000;
  while (Date.now() < end) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`timed out waiting for ${what}`);
}

for (const dialect of DIALECTS) {
  describe(`per-caller gate: CALLER_CONCURRENCY and CALLER_QUEUE [${dialect}]`, () => {
    describe('one running, none waiting', () => {
      let app: TestApp;
      let other: TestUser;
      before(async () => {
        app = await startTestApp(dialect, { env: { CALLER_CONCURRENCY: '1', CALLER_QUEUE: '0' } });
        other = await app.createUser();
      });
      after(async () => app?.close());

      it('a second request of the same caller answers 429 naming the settings; another caller is served; the turn comes back', async () => {
        const token = app.admin?.accessToken ?? '';
        const upload = startSlowUpload(app, token, 'G1');
        await settle();
        // The upload holds the admin's only turn once its headers are through: the admin's next request is refused.
        let refused: Reply | null = null;
        await until(async () => {
          const r = await app.http.get('/api/institute');
          if (r.status === 429) refused = r;
          return r.status === 429;
        }, 'the upload to take the turn');
        const r = refused as unknown as Reply;
        expect(r.body.error.name).to.equal('RateLimitedError');
        expect(r.body.error.details).to.include({ limit: 'callerConcurrency', setting: 'CALLER_QUEUE', retryAfterSeconds: 1 });
        expect(r.body.error.message).to.contain('CALLER_CONCURRENCY').and.contain('CALLER_QUEUE');
        expect(r.headers.get('retry-after')).to.equal('1');

        // Another caller is not held up by the admin's line.
        expect((await other.http.get('/api/institute')).status).to.equal(200);
        // Routes outside the record API are not gated.
        expect((await app.http.get('/api/iam/me')).status).to.equal(200);

        upload.finish();
        expect(await upload.answer).to.equal(200);
        const after = await app.http.get('/api/institute?filters[code][$eq]=G1');
        expect(after.status).to.equal(200);
        expect(after.body.records).to.have.length(1);
      });
    });

    describe('one running, one waiting', () => {
      let app: TestApp;
      before(async () => {
        app = await startTestApp(dialect, { env: { CALLER_CONCURRENCY: '1', CALLER_QUEUE: '1', CALLER_QUEUE_TIMEOUT: '60s' } });
      });
      after(async () => app?.close());

      it('the waiting request runs when the running one ends; the one past the line is refused', async () => {
        const token = app.admin?.accessToken ?? '';
        const upload = startSlowUpload(app, token, 'G2');
        await settle();
        let waiting: Promise<Reply> | null = null;
        await until(async () => {
          // Each probe either waits (the line has room) or is refused (the line is full).
          const probe = app.http.get('/api/institute?filters[code][$eq]=G2');
          const first = await Promise.race([probe, new Promise<null>((r) => setTimeout(() => r(null), 150))]);
          if (first === null) {
            waiting = probe;
            return true;
          }
          return false;
        }, 'a request to wait in line');
        const past = await app.http.get('/api/institute');
        expect(past.status).to.equal(429);
        upload.finish();
        expect(await upload.answer).to.equal(200);
        const served = await (waiting as unknown as Promise<Reply>);
        expect(served.status).to.equal(200);
        // It ran after the upload ended: it sees the institute the upload created.
        expect(served.body.records).to.have.length(1);
        // Every turn was given back.
        expect((await app.http.get('/api/institute')).status).to.equal(200);
      });
    });

    describe('a turn that does not come in time', () => {
      let app: TestApp;
      before(async () => {
        app = await startTestApp(dialect, { env: { CALLER_CONCURRENCY: '1', CALLER_QUEUE: '5', CALLER_QUEUE_TIMEOUT: '300ms' } });
      });
      after(async () => app?.close());

      it('answers 503 naming CALLER_QUEUE_TIMEOUT after about that long, and the line moves on', async () => {
        const upload = startSlowUpload(app, app.admin?.accessToken ?? '', 'G3');
        await settle();
        const started = Date.now();
        const waited = await app.http.get('/api/institute');
        expect(waited.status, waited.text).to.equal(503);
        expect(Date.now() - started).to.be.at.least(250);
        expect(waited.body.error.name).to.equal('ServiceUnavailableError');
        expect(waited.body.error.details).to.include({ limit: 'callerConcurrency', setting: 'CALLER_QUEUE_TIMEOUT' });
        expect(waited.headers.get('retry-after')).to.equal('1');
        upload.finish();
        expect(await upload.answer).to.equal(200);
        expect((await app.http.get('/api/institute')).status).to.equal(200);
      });
    });
  });
}
