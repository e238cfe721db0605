/**
 * A body is read only for a caller allowed to send it (README: Security, "Bodies are read after the
 * permission check"). An anonymous or unpermitted write is answered 401/403 without its body being read
 * or parsed: a megabyte of invalid JSON, which a permitted caller hears about as 400, answers 401. The
 * identity endpoints that take no token count the caller's address before they read a body, and read at
 * most IAM_BODY_MAX_BYTES of it.
 */
import { connect } from 'node:net';
import { expect } from 'chai';
import { DIALECTS } from '../../helpers/dialects';
import { startTestApp, type TestApp, type TestUser } from '../../helpers/test-app';

const JSON_TYPE = { 'content-type': 'application/json' };
/** About a megabyte of `[{},{},…` that never closes: invalid JSON, which a parse would refuse with 400. */
const MEGABYTE_INVALID = `[${'{},'.repeat(340_000)}{`;
/** About a megabyte of valid `[{},{},…]` under BODY_MAX_BYTES (1 MiB). */
const MEGABYTE_ARRAY = `[${'{},'.repeat(340_000)}{}]`;
const IAM_LIMIT = 64 * 1024;
const BODY_LIMIT = 1024 * 1024;

/** `raw` padded with spaces to exactly `bytes` bytes (JSON allows the whitespace). */
const padded = (raw: string, bytes: number): string => raw + ' '.repeat(bytes - Buffer.byteLength(raw));

/**
 * Writes `requests` on one socket, the last saying `Connection: close`, and answers the status lines
 * the server sent before closing it: each request on a kept-alive connection is answered in turn.
 */
function onOneConnection(url: string, requests: readonly string[]): Promise<string[]> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    let answer = '';
    const sock = connect(Number(port), hostname);
    const giveUp = setTimeout(() => {
      sock.destroy();
      reject(new Error(`no close after 10 s; answers so far: ${answer.slice(0, 500)}`));
    }, 10_000);
    sock.setEncoding('latin1');
    sock.on('data', (d: string) => (answer += d));
    sock.on('error', () => undefined);
    sock.on('close', () => {
      clearTimeout(giveUp);
      resolve(answer.match(/HTTP\/1\.1 \d{3}/g) ?? []); // an answer follows the last one's body at once
    });
    sock.on('connect', () => {
      for (const r of requests) sock.write(r);
    });
  });
}

const post = (path: string, body: string, headers = ''): string =>
  `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${headers}\r\n${body}`;
const chunked = (path: string, body: string, headers = ''): string =>
  `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n${headers}\r\n${Buffer.byteLength(body).toString(16)}\r\n${body}\r\n0\r\n\r\n`;
const LAST = 'GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n';

