/** CONTRACT: sign-in, OTP, reset and register are rate limited per client address and per account (429 + Retry-After). */
import { expect } from 'chai';
import { DIALECTS } from '../../helpers/dialects';
import { startTestApp, type TestApp } from '../../helpers/test-app';

const LIMITS = { IAM_RATE_LIMIT_PER_ACCOUNT: '3', IAM_RATE_LIMIT_PER_ADDRESS: '8', IAM_RATE_LIMIT_WINDOW: '1s', IAM_PASSWORD_LESS_REGISTRATION: 'true', IAM_ALLOW_PUBLIC_REGISTRATION: 'true' };

for (const dialect of DIALECTS) {
  for (const store of ['memory', 'redis'] as const) {
    describe(`identity: rate limits, ${store} store [${dialect}]`, () => {
      let app: TestApp;
      const tag = `${store}${Date.now().toString(36)}${dialect}`;

      before(async () => {
        app = await startTestApp(dialect, { env: { ...LIMITS, ...(store === 'redis' ? { REDIS_URL: 'redis://127.0.0.1:6379' } : {}) } });
      });
      after(async () => app?.close());
      // Each test starts in a fresh window.
      beforeEach(async () => new Promise((r) => setTimeout(r, 1100)));

      it('per account: the 4th sign-in attempt → 429 with Retry-After; case, spacing and extra fields make no fresh key', async () => {
        const name = `victim${tag}`;
        for (let i = 0; i < 3; i++) expect((await app.anon.post('/api/iam/authenticate', { username: name, password: 'wrong-password' })).status).to.equal(401);
        const limited = await app.anon.post('/api/iam/authenticate', { username: name, password: 'wrong-password' });
        expect(limited.status).to.equal(429);
        expect(limited.body.error.name).to.equal('RateLimitedError');
        const retry = Number(limited.headers.get('retry-after'));
        expect(retry).to.equal(1);
        expect((await app.anon.post('/api/iam/authenticate', { username: ` ${name.toUpperCase()} `, password: 'x', extra: Math.random() })).status).to.equal(429);
        expect((await app.anon.post('/api/iam/authenticate', { username: name, password: 'wrong-password' }, { headers: { 'x-forwarded-for': '203.0.113.9' } })).status).to.equal(429);
        await new Promise((r) => setTimeout(r, retry * 1000 + 100));
        expect((await app.anon.post('/api/iam/authenticate', { username: name, password: 'wrong-password' })).status).to.equal(401);
      });

      it('per account: username, e-mail (in either field) and their spellings share one counter (issue 13 item 8)', async () => {
        const u = await app.createUser();
        await new Promise((r) => setTimeout(r, 1100)); // the sign-in createUser made counted: a fresh window
        const tries = [{ username: u.username }, { email: u.email.toUpperCase() }, { username: ` ${u.email} ` }];
        for (const t of tries) expect((await app.anon.post('/api/iam/authenticate', { ...t, password: 'wrong-password' })).status, JSON.stringify(t)).to.equal(401);
        for (const t of [{ email: u.email }, { username: u.username }]) {
          expect((await app.anon.post('/api/iam/authenticate', { ...t, password: u.password })).status, JSON.stringify(t)).to.equal(429);
        }
        // change-password guesses count against the same account
        await new Promise((r) => setTimeout(r, 1100));
        for (let i = 0; i < 3; i++) expect((await u.http.post('/api/iam/change-password', { currentPassword: 'wrong-password', newPassword: 'never-set-123' })).status).to.equal(422);
        expect((await app.anon.post('/api/iam/authenticate', { email: u.email, password: u.password })).status).to.equal(429);
      });

      it('forgot-password and OTP sign-in count per account too, whichever identifier names it', async () => {
        const u = await app.createUser({ mobile: `+49151${Date.now() % 10_000_000}` });
        const forgot = [{ email: u.email }, { username: u.username }, { email: u.email.toUpperCase() }, { username: u.username }];
        const fs: number[] = [];
        for (const b of forgot) fs.push((await app.anon.post('/api/iam/initiate/forgot-password', b)).status);
        expect(fs).to.deep.equal([200, 200, 200, 429]);
        const otp: number[] = [];
        for (const identifier of [u.username, u.email, u.username.toUpperCase(), u.email]) otp.push((await app.anon.post('/api/iam/otp/login/initiate', { identifier })).status);
        expect(otp).to.deep.equal([200, 200, 200, 429]);
      });

      it('OTP confirmations count per account, whichever identifier names it (one counter, not one per spelling)', async () => {
        const mobile = `+49152${Date.now() % 10_000_000}`;
        const u = await app.createUser({ mobile });
        await new Promise((r) => setTimeout(r, 1100));
        const statuses: number[] = [];
        for (const identifier of [u.username, u.email, mobile, u.username.toUpperCase()]) {
          statuses.push((await app.anon.post('/api/iam/otp/login/confirm', { identifier, otp: '000000' })).status);
        }
        expect(statuses).to.deep.equal([401, 401, 401, 429]);
        await new Promise((r) => setTimeout(r, 1100));
        const register: number[] = [];
        for (const identifier of [u.email, u.email.toUpperCase(), ` ${u.email} `, u.email]) register.push((await app.anon.post('/api/iam/otp/register/confirm', { identifier, otp: '000000' })).status);
        expect(register).to.deep.equal([401, 401, 401, 429]);
      });

      it('per address: many accounts from one address → 429; a spoofed X-Forwarded-For makes no fresh key', async () => {
        const statuses: number[] = [];
        for (let i = 0; i < 9; i++) {
          statuses.push((await app.anon.post('/api/iam/initiate/forgot-password', { email: `a${i}${tag}@example.test` }, { headers: { 'x-forwarded-for': `198.51.100.${i}` } })).status);
        }
        expect(statuses.slice(0, 8).every((s) => s === 200)).to.equal(true);
        expect(statuses[8]).to.equal(429);
      });

      it('OTP and register endpoints are limited too', async () => {
        const otp: number[] = [];
        for (let i = 0; i < 4; i++) otp.push((await app.anon.post('/api/iam/otp/login/initiate', { identifier: `someone${tag}` })).status);
        expect(otp).to.deep.equal([200, 200, 200, 429]);
        const reg: number[] = [];
        for (let i = 0; i < 4; i++) reg.push((await app.anon.post('/api/iam/register', { username: `r${i}${tag}`, email: `same${tag}@example.test`, password: 'short' })).status);
        expect(reg).to.deep.equal([422, 422, 422, 429]);
      });
    });
  }
}

