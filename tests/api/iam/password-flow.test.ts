/** Spec 4.1 password flow and CONTRACT Identity: register, authenticate, me, refresh, logout, change and reset. */
import { expect } from 'chai';
import { createHmac } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { DIALECTS } from '../../helpers/dialects';
import { SecretWatch } from '../../helpers/no-secrets';
import { sendForm } from '../../helpers/multipart';
import { MailSink, resetTokenIn } from '../../helpers/sinks';
import { startTestApp, TEST_JWT_SECRET, type TestApp } from '../../helpers/test-app';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

for (const dialect of DIALECTS) {
  describe(`identity: password flow [${dialect}]`, () => {
    let app: TestApp;
    let mail: MailSink;
    const watch = new SecretWatch();
    const pw = (p: string): string => (watch.passwords.add(p), p);
    let n = 0;
    const fresh = () => {
      n += 1;
      return { fullName: `Person ${n}`, username: `person${n}`, email: `person${n}@example.test`, password: pw(`secret-pass-${n}`), mobile: `+4915100000${n}` };
    };

    before(async () => {
      watch.start();
      mail = await new MailSink().start();
      app = await startTestApp(dialect, { env: { IAM_ALLOW_PUBLIC_REGISTRATION: 'true', IAM_PUBLIC_REGISTRATION_ROLES: 'authenticated', SMTP_URL: mail.url, IAM_REFRESH_REUSE_INTERVAL: '1s' } });
      watch.passwords.add('admin-password-1');
    });
    after(async () => {
      try {
        const checked = await watch.checkStoredHashes(app.deps.db);
        expect(checked).to.be.greaterThan(0);
      } finally {
        watch.stop();
        await app?.close();
        await mail?.close();
      }
    });

    describe('POST /api/iam/register', () => {
      it('answers the user (2.6) without password or hash, with the default role', async () => {
        const u = fresh();
        const res = await app.anon.post('/api/iam/register', u);
        expect(res.status).to.equal(200);
        expect(res.body).to.have.keys(['id', 'fullName', 'username', 'email', 'mobile', 'forcePasswordChange', 'roles', 'createdAt', 'updatedAt']);
        expect(res.body).to.include({ fullName: u.fullName, username: u.username, email: u.email, mobile: u.mobile, forcePasswordChange: false });
        expect(res.body.roles).to.deep.equal(['authenticated']);
      });

      it('refuses admin in any spelling and roles not offered to the public (403)', async () => {
        for (const roles of [['admin'], ['ADMIN'], [' Admin '], ['authenticated', 'admin'], ['editor']]) {
          const res = await app.anon.post('/api/iam/register', { ...fresh(), roles });
          expect(res.status, JSON.stringify(roles)).to.equal(403);
        }
      });

      it('server-owned fields and customPayload never set roles or flags', async () => {
        const u = fresh();
        const res = await app.anon.post('/api/iam/register', { ...u, active: false, forcePasswordChange: true, emailVerified: true, id: 1, customPayload: { roles: ['admin'] } });
        expect(res.status).to.equal(200);
        expect(res.body.roles).to.deep.equal(['authenticated']);
        expect(res.body.forcePasswordChange).to.equal(false);
        expect(res.body.id).to.not.equal(1);
      });

      it('duplicate username or email, also differing in case or whitespace → 409; parallel duplicates → one 200, the rest 409', async () => {
        const u = fresh();
        expect((await app.anon.post('/api/iam/register', u)).status).to.equal(200);
        const a = await app.anon.post('/api/iam/register', { ...fresh(), username: u.username.toUpperCase() });
        expect(a.status).to.equal(409);
        expect(a.body.error.details.fields).to.have.property('username');
        const b = await app.anon.post('/api/iam/register', { ...fresh(), email: ` ${u.email.toUpperCase()} ` });
        expect(b.status).to.equal(409);
        const race = fresh();
        const all = await Promise.all([0, 1, 2, 3].map((i) => app.anon.post('/api/iam/register', { ...race, username: i % 2 ? race.username.toUpperCase() : race.username })));
        expect(all.map((r) => r.status).sort()).to.deep.equal([200, 409, 409, 409]);
      });

      it('passwords: < 8 characters or > 72 bytes → 422 (never truncated); bad input → 422 with details.fields', async () => {
        const short = await app.anon.post('/api/iam/register', { ...fresh(), password: 'short' });
        expect(short.status).to.equal(422);
        expect(short.body.error.details.fields.password[0]).to.match(/at least 8/);
        const long = await app.anon.post('/api/iam/register', { ...fresh(), password: 'é'.repeat(37) });
        expect(long.status).to.equal(422);
        expect(long.body.error.details.fields.password[0]).to.match(/72 bytes/);
        const bad = await app.anon.post('/api/iam/register', { username: 7, email: 'nope' });
        expect(bad.status).to.equal(422);
        expect(bad.body.error.details.fields).to.have.keys(['username', 'email', 'password']);
        expect((await app.anon.post('/api/iam/register', undefined, { raw: '[1]', headers: { 'content-type': 'application/json' } })).status).to.equal(400);
      });
    });

    describe('POST /api/iam/authenticate and GET /api/iam/me', () => {
      it('signs in by e-mail or username (case-insensitively) and answers { data: { user, accessToken, refreshToken } }', async () => {
        const u = fresh();
        await app.anon.post('/api/iam/register', u);
        const byEmail = await app.anon.post('/api/iam/authenticate', { email: u.email.toUpperCase(), username: '', password: u.password });
        expect(byEmail.status).to.equal(200);
        expect(byEmail.body.data.user).to.deep.equal({ email: u.email, username: u.username, roles: ['authenticated'] });
        expect(byEmail.body.data.accessToken).to.be.a('string');
        expect(byEmail.body.data.refreshToken).to.be.a('string');
        const byName = await app.anon.post('/api/iam/authenticate', { username: u.username, password: u.password });
        expect(byName.status).to.equal(200);
        const me = await app.anon.withToken(byName.body.data.accessToken).get('/api/iam/me');
        expect(me.status).to.equal(200);
        expect(me.body).to.deep.equal({ user: { email: u.email, username: u.username, roles: ['authenticated'] }, accessToken: byName.body.data.accessToken, refreshToken: null });
      });

      it('an e-mail typed into username signs in (spec 4.1 rule 1); a wrong password there is the usual 401', async () => {
        const u = fresh();
        await app.anon.post('/api/iam/register', u);
        for (const body of [{ username: u.email }, { username: ` ${u.email.toUpperCase()} ` }, { email: '', username: u.email }]) {
          const res = await app.anon.post('/api/iam/authenticate', { ...body, password: u.password });
          expect(res.status, JSON.stringify(body)).to.equal(200);
          expect(res.body.data.user).to.deep.equal({ email: u.email, username: u.username, roles: ['authenticated'] });
        }
        const wrong = await app.anon.post('/api/iam/authenticate', { username: u.email, password: 'wrong-password' });
        expect(wrong.status).to.equal(401);
        const unknown = await app.anon.post('/api/iam/authenticate', { username: 'nobody@example.test', password: 'wrong-password' });
        expect(unknown.body).to.deep.equal(wrong.body);
      });

      it('unknown user and wrong password answer identically, in about the same time', async () => {
        const u = fresh();
        await app.anon.post('/api/iam/register', u);
        const time = async (body: unknown) => {
          const t = process.hrtime.bigint();
          const r = await app.anon.post('/api/iam/authenticate', body);
          return { r, ms: Number(process.hrtime.bigint() - t) / 1e6 };
        };
        const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
        const wrongMs: number[] = [];
        const unknownMs: number[] = [];
        let wrong = await time({ username: u.username, password: 'wrong-password' });
        let unknown = await time({ username: 'nobody-here', password: 'wrong-password' });
        for (let i = 0; i < 7; i++) {
          wrong = await time({ username: u.username, password: 'wrong-password' });
          unknown = await time({ username: 'nobody-here', password: 'wrong-password' });
          wrongMs.push(wrong.ms);
          unknownMs.push(unknown.ms);
        }
        expect(wrong.r.status).to.equal(401);
        expect(unknown.r.status).to.equal(401);
        expect(unknown.r.body).to.deep.equal({ error: { ...wrong.r.body.error } });
        expect(Math.abs(median(unknownMs) - median(wrongMs))).to.be.lessThan(25);
      });

      it('me without a token → 401; tampered, alg:none, expired-signature and foreign tokens → 401', async () => {
        expect((await app.anon.get('/api/iam/me')).status).to.equal(401);
        const token = app.admin!.accessToken;
        const [h, p, s] = token.split('.');
        const claims = JSON.parse(Buffer.from(p, 'base64url').toString());
        const forged = Buffer.from(JSON.stringify({ ...claims, sub: '999' })).toString('base64url');
        const none = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url')}.${p}.`;
        const otherKey = jwt.sign(claims, 'another-secret-another-secret-another-secret', { algorithm: 'HS256' });
        const flipped = `${h}.${p}.${s.slice(0, -2)}${s.slice(-2) === 'AA' ? 'AB' : 'AA'}`;
        const expired = jwt.sign({ ...claims, exp: Math.floor(Date.now() / 1000) - 10 }, TEST_JWT_SECRET, { algorithm: 'HS256' });
        const wrongAudience = jwt.sign({ ...claims, aud: 'somebody-else' }, TEST_JWT_SECRET, { algorithm: 'HS256' });
        for (const bad of [`${h}.${forged}.${s}`, none, otherKey, flipped, expired, wrongAudience, 'garbage']) {
          expect((await app.anon.withToken(bad).get('/api/iam/me')).status, bad).to.equal(401);
          expect((await app.anon.withToken(bad).get('/api/institute')).status, bad).to.equal(401);
        }
        expect((await app.anon.withToken(token).get('/api/iam/me')).status).to.equal(200);
      });
    });

    describe('passwords over 72 bytes (bcrypt reads only 72; issue 13 item 10)', () => {
      it('a 72-byte password plus any suffix does not sign in: the same 401 as a wrong password', async () => {
        const exact = pw('p'.repeat(60) + 'exactly-72-b'); // 72 bytes
        expect(Buffer.byteLength(exact)).to.equal(72);
        const u = await app.createUser({ password: exact });
        const wrong = await app.anon.post('/api/iam/authenticate', { username: u.username, password: 'p'.repeat(72 - 1) + 'X' });
        expect(wrong.status).to.equal(401);
        for (const suffix of ['x', 'anything-at-all', 'é']) {
          const res = await app.anon.post('/api/iam/authenticate', { username: u.username, password: exact + suffix });
          expect(res.status, suffix).to.equal(401);
          expect(res.body).to.deep.equal(wrong.body);
          expect((await app.anon.post('/api/iam/authenticate', { email: u.email, password: exact + suffix })).status).to.equal(401);
        }
        expect((await app.anon.post('/api/iam/authenticate', { username: u.username, password: exact })).status).to.equal(200);
      });

      it("change-password refuses a current password over 72 bytes like a wrong one (422), and changes nothing", async () => {
        const exact = pw('q'.repeat(64) + '72-bytes'); // 72 bytes
        const u = await app.createUser({ password: exact });
        const wrong = await u.http.post('/api/iam/change-password', { currentPassword: 'q'.repeat(72), newPassword: 'never-set-123' });
        expect(wrong.status).to.equal(422);
        const long = await u.http.post('/api/iam/change-password', { currentPassword: `${exact}-and-more`, newPassword: 'never-set-123' });
        expect(long.status).to.equal(422);
        expect(long.body).to.deep.equal(wrong.body);
        expect((await u.http.get('/api/iam/me')).status).to.equal(200);
        expect((await app.anon.post('/api/iam/authenticate', { username: u.username, password: exact })).status).to.equal(200);
      });
    });

    describe('refresh tokens and logout', () => {
      it('refresh rotates: a new pair; the spent token within the reuse interval gets a fresh pair of the same session', async () => {
        const u = await app.createUser();
        const first = await app.anon.post('/api/iam/refresh-tokens', { refreshToken: u.refreshToken });
        expect(first.status).to.equal(200);
        expect(first.body).to.have.keys(['accessToken', 'refreshToken']);
        expect(first.body.refreshToken).to.not.equal(u.refreshToken);
        const again = await app.anon.post('/api/iam/refresh-tokens', { refreshToken: u.refreshToken });
        expect(again.status).to.equal(200);
        const sid = (t: string) => (jwt.decode(t) as { sid: string }).sid;
        expect(sid(again.body.accessToken)).to.equal(sid(first.body.accessToken));
        // both tabs stay signed in
        expect((await app.anon.post('/api/iam/refresh-tokens', { refreshToken: first.body.refreshToken })).status).to.equal(200);
        expect((await app.anon.post('/api/iam/refresh-tokens', { refreshToken: again.body.refreshToken })).status).to.equal(200);
      });

      it('a spent token presented after the reuse interval revokes the whole session (401 everywhere)', async () => {
        const u = await app.createUser();
        const next = (await app.anon.post('/api/iam/refresh-tokens', { refreshToken: u.refreshToken })).body;
        await sleep(1200);
        expect((await app.anon.post('/api/iam/refresh-tokens', { refreshToken: u.refreshToken })).status).to.equal(401);
        expect((await app.anon.post('/api/iam/refresh-tokens', { refreshToken: next.refreshToken })).status).to.equal(401);
        expect((await app.anon.withToken(next.accessToken).get('/api/iam/me')).status).to.equal(401);
        expect((await u.http.get('/api/iam/me')).status).to.equal(401);
      });

      it('unknown, malformed or missing refresh tokens → 401 / 422', async () => {
        expect((await app.anon.post('/api/iam/refresh-tokens', { refreshToken: 'x'.repeat(43) })).status).to.equal(401);
        expect((await app.anon.post('/api/iam/refresh-tokens', {})).status).to.equal(422);
        expect((await app.anon.post('/api/iam/refresh-tokens', { refreshToken: 5 })).status).to.equal(422);
      });

      it('logout ends that session only: its refresh and access tokens are refused, another device stays', async () => {
        const u = await app.createUser();
        const other = await app.signIn(u.username, u.password);
        const res = await app.anon.post('/api/iam/logout', { refreshToken: u.refreshToken });
        expect(res.status).to.equal(200);
        expect(res.body.message).to.be.a('string');
        expect((await u.http.get('/api/iam/me')).status).to.equal(401);
        expect((await app.anon.post('/api/iam/refresh-tokens', { refreshToken: u.refreshToken })).status).to.equal(401);
        expect((await other.http.get('/api/iam/me')).status).to.equal(200);
        expect((await app.anon.post('/api/iam/logout', { refreshToken: u.refreshToken })).status).to.equal(401);
      });

      it('logout with allDevices ends every session of the user', async () => {
        const u = await app.createUser();
        const other = await app.signIn(u.username, u.password);
        expect((await app.anon.post('/api/iam/logout', { refreshToken: u.refreshToken, allDevices: true })).status).to.equal(200);
        expect((await other.http.get('/api/iam/me')).status).to.equal(401);
        expect((await app.anon.post('/api/iam/refresh-tokens', { refreshToken: other.refreshToken })).status).to.equal(401);
      });
      it('a spent refresh token after the reuse interval signs no device out: 401 and reuse detection, other sessions stay', async () => {
        const u = await app.createUser();
        const other = await app.signIn(u.username, u.password);
        const next = (await app.anon.post('/api/iam/refresh-tokens', { refreshToken: u.refreshToken })).body;
        await sleep(1200);
        const res = await app.anon.post('/api/iam/logout', { refreshToken: u.refreshToken, allDevices: true });
        expect(res.status, res.text).to.equal(401);
        // reuse detection: that session ends (as a refresh with it would end it), the other device stays
        expect((await app.anon.withToken(next.accessToken).get('/api/iam/me')).status).to.equal(401);
        expect((await other.http.get('/api/iam/me')).status).to.equal(200);
        expect((await app.anon.post('/api/iam/refresh-tokens', { refreshToken: other.refreshToken })).status).to.equal(200);
      });
    });

    describe('POST /api/iam/change-password', () => {
      it('changes the caller own password and ends every session', async () => {
        const u = await app.createUser({ password: pw('change-me-123') });
        const other = await app.signIn(u.username, u.password);
        const res = await u.http.post('/api/iam/change-password', { id: u.id, email: u.email, currentPassword: u.password, newPassword: pw('changed-456!') });
        expect(res.status).to.equal(200);
        expect(res.body.message).to.be.a('string');
        expect((await other.http.get('/api/iam/me')).status).to.equal(401);
        expect((await app.anon.post('/api/iam/authenticate', { username: u.username, password: u.password })).status).to.equal(401);
        expect((await app.anon.post('/api/iam/authenticate', { username: u.username, password: 'changed-456!' })).status).to.equal(200);
      });

      it('naming another account (id or email) → 403; wrong current password → 422; no token → 401', async () => {
        const u = await app.createUser();
        const victim = await app.createUser();
        expect((await u.http.post('/api/iam/change-password', { id: victim.id, currentPassword: u.password, newPassword: 'whatever-123' })).status).to.equal(403);
        expect((await u.http.post('/api/iam/change-password', { email: victim.email, currentPassword: u.password, newPassword: 'whatever-123' })).status).to.equal(403);
        const wrong = await u.http.post('/api/iam/change-password', { currentPassword: 'not-it-at-all', newPassword: 'whatever-123' });
        expect(wrong.status).to.equal(422);
        expect(wrong.body.error.details.fields).to.have.property('currentPassword');
        expect((await app.anon.post('/api/iam/change-password', { currentPassword: 'x', newPassword: 'whatever-123' })).status).to.equal(401);
        expect((await app.anon.post('/api/iam/authenticate', { username: victim.username, password: victim.password })).status).to.equal(200);
      });
    });

    describe('an admin sets a password or deactivates through /api/user (issue 13 item 7)', () => {
      const refresh = (t: string) => app.anon.post('/api/iam/refresh-tokens', { refreshToken: t });

      it('deactivation ends every session: refused while inactive, and still refused after reactivation', async () => {
        const u = await app.createUser();
        const other = await app.signIn(u.username, u.password);
        expect((await app.http.patch(`/api/user/${u.id}`, { active: false })).status).to.equal(200);
        expect((await u.http.get('/api/iam/me')).status).to.equal(401);
        expect((await refresh(other.refreshToken)).status).to.equal(401);
        expect((await app.anon.post('/api/iam/authenticate', { username: u.username, password: u.password })).status).to.equal(401);
        expect((await app.http.patch(`/api/user/${u.id}`, { active: true })).status).to.equal(200);
        // the old pairs stay dead; a new sign-in works
        expect((await u.http.get('/api/iam/me')).status).to.equal(401);
        expect((await other.http.get('/api/institute')).status).to.equal(401);
        expect((await refresh(u.refreshToken)).status).to.equal(401);
        const back = await app.signIn(u.username, u.password);
        expect((await back.http.get('/api/iam/me')).status).to.equal(200);
      });

      it('a password set by PATCH, or cleared by a PUT without one, ends every session; other changes do not', async () => {
        const u = await app.createUser();
        expect((await app.http.patch(`/api/user/${u.id}`, { fullName: 'Renamed', active: true })).status).to.equal(200);
        expect((await u.http.get('/api/iam/me')).status).to.equal(200);
        expect((await app.http.patch(`/api/user/${u.id}`, { password: pw('set-by-admin-1') })).status).to.equal(200);
        expect((await u.http.get('/api/iam/me')).status).to.equal(401);
        expect((await refresh(u.refreshToken)).status).to.equal(401);
        const again = await app.signIn(u.username, 'set-by-admin-1');
        const put = await app.http.put(`/api/user/${u.id}`, { username: u.username, email: u.email, fullName: 'Put' });
        expect(put.status).to.equal(200);
        expect((await again.http.get('/api/iam/me')).status).to.equal(401);
        expect((await refresh(again.refreshToken)).status).to.equal(401);
      });

      it('a multipart update (updateDto) that deactivates ends every session too', async () => {
        const u = await app.createUser();
        const res = await sendForm(`${app.url}/api/user/${u.id}`, 'PATCH', { updateDto: { active: false } }, [], fetch, app.admin!.accessToken);
        expect(res.status).to.equal(200);
        expect((await app.http.patch(`/api/user/${u.id}`, { active: true })).status).to.equal(200);
        expect((await u.http.get('/api/iam/me')).status).to.equal(401);
        expect((await refresh(u.refreshToken)).status).to.equal(401);
      });

      it('an account made inactive by any other means: its refresh and bearer are refused, and stay so after reactivation', async () => {
        const u = await app.createUser();
        const other = await app.signIn(u.username, u.password);
        const users = app.deps.registry.get('user')!.table;
        await app.deps.db(users).where('id', u.id).update({ active: false });
        await sleep(600); // the session cache holds ≤ 0.5 s
        expect((await refresh(u.refreshToken)).status).to.equal(401);
        expect((await other.http.get('/api/iam/me')).status).to.equal(401);
        await app.deps.db(users).where('id', u.id).update({ active: true });
        expect((await u.http.get('/api/iam/me')).status).to.equal(401);
        expect((await other.http.get('/api/iam/me')).status).to.equal(401);
        expect((await refresh(other.refreshToken)).status).to.equal(401);
      });

      it('a refused change (no permission, no such user, invalid value) ends nothing', async () => {
        const u = await app.createUser();
        const other = await app.createUser();
        expect((await other.http.patch(`/api/user/${u.id}`, { password: 'not-allowed-1' })).status).to.equal(403);
        expect((await other.http.patch(`/api/user/${u.id}`, { active: false })).status).to.equal(403);
        expect((await app.http.patch('/api/user/999999', { password: 'nobody-here-1' })).status).to.equal(404);
        expect((await app.http.patch(`/api/user/${u.id}`, { password: 'short' })).status).to.equal(422);
        expect((await app.http.patch(`/api/user/${u.id}`, { active: 'no' })).status).to.equal(422);
        expect((await u.http.get('/api/iam/me')).status).to.equal(200);
        expect((await app.http.get(`/api/user/${u.id}`)).status).to.equal(200);
      });
    });

    describe('forgot password', () => {
      it('initiate answers the same status and shape whether or not the account exists', async () => {
        const u = await app.createUser();
        const known = await app.anon.post('/api/iam/initiate/forgot-password', { email: u.email });
        const unknown = await app.anon.post('/api/iam/initiate/forgot-password', { email: 'nobody@example.test' });
        expect(known.status).to.equal(200);
        expect(unknown.status).to.equal(200);
        expect(Object.keys(known.body)).to.deep.equal(Object.keys(unknown.body));
        expect(known.body.message).to.equal(unknown.body.message);
        expect(known.body.status).to.equal('success');
        expect(known.body.data.user).to.have.keys(['email', 'username']);
        const mismatch = await app.anon.post('/api/iam/initiate/forgot-password', { email: u.email, username: 'someone-else' });
        expect(mismatch.status).to.equal(200);
        expect(mismatch.body.message).to.equal(known.body.message);
        expect((await app.anon.post('/api/iam/initiate/forgot-password', {})).status).to.equal(422);
      });

      it('mails a URL-safe token (≥ 32 chars); confirm resets the password once, ends every session', async () => {
        const u = await app.createUser();
        const since = mail.count();
        await app.anon.post('/api/iam/initiate/forgot-password', { username: u.username });
        const token = resetTokenIn(await mail.next(u.email, since));
        expect(token).to.match(/^[A-Za-z0-9_-]{32,}$/);
        // stored only as a keyed hash
        const stored = (await app.deps.db('one_time_codes').where('purpose', 'reset').select('code_hash')) as { code_hash: string }[];
        expect(stored.map((r) => r.code_hash)).to.include(createHmac('sha256', TEST_JWT_SECRET).update(token).digest('hex'));
        expect(JSON.stringify(stored)).to.not.contain(token);
        const weak = await app.anon.post('/api/iam/confirm/forgot-password', { email: u.email, verificationToken: token, password: 'short' });
        expect(weak.status).to.equal(422);
        const res = await app.anon.post('/api/iam/confirm/forgot-password', { email: u.email, username: u.username, verificationToken: token, password: pw('after-reset-1') });
        expect(res.status).to.equal(200);
        expect(res.body).to.deep.include({ status: 'success', error: '', errorCode: '', data: {} });
        expect(res.body.message).to.be.a('string');
        expect((await u.http.get('/api/iam/me')).status).to.equal(401);
        expect((await app.anon.post('/api/iam/authenticate', { username: u.username, password: 'after-reset-1' })).status).to.equal(200);
        const reused = await app.anon.post('/api/iam/confirm/forgot-password', { email: u.email, verificationToken: token, password: 'another-one-2' });
        expect(reused.status).to.equal(400);
        expect(reused.body.error.details.errorCode).to.equal('INVALID_RESET_TOKEN');
      });

      it('a token for one account cannot reset another (email/username must match)', async () => {
        const u = await app.createUser();
        const other = await app.createUser();
        const since = mail.count();
        await app.anon.post('/api/iam/initiate/forgot-password', { email: u.email });
        const token = resetTokenIn(await mail.next(u.email, since));
        expect((await app.anon.post('/api/iam/confirm/forgot-password', { email: other.email, verificationToken: token, password: 'hijack-pass-1' })).status).to.equal(400);
        expect((await app.anon.post('/api/iam/authenticate', { username: other.username, password: other.password })).status).to.equal(200);
        // a request naming the wrong account does not spend the token: the owner's reset still works
        expect((await app.anon.post('/api/iam/confirm/forgot-password', { username: `${u.username}x`, email: u.email, verificationToken: token, password: 'typo-pass-1' })).status).to.equal(400);
        const owner = await app.anon.post('/api/iam/confirm/forgot-password', { username: u.username, email: u.email, verificationToken: token, password: pw('owner-reset-1') });
        expect(owner.status, owner.text).to.equal(200);
        expect((await app.anon.post('/api/iam/authenticate', { username: u.username, password: 'owner-reset-1' })).status).to.equal(200);
      });
    });
  });
}