for (const dialect of DIALECTS) {
  describe(`bodies are read after the permission check [${dialect}]`, () => {
    let app: TestApp;
    let reader: TestUser;
    before(async () => {
      app = await startTestApp(dialect);
      reader = await app.createUser({ roles: ['authenticated'] }); // find + findOne, no create
    });
    after(async () => app?.close());

    const writes: readonly [string, string][] = [
      ['POST', '/api/fee-type/bulk'],
      ['POST', '/api/fee-type'],
      ['PUT', '/api/fee-type/1'],
      ['PATCH', '/api/fee-type/1'],
      ['DELETE', '/api/fee-type/bulk'],
      ['POST', '/api/fee-type/recover/bulk'],
      ['POST', '/api/institute'],
      ['PATCH', '/api/user/1'],
      ['POST', '/api/user'],
      ['POST', '/api/user/bulk'],
      ['POST', '/api/access-rule'],
      ['PATCH', '/api/access-rule/1'],
    ];

    it('an anonymous write with a megabyte of invalid JSON answers 401, not 400: its body is never parsed', async () => {
      for (const [method, path] of writes) {
        const res = await fetch(app.url + path, { method, headers: JSON_TYPE, body: MEGABYTE_INVALID });
        const body = (await res.json()) as { error: { name: string; message: string } };
        expect(res.status, `${method} ${path}`).to.equal(401);
        expect(body.error.name, `${method} ${path}`).to.equal('UnauthorizedError');
        expect(body.error.message, `${method} ${path}`).to.match(/^authentication required/);
      }
    });

    it('a caller without the permission gets 403 for the same body', async () => {
      for (const [method, path] of writes.filter(([, p]) => p.startsWith('/api/fee-type') || p === '/api/institute')) {
        const res = await reader.http[method === 'DELETE' ? 'del' : (method.toLowerCase() as 'post' | 'put' | 'patch')](path, undefined, { raw: MEGABYTE_INVALID, headers: JSON_TYPE });
        expect(res.status, `${method} ${path}`).to.equal(403);
        expect(res.body.error.message, `${method} ${path}`).to.match(/^missing permission fee-type\.|^missing permission institute\./);
      }
    });

    it('a permitted caller still hears about the same body (400), and about a valid one item by item (422)', async () => {
      const bad = await app.http.post('/api/fee-type/bulk', undefined, { raw: MEGABYTE_INVALID, headers: JSON_TYPE });
      expect(bad.status).to.equal(400);
      expect(bad.body.error.message).to.equal('the body is not valid JSON');
      const deep = await app.http.post('/api/fee-type/bulk', undefined, { raw: `${'['.repeat(40)}${']'.repeat(40)}`, headers: JSON_TYPE });
      expect(deep.status).to.equal(400);
      expect(deep.body.error.message).to.match(/nested deeper than 32 levels/);
      const items = await app.http.post('/api/fee-type/bulk', [{}, { feeType: 1 }]);
      expect(items.status).to.equal(422);
      expect(items.body.error.details.errors.map((e: { index: number }) => e.index)).to.deep.equal([0, 1]);
      const nul = await app.http.post('/api/fee-type', { feeType: 'a\u0000b' });
      expect(nul.status).to.equal(422);
      expect(nul.body.error.message).to.equal('the body holds text no database can store');
    });

    it('identity endpoints that need a token refuse an anonymous or unpermitted caller before reading the body', async () => {
      for (const path of ['/api/iam/change-password', '/api/iam/api-tokens']) {
        const res = await app.anon.post(path, undefined, { raw: MEGABYTE_INVALID, headers: JSON_TYPE });
        expect(res.status, path).to.equal(401);
      }
      const notAdmin = await reader.http.post('/api/iam/api-tokens', undefined, { raw: MEGABYTE_INVALID, headers: JSON_TYPE });
      expect(notAdmin.status).to.equal(403);
      const admin = await app.http.post('/api/iam/api-tokens', undefined, { raw: '{"name":', headers: JSON_TYPE });
      expect(admin.status).to.equal(400);
    });

    it('the connection stays usable: the unread body is discarded and the next request on it is answered', async () => {
      const statuses = await onOneConnection(app.url, [post('/api/fee-type/bulk', MEGABYTE_ARRAY), chunked('/api/fee-type/bulk', MEGABYTE_INVALID), LAST]);
      expect(statuses).to.deep.equal(['HTTP/1.1 401', 'HTTP/1.1 401', 'HTTP/1.1 200']);
    });

    it('a body past BODY_MAX_BYTES is still refused by its Content-Length, read by nobody (413)', async () => {
      const res = await app.anon.post('/api/fee-type/bulk', undefined, { raw: `[${'{},'.repeat(400_000)}{}]`, headers: JSON_TYPE });
      expect(res.status).to.equal(413);
      expect(res.body.error.name).to.equal('PayloadTooLargeError');
      expect(res.body.error.details).to.deep.equal({ setting: 'BODY_MAX_BYTES', limit: BODY_LIMIT });
    });

    it(`reads a body of exactly BODY_MAX_BYTES (${BODY_LIMIT}); one byte more answers 413 naming the setting, by Content-Length or chunked`, async () => {
      const tag = `${dialect}-${Date.now().toString(36)}`;
      const at = await app.http.post('/api/fee-type/bulk', undefined, { raw: padded(JSON.stringify([{ feeType: `At limit ${tag}` }]), BODY_LIMIT), headers: JSON_TYPE });
      expect(at.status, JSON.stringify(at.body).slice(0, 300)).to.equal(200);
      expect(at.body.data[0]).to.include({ feeType: `At limit ${tag}` });
      const body = padded(JSON.stringify([{ feeType: `Past limit ${tag}` }]), BODY_LIMIT + 1);
      const past = await app.http.post('/api/fee-type/bulk', undefined, { raw: body, headers: JSON_TYPE });
      // chunked: no Content-Length to refuse by, so the read stops at the limit
      const stream = new ReadableStream({ start: (c) => (c.enqueue(new TextEncoder().encode(body)), c.close()) });
      const chunkedRes = await fetch(`${app.url}/api/fee-type/bulk`, { method: 'POST', headers: { ...JSON_TYPE, authorization: `Bearer ${app.admin?.accessToken}` }, body: stream, duplex: 'half' } as RequestInit);
      const chunkedBody = (await chunkedRes.json()) as { error: { name: string; message: string; details: unknown } };
      for (const [how, status, error] of [['Content-Length', past.status, past.body.error], ['chunked', chunkedRes.status, chunkedBody.error]] as const) {
        expect(status, how).to.equal(413);
        expect(error.name, how).to.equal('PayloadTooLargeError');
        expect(error.message, how).to.match(/BODY_MAX_BYTES/);
        expect(error.details, how).to.deep.equal({ setting: 'BODY_MAX_BYTES', limit: BODY_LIMIT });
      }
      expect((await app.http.get(`/api/fee-type?filters[feeType][$eq]=Past limit ${tag}`)).body.records).to.have.length(0);
    });
  });

  describe(`identity endpoints without a token: IAM_BODY_MAX_BYTES and the address counted first [${dialect}]`, () => {
    let app: TestApp;
    before(async () => {
      app = await startTestApp(dialect, { env: { IAM_PASSWORD_LESS_REGISTRATION: 'true', IAM_ALLOW_PUBLIC_REGISTRATION: 'true' } });
    });
    after(async () => app?.close());

    const signIn = JSON.stringify({ username: 'nobody-here', password: 'wrong-password' });

    it(`reads a body of exactly IAM_BODY_MAX_BYTES (${IAM_LIMIT}) and refuses one byte more with 413 naming the setting`, async () => {
      const at = await app.anon.post('/api/iam/authenticate', undefined, { raw: padded(signIn, IAM_LIMIT), headers: JSON_TYPE });
      expect(at.status).to.equal(401);
      expect(at.body.error.message).to.equal('invalid credentials');
      const past = await app.anon.post('/api/iam/authenticate', undefined, { raw: padded(signIn, IAM_LIMIT + 1), headers: JSON_TYPE });
      expect(past.status).to.equal(413);
      expect(past.body.error.name).to.equal('PayloadTooLargeError');
      expect(past.body.error.message).to.match(/IAM_BODY_MAX_BYTES/);
      expect(past.body.error.details).to.deep.equal({ setting: 'IAM_BODY_MAX_BYTES', limit: IAM_LIMIT });
    });

    it('every endpoint without a token has the limit; a chunked body past it too, and the connection stays usable', async () => {
      const paths = [
        '/api/iam/register',
        '/api/iam/authenticate',
        '/api/iam/refresh-tokens',
        '/api/iam/logout',
        '/api/iam/initiate/forgot-password',
        '/api/iam/confirm/forgot-password',
        '/api/iam/otp/register/initiate',
        '/api/iam/otp/register/confirm',
        '/api/iam/otp/login/initiate',
        '/api/iam/otp/login/confirm',
      ];
      for (const path of paths) {
        const res = await app.anon.post(path, undefined, { raw: padded('{}', IAM_LIMIT + 1), headers: JSON_TYPE });
        expect(res.status, path).to.equal(413);
        expect(res.body.error.details.setting, path).to.equal('IAM_BODY_MAX_BYTES');
      }
      const statuses = await onOneConnection(app.url, [chunked('/api/iam/authenticate', padded(signIn, IAM_LIMIT + 1)), post('/api/iam/authenticate', padded(signIn, 200_000)), LAST]);
      expect(statuses).to.deep.equal(['HTTP/1.1 413', 'HTTP/1.1 413', 'HTTP/1.1 200']);
    });

    it('a body past BODY_MAX_BYTES too, refused by its Content-Length before anything else, names IAM_BODY_MAX_BYTES (the limit of these endpoints)', async () => {
      for (const path of ['/api/iam/authenticate', '/api/iam/register', '/api/iam/otp/login/confirm']) {
        const res = await app.anon.post(path, undefined, { raw: padded(signIn, BODY_LIMIT + 1), headers: JSON_TYPE });
        expect(res.status, path).to.equal(413);
        expect(res.body.error.name, path).to.equal('PayloadTooLargeError');
        expect(res.body.error.message, path).to.match(/IAM_BODY_MAX_BYTES/);
        expect(res.body.error.details, path).to.deep.equal({ setting: 'IAM_BODY_MAX_BYTES', limit: IAM_LIMIT });
      }
      // an endpoint that takes a token keeps BODY_MAX_BYTES
      const withToken = await app.anon.post('/api/iam/change-password', undefined, { raw: padded('{}', BODY_LIMIT + 1), headers: JSON_TYPE });
      expect(withToken.status).to.equal(413);
      expect(withToken.body.error.details).to.deep.equal({ setting: 'BODY_MAX_BYTES', limit: BODY_LIMIT });
    });

    it('the largest legitimate body, an OTP registration with a customPayload of IAM_CUSTOM_PAYLOAD_MAX_BYTES, is read', async () => {
      const tag = Date.now().toString(36);
      const base = { username: `big${tag}`, email: `big${tag}@example.test`, fullName: 'x'.repeat(255), customPayload: { blob: '' } };
      // 16 384 bytes as the service measures it (JSON.stringify); sent with every é escaped (\u00e9) and indented, about 50 KB
      const customPayload = { blob: `${'é'.repeat(8186)}a` };
      expect(Buffer.byteLength(JSON.stringify(customPayload))).to.equal(16_384);
      const raw = JSON.stringify({ ...base, customPayload }, null, 8).replace(/é/g, '\\u00e9');
      expect(Buffer.byteLength(raw)).to.be.within(49_000, IAM_LIMIT);
      const res = await app.anon.post('/api/iam/otp/register/initiate', undefined, { raw, headers: JSON_TYPE });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
    });
  });

  describe(`identity endpoints without a token: a flood of bad bodies from one address is limited [${dialect}]`, () => {
    let app: TestApp;
    before(async () => {
      // Each test floods buckets of its own (authenticate is not one: the test app signs in with it).
      app = await startTestApp(dialect, { env: { IAM_RATE_LIMIT_PER_ADDRESS: '5', IAM_RATE_LIMIT_PER_ACCOUNT: '100', IAM_RATE_LIMIT_WINDOW: '1m', IAM_PASSWORD_LESS_REGISTRATION: 'true', IAM_ALLOW_PUBLIC_REGISTRATION: 'true' } });
    });
    after(async () => app?.close());

    const flood = async (path: string, raw: string): Promise<number[]> => {
      const statuses: number[] = [];
      for (let i = 0; i < 7; i++) statuses.push((await app.anon.post(path, undefined, { raw, headers: JSON_TYPE })).status);
      return statuses;
    };

    it('invalid JSON counts against the address: the 6th answers 429 without being parsed', async () => {
      expect(await flood('/api/iam/initiate/forgot-password', '{"email":')).to.deep.equal([400, 400, 400, 400, 400, 429, 429]);
      const limited = await app.anon.post('/api/iam/confirm/forgot-password', { email: 'x@example.test', verificationToken: 'x', password: 'long-enough-1' });
      expect(limited.status).to.equal(429);
      expect(Number(limited.headers.get('retry-after'))).to.be.above(0);
    });

    it('bodies past IAM_BODY_MAX_BYTES and invalid fields count too', async () => {
      expect(await flood('/api/iam/refresh-tokens', padded('{}', IAM_LIMIT + 1))).to.deep.equal([413, 413, 413, 413, 413, 429, 429]);
      expect(await flood('/api/iam/otp/login/confirm', '{"identifier":1}')).to.deep.equal([422, 422, 422, 422, 422, 429, 429]);
      expect(await flood('/api/iam/register', '[]')).to.deep.equal([400, 400, 400, 400, 400, 429, 429]);
    });

    it('logout is limited per address as well', async () => {
      expect(await flood('/api/iam/logout', '{"refreshToken":"nope"}')).to.deep.equal([401, 401, 401, 401, 401, 429, 429]);
    });
  });
}