for (const dialect of DIALECTS) {
  describe(`identity: rate limits behind a load balancer, TRUST_PROXY=true [${dialect}]`, () => {
    let app: TestApp;
    before(async () => {
      app = await startTestApp(dialect, { env: { ...LIMITS, TRUST_PROXY: 'true' } });
    });
    after(async () => app?.close());

    it('the address is the last X-Forwarded-For entry: entries a client writes in front of it make no fresh key', async () => {
      const tag = Date.now().toString(36);
      const statuses: number[] = [];
      for (let i = 0; i < 9; i++) {
        // what an appending proxy sends: the client's own header, then the address the proxy saw
        const headers = { 'x-forwarded-for': `10.0.0.${i}, 192.0.2.${i}, 198.51.100.77` };
        statuses.push((await app.anon.post('/api/iam/initiate/forgot-password', { email: `p${i}${tag}@example.test` }, { headers })).status);
      }
      expect(statuses.slice(0, 8).every((s) => s === 200)).to.equal(true);
      expect(statuses[8]).to.equal(429);
      const other = await app.anon.post('/api/iam/initiate/forgot-password', { email: `q${tag}@example.test` }, { headers: { 'x-forwarded-for': '198.51.100.77, 198.51.100.78' } });
      expect(other.status, 'another client address, as the proxy saw it').to.equal(200);
    });
  });
}
