/** Issue 8 (fast parts): security headers, CORS allowlist, body limits, JSON nesting, health with the database gone. */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import pino from 'pino';
import { loadConfig } from '../../../config';
import { boot, type Booted } from '../../../core/boot';
import { createApp } from '../../../core/http/app';
import { MAX_JSON_DEPTH } from '../../../core/http/body';
import { drain, listen } from '../../../core/http/server';
import { DIALECTS } from '../../helpers/dialects';
import { client, type Client } from '../../helpers/http';
import { ROOT, startTestApp, TEST_JWT_SECRET, type TestApp } from '../../helpers/test-app';

const nested = (depth: number): unknown => {
  let v: unknown = 1;
  for (let i = 0; i < depth; i++) v = i % 2 ? { a: v } : [v];
  return v;
};

const timed = async <T>(fn: () => Promise<T>): Promise<[T, number]> => {
  const t0 = performance.now();
  const r = await fn();
  return [r, performance.now() - t0];
};

for (const dialect of DIALECTS) {
  describe(`http hardening [${dialect}]`, () => {
    let app: TestApp;
    before(async () => {
      app = await startTestApp(dialect, { env: { CORS_ORIGINS: 'https://app.example, https://admin.example' } });
    });
    after(async () => app?.close());

    describe('security headers (koa-helmet)', () => {
      it('sets helmet headers and a strict CSP on API answers, errors included', async () => {
        for (const path of ['/api/institute', '/api/no-such-model', '/health']) {
          const res = await app.http.get(path);
          expect(res.headers.get('x-content-type-options'), path).to.equal('nosniff');
          expect(res.headers.get('x-frame-options'), path).to.equal('SAMEORIGIN');
          expect(res.headers.get('referrer-policy'), path).to.equal('no-referrer');
          expect(res.headers.get('strict-transport-security'), path).to.match(/max-age=/);
          expect(res.headers.get('content-security-policy'), path).to.equal("default-src 'none';frame-ancestors 'none'");
          expect(res.headers.get('x-powered-by'), path).to.equal(null);
        }
      });

      it('API answers are same-site resources; stored files under /uploads/ may be embedded cross-origin', async () => {
        expect((await app.http.get('/api/institute')).headers.get('cross-origin-resource-policy')).to.equal('same-site');
        const file = await app.http.get('/uploads/no-such-key');
        expect(file.headers.get('cross-origin-resource-policy')).to.equal('cross-origin');
        expect(file.headers.get('x-content-type-options')).to.equal('nosniff');
      });

      it('leaves CSP off under /docs (swagger-ui needs inline script and style) but keeps the rest', async () => {
        const res = await app.http.get('/docs/openapi.json');
        expect(res.headers.get('content-security-policy')).to.equal(null);
        expect(res.headers.get('x-content-type-options')).to.equal('nosniff');
      });
    });

    describe('CORS from CORS_ORIGINS', () => {
      it('sends no CORS headers without an Origin', async () => {
        const res = await app.http.get('/api/institute');
        expect(res.headers.get('access-control-allow-origin')).to.equal(null);
      });

      it('allows a listed origin, exposing X-Request-Id', async () => {
        const res = await app.http.get('/api/institute', { headers: { origin: 'https://admin.example' } });
        expect(res.status).to.equal(200);
        expect(res.headers.get('access-control-allow-origin')).to.equal('https://admin.example');
        expect(res.headers.get('access-control-expose-headers')).to.match(/X-Request-Id/);
        expect(res.headers.get('vary')).to.match(/Origin/);
      });

      it('keeps the CORS headers on an error answer for a listed origin', async () => {
        const res = await app.http.get('/api/institute?bogus=1', { headers: { origin: 'https://app.example' } });
        expect(res.status).to.equal(400);
        expect(res.headers.get('access-control-allow-origin')).to.equal('https://app.example');
      });

      it('gives an unlisted origin no Access-Control-Allow-Origin, on requests and preflights', async () => {
        const res = await app.http.get('/api/institute', { headers: { origin: 'https://evil.example' } });
        expect(res.headers.get('access-control-allow-origin')).to.equal(null);
        const pre = await fetch(`${app.url}/api/institute`, {
          method: 'OPTIONS',
          headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' },
        });
        expect(pre.headers.get('access-control-allow-origin')).to.equal(null);
        expect(pre.headers.get('access-control-allow-methods')).to.equal(null);
      });

      it('answers a preflight from a listed origin', async () => {
        const pre = await fetch(`${app.url}/api/institute`, {
          method: 'OPTIONS',
          headers: { origin: 'https://app.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type' },
        });
        expect(pre.status).to.equal(204);
        expect(pre.headers.get('access-control-allow-origin')).to.equal('https://app.example');
        expect(pre.headers.get('access-control-allow-methods')).to.match(/POST/);
        expect(pre.headers.get('access-control-allow-headers')).to.match(/Authorization/);
      });

      it('lets a listed origin resume a realtime stream: the preflight allows Last-Event-ID, the stream carries the origin', async () => {
        // A fetch-based SSE client (the way to send Authorization) reconnects with Last-Event-ID: a
        // preflight that does not allow it makes the browser refuse every resume from another origin.
        const pre = await fetch(`${app.url}/api/realtime?models=institute`, {
          method: 'OPTIONS',
          headers: { origin: 'https://app.example', 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization,last-event-id' },
        });
        expect(pre.status).to.equal(204);
        expect(pre.headers.get('access-control-allow-origin')).to.equal('https://app.example');
        const allowed = (pre.headers.get('access-control-allow-headers') ?? '').toLowerCase().split(/\s*,\s*/);
        expect(allowed).to.include.members(['authorization', 'last-event-id']);
        const ctrl = new AbortController();
        const res = await fetch(`${app.url}/api/realtime?models=institute`, { signal: ctrl.signal, headers: { origin: 'https://app.example', authorization: `Bearer ${app.admin!.accessToken}`, 'last-event-id': '0' } });
        try {
          expect(res.status).to.equal(200);
          expect(res.headers.get('access-control-allow-origin')).to.equal('https://app.example');
        } finally {
          ctrl.abort();
        }
      });
    });

    describe('body limits', () => {
      it('answers 413 for a body over BODY_MAX_BYTES, without reading all of it', async () => {
        const res = await app.http.post('/api/institute', undefined, { raw: `{"name":"${'x'.repeat(3 * 1024 * 1024)}"}`, headers: { 'content-type': 'application/json' } });
        expect(res.status).to.equal(413);
        expect(res.body.error).to.include({ status: 413, name: 'PayloadTooLargeError' });
      });

      it(`answers 400 for JSON nested deeper than ${MAX_JSON_DEPTH} levels, and accepts the limit itself`, async () => {
        const deep = await app.http.post('/api/institute', { name: 'n', code: 'c', city: nested(MAX_JSON_DEPTH) });
        expect(deep.status).to.equal(400);
        expect(deep.body.error.message).to.match(/nested deeper/);
        const ok = await app.http.post('/api/institute', { name: 'n', code: 'c', city: nested(MAX_JSON_DEPTH - 2) });
        expect(ok.status).to.equal(422); // parsed and validated: city must be a string
      });

      it('answers 400, not 500, for a body nested a hundred thousand levels deep', async () => {
        const raw = '['.repeat(100_000) + ']'.repeat(100_000);
        const [res, ms] = await timed(() => app.http.post('/api/institute', undefined, { raw, headers: { 'content-type': 'application/json' } }));
        expect(res.status).to.equal(400);
        expect(ms).to.be.below(1000);
      });

      it('refuses prototype keys (400 for __proto__, 422 naming constructor) and never pollutes Object.prototype', async () => {
        const send = (raw: string) => app.http.post('/api/institute', undefined, { raw, headers: { 'content-type': 'application/json' } });
        const proto = await send('{"name":"p","code":"p","__proto__":{"polluted":true}}');
        expect(proto.status).to.equal(400);
        expect(proto.body.error.message).to.match(/__proto__/);
        const ctor = await send('{"name":"p","code":"p","constructor":{"prototype":{"polluted":true}}}');
        expect(ctor.status).to.equal(422);
        expect(ctor.body.error.details.fields.constructor).to.deep.equal(['is not a field of institute']);
        const patch = await send('{"constructor":1,"toString":2,"hasOwnProperty":3}');
        expect(patch.status).to.equal(422);
        expect(({} as Record<string, unknown>).polluted).to.equal(undefined);
      });
    });
  });
}

describe('http hardening: the database is gone', () => {
  let deps: Booted;
  let server: Server;
  let http: Client;
  before(async () => {
    // Port 1 on loopback refuses at once: the worst case is a database that stopped, not one that hangs.
    const config = loadConfig({ NODE_ENV: 'test', DATABASE_URL: 'postgres://postgres@127.0.0.1:1/nowhere', IAM_JWT_SECRET: TEST_JWT_SECRET, DATA_DIR: '/tmp/ris-nodb' }, ROOT);
    deps = boot(config, [], pino({ level: 'silent' }));
    server = await listen(createApp(deps), 0, '127.0.0.1');
    http = client(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  });
  after(async () => drain(server, () => deps.close(), deps.log, { cutIdle: true }));

  it('GET /health answers 200 and /health/ready 503 within a second', async () => {
    expect((await http.get('/health')).status).to.equal(200);
    const [ready, ms] = await timed(() => http.get('/health/ready'));
    expect(ready.status).to.equal(503);
    expect(ready.body).to.deep.equal({ status: 'unavailable' });
    expect(ms).to.be.below(1000);
  });

  it('record reads and writes answer 503 ServiceUnavailableError with Retry-After within a second, and leak nothing', async () => {
    for (const call of [() => http.get('/api/institute'), () => http.get('/api/institute/1'), () => http.post('/api/institute', { name: 'a', code: 'a' })]) {
      const [res, ms] = await timed(call);
      expect(res.status).to.equal(503);
      expect(res.body.error).to.include({ status: 503, name: 'ServiceUnavailableError' });
      expect(res.headers.get('retry-after')).to.equal('1');
      expect(res.text).to.not.match(/ECONNREFUSED|127\.0\.0\.1|select|at .*:\d+:\d+/i);
      expect(ms).to.be.below(1000);
    }
  });
});
