/** Spec 4.2 OTP flow and CONTRACT Identity: codes by e-mail (SMTP) and SMS (HTTP gateway), expiry, tries, enumeration. */
import { expect } from 'chai';
import { DIALECTS } from '../../helpers/dialects';
import { SecretWatch } from '../../helpers/no-secrets';
import { MailSink, otpIn, resetTokenIn, SmsSink } from '../../helpers/sinks';
import { startTestApp, type TestApp } from '../../helpers/test-app';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

for (const dialect of DIALECTS) {
  describe(`identity: OTP flow [${dialect}]`, () => {
    let app: TestApp;
    let mail: MailSink;
    let sms: SmsSink;
    const watch = new SecretWatch();
    let n = 0;
    const who = () => {
      n += 1;
      return { username: `otp${n}`, email: `otp${n}@example.test`, mobile: `+4917000000${String(n).padStart(2, '0')}` };
    };
    /** Registers and verifies by e-mail: an active passwordless account. */
    const registered = async () => {
      const u = who();
      const since = mail.count();
      expect((await app.anon.post('/api/iam/otp/register/initiate', u)).status).to.equal(200);
      const code = otpIn(await mail.next(u.email, since));
      const res = await app.anon.post('/api/iam/otp/register/confirm', { type: 'email', identifier: u.email, otp: code });
      expect(res.body.active).to.equal(true);
      return u;
    };

    before(async () => {
      watch.start();
      mail = await new MailSink().start();
      sms = await new SmsSink().start();
      app = await startTestApp(dialect, { env: { IAM_PASSWORD_LESS_REGISTRATION: 'true', SMTP_URL: mail.url, SMS_WEBHOOK_URL: sms.url, IAM_ALLOW_PUBLIC_REGISTRATION: 'true' } });
    });
    after(async () => {
      try {
        await watch.checkStoredHashes(app.deps.db);
      } finally {
        watch.stop();
        await app?.close();
        await mail?.close();
        await sms?.close();
      }
    });

    it('register: initiate sends a 6-digit code; confirm activates the account; the code is single use', async () => {
      const u = who();
      const since = mail.count();
      const res = await app.anon.post('/api/iam/otp/register/initiate', { ...u, customPayload: { roles: ['admin'], active: true } });
      expect(res.status).to.equal(200);
      expect(res.body).to.have.keys(['message']);
      const code = otpIn(await mail.next(u.email, since));
      expect(code).to.match(/^\d{6}$/);
      // pending: cannot sign in yet
      expect((await app.anon.post('/api/iam/otp/login/initiate', { identifier: u.email })).status).to.equal(200);
      const ok = await app.anon.post('/api/iam/otp/register/confirm', { type: 'email', identifier: u.email, otp: code });
      expect(ok.status).to.equal(200);
      expect(ok.body.active).to.equal(true);
      expect(ok.body.message).to.match(/e-mail/);
      expect((await app.anon.post('/api/iam/otp/register/confirm', { type: 'email', identifier: u.email, otp: code })).status).to.equal(401);
      const user = await app.http.get(`/api/user?filters[username][$eq]=${u.username}&populate[0]=roles`);
      expect(user.body.records[0]).to.include({ active: true, emailVerified: true });
      expect(user.body.records[0].roles.map((r: { name: string }) => r.name)).to.deep.equal(['authenticated']);
    });

    it('validationSources adds mobile (SMS gateway); the account is active only when both are verified', async () => {
      const u = who();
      const [m0, s0] = [mail.count(), sms.count()];
      expect((await app.anon.post('/api/iam/otp/register/initiate', { ...u, validationSources: ['mobile'] })).status).to.equal(200);
      const emailCode = otpIn(await mail.next(u.email, m0));
      const smsCode = otpIn(await sms.next(u.mobile, s0));
      const first = await app.anon.post('/api/iam/otp/register/confirm', { type: 'mobile', identifier: u.mobile, otp: smsCode });
      expect(first.body).to.include({ active: false });
      const second = await app.anon.post('/api/iam/otp/register/confirm', { type: 'email', identifier: u.email, otp: emailCode });
      expect(second.body).to.include({ active: true });
    });

    it('a request cannot remove the configured source; a bad source → 422; a mobile source needs a mobile', async () => {
      const u = who();
      const since = mail.count();
      expect((await app.anon.post('/api/iam/otp/register/initiate', { ...u, validationSources: [] })).status).to.equal(200);
      await mail.next(u.email, since);
      expect((await app.anon.post('/api/iam/otp/register/initiate', { ...who(), validationSources: ['pigeon'] })).status).to.equal(422);
      const { mobile: _m, ...noMobile } = who();
      expect((await app.anon.post('/api/iam/otp/register/initiate', { ...noMobile, validationSources: ['mobile'] })).status).to.equal(422);
    });

    it('registering identifiers an active account holds → 409; a pending registration can be started again', async () => {
      const u = await registered();
      expect((await app.anon.post('/api/iam/otp/register/initiate', { ...who(), email: u.email.toUpperCase() })).status).to.equal(409);
      const p = who();
      expect((await app.anon.post('/api/iam/otp/register/initiate', p)).status).to.equal(200);
      const since = mail.count();
      expect((await app.anon.post('/api/iam/otp/register/initiate', p)).status).to.equal(200);
      const code = otpIn(await mail.next(p.email, since));
      expect((await app.anon.post('/api/iam/otp/register/confirm', { identifier: p.email, otp: code })).body.active).to.equal(true);
    });

    it('customPayload is stored with the user and read back through /api/user (issue 13 item 15)', async () => {
      const u = who();
      const customPayload = { plan: 'gold', tags: ['a', 'ü'], nested: { n: 1, ok: true, none: null } };
      const since = mail.count();
      expect((await app.anon.post('/api/iam/otp/register/initiate', { ...u, customPayload })).status).to.equal(200);
      const code = otpIn(await mail.next(u.email, since));
      expect((await app.anon.post('/api/iam/otp/register/confirm', { identifier: u.email, otp: code })).body.active).to.equal(true);
      const list = await app.http.get(`/api/user?filters[username][$eq]=${u.username}`);
      expect(list.body.records[0].customPayload).to.deep.equal(customPayload);
      const one = await app.http.get(`/api/user/${list.body.records[0].id}`);
      expect(one.status).to.equal(200);
      expect(one.body.customPayload).to.deep.equal(customPayload);
      // a registration without one stores null
      const bare = await registered();
      expect((await app.http.get(`/api/user?filters[username][$eq]=${bare.username}`)).body.records[0].customPayload).to.equal(null);
    });

    it('customPayload: at IAM_CUSTOM_PAYLOAD_MAX_BYTES (16384) → 200, one byte more → 422 naming the setting; non-objects and NUL characters → 422', async () => {
      const sized = (bytes: number) => ({ s: 'x'.repeat(bytes - 8) }); // {"s":"…"} is 8 bytes around the value
      expect(Buffer.byteLength(JSON.stringify(sized(16384)))).to.equal(16384);
      expect((await app.anon.post('/api/iam/otp/register/initiate', { ...who(), customPayload: sized(16384) })).status).to.equal(200);
      const over = await app.anon.post('/api/iam/otp/register/initiate', { ...who(), customPayload: sized(16385) });
      expect(over.status).to.equal(422);
      expect(over.body.error.details.fields.customPayload[0]).to.match(/16384 bytes.*IAM_CUSTOM_PAYLOAD_MAX_BYTES/);
      for (const bad of [[1, 2], 'text', 5, { a: 'nul\u0000here' }, { ['k\u0000']: 1 }, { deep: [{ x: '\u0000' }] }]) {
        const res = await app.anon.post('/api/iam/otp/register/initiate', { ...who(), customPayload: bad });
        expect(res.status, JSON.stringify(bad)).to.equal(422);
        expect(res.body.error.details.fields).to.have.property('customPayload');
      }
    });

    it('login: initiate answers the same for unknown accounts; confirm answers tokens and the 2.7 user', async () => {
      const u = await registered();
      const since = mail.count();
      const known = await app.anon.post('/api/iam/otp/login/initiate', { identifier: u.username });
      const unknown = await app.anon.post('/api/iam/otp/login/initiate', { identifier: 'nobody-at-all' });
      const unknownMail = await app.anon.post('/api/iam/otp/login/initiate', { identifier: 'nobody@example.test', type: 'email' });
      expect(known.status).to.equal(200);
      expect(unknown.body).to.deep.equal(known.body);
      expect(unknownMail.body).to.deep.equal(known.body);
      const code = otpIn(await mail.next(u.email, since));
      const res = await app.anon.post('/api/iam/otp/login/confirm', { type: 'username', identifier: u.username, otp: code });
      expect(res.status).to.equal(200);
      expect(res.body).to.have.keys(['accessToken', 'refreshToken', 'user']);
      expect(res.body.user).to.deep.include({ username: u.username, email: u.email, mobile: u.mobile, lastLoginProvider: 'otp', roles: ['authenticated'] });
      expect(res.body.user.id).to.be.a('number');
      expect((await app.anon.withToken(res.body.accessToken).get('/api/iam/me')).status).to.equal(200);
      expect((await app.anon.post('/api/iam/otp/login/confirm', { type: 'username', identifier: u.username, otp: code })).status).to.equal(401);
    });

    it('a code dies after 5 wrong tries, even the right one after that; unknown identifiers answer like wrong codes', async () => {
      const u = await registered();
      const since = mail.count();
      await app.anon.post('/api/iam/otp/login/initiate', { identifier: u.email });
      const code = otpIn(await mail.next(u.email, since));
      const wrong = code === '000000' ? '111111' : '000000';
      const answers = [];
      for (let i = 0; i < 5; i++) answers.push(await app.anon.post('/api/iam/otp/login/confirm', { identifier: u.email, otp: wrong }));
      expect(answers.map((a) => a.status)).to.deep.equal([401, 401, 401, 401, 401]);
      expect((await app.anon.post('/api/iam/otp/login/confirm', { identifier: u.email, otp: code })).status).to.equal(401);
      const ghost = await app.anon.post('/api/iam/otp/login/confirm', { identifier: 'ghost@example.test', otp: wrong });
      expect(ghost.body).to.deep.equal(answers[0].body);
    });

    it('parallel guesses gain nothing: attempts are counted before comparing', async () => {
      const u = await registered();
      const since = mail.count();
      await app.anon.post('/api/iam/otp/login/initiate', { identifier: u.email });
      const code = otpIn(await mail.next(u.email, since));
      const guesses = Array.from({ length: 20 }, (_, i) => String((Number(code) + 1 + i) % 1_000_000).padStart(6, '0'));
      await Promise.all(guesses.map((g) => app.anon.post('/api/iam/otp/login/confirm', { identifier: u.email, otp: g })));
      const row = (await app.deps.db('one_time_codes').where('purpose', 'login').orderBy('id', 'desc').first('attempts')) as { attempts: number };
      expect(Number(row.attempts)).to.equal(5);
      expect((await app.anon.post('/api/iam/otp/login/confirm', { identifier: u.email, otp: code })).status).to.equal(401);
    });

    it('the first verified proof ends the sessions opened before it, and keeps the password (issue 13 item 14)', async () => {
      // An account registered by public password registration, its address never proven…
      const reg = { username: 'registrant', email: 'registrant@example.test', password: 'registrant-pass-1', mobile: '+491710000999' };
      watch.passwords.add(reg.password);
      expect((await app.anon.post('/api/iam/register', reg)).status).to.equal(200);
      const before = await app.signIn(reg.username, reg.password);
      // …then the address is proven by an OTP sign-in.
      const since = mail.count();
      await app.anon.post('/api/iam/otp/login/initiate', { identifier: reg.email });
      const code = otpIn(await mail.next(reg.email, since));
      expect((await app.anon.post('/api/iam/otp/login/confirm', { identifier: reg.email, otp: code })).status).to.equal(200);
      // Sessions opened before the proof end; the password the registrant set still signs in.
      expect((await before.http.get('/api/iam/me')).status).to.equal(401);
      expect((await app.anon.post('/api/iam/authenticate', { username: reg.username, password: reg.password })).status).to.equal(200);
      expect((await app.anon.post('/api/iam/authenticate', { email: reg.email, password: reg.password })).status).to.equal(200);
      const row = await app.http.get(`/api/user?filters[username][$eq]=${reg.username}`);
      expect(row.body.records[0]).to.include({ emailVerified: true });
    });

    /** OTP sign-in by e-mail: the confirm answer. */
    const otpSignIn = async (email: string) => {
      const since = mail.count();
      expect((await app.anon.post('/api/iam/otp/login/initiate', { identifier: email })).status).to.equal(200);
      const code = otpIn(await mail.next(email, since));
      return app.anon.post('/api/iam/otp/login/confirm', { identifier: email, otp: code });
    };

    it('a password reset by the mailed token proves the address: a later OTP sign-in keeps that password and its sessions (issue 13 item 14)', async () => {
      const u = { ...who(), password: 'registered-pass-1' };
      watch.passwords.add(u.password);
      watch.passwords.add('after-reset-pass-1');
      expect((await app.anon.post('/api/iam/register', u)).status).to.equal(200);
      const since = mail.count();
      expect((await app.anon.post('/api/iam/initiate/forgot-password', { email: u.email })).status).to.equal(200);
      const token = resetTokenIn(await mail.next(u.email, since));
      expect((await app.anon.post('/api/iam/confirm/forgot-password', { email: u.email, verificationToken: token, password: 'after-reset-pass-1' })).status).to.equal(200);
      const session = await app.signIn(u.username, 'after-reset-pass-1');
      expect((await otpSignIn(u.email)).status).to.equal(200);
      expect((await session.http.get('/api/iam/me')).status).to.equal(200);
      expect((await app.anon.post('/api/iam/authenticate', { username: u.username, password: 'after-reset-pass-1' })).status).to.equal(200);
      const row = await app.http.get(`/api/user?filters[username][$eq]=${u.username}`);
      expect(row.body.records[0]).to.include({ emailVerified: true });
    });

    it('once an address is proven, OTP sign-ins (by e-mail or mobile) never erase a password set later', async () => {
      const u = await registered();
      const user = (await app.http.get(`/api/user?filters[username][$eq]=${u.username}`)).body.records[0];
      expect((await app.http.patch(`/api/user/${user.id}`, { password: 'set-later-pass-1' })).status).to.equal(200);
      watch.passwords.add('set-later-pass-1');
      const session = await app.signIn(u.username, 'set-later-pass-1');
      expect((await otpSignIn(u.email)).status).to.equal(200);
      const [m0, s0] = [mail.count(), sms.count()];
      expect((await app.anon.post('/api/iam/otp/login/initiate', { identifier: u.mobile, validationSources: ['mobile'] })).status).to.equal(200);
      const smsCode = otpIn(await sms.next(u.mobile, s0));
      const emailCode = otpIn(await mail.next(u.email, m0));
      expect((await app.anon.post('/api/iam/otp/login/confirm', { type: 'mobile', identifier: u.mobile, otp: smsCode })).status).to.equal(200);
      expect((await app.anon.post('/api/iam/otp/login/confirm', { type: 'email', identifier: u.email, otp: emailCode })).status).to.equal(200);
      expect((await session.http.get('/api/iam/me')).status).to.equal(200);
      expect((await app.anon.post('/api/iam/authenticate', { username: u.username, password: 'set-later-pass-1' })).status).to.equal(200);
    });

    it('a mail gateway that does not answer → 503, never 500', async () => {
      const down = await startTestApp(dialect, { env: { IAM_PASSWORD_LESS_REGISTRATION: 'true', SMTP_URL: 'smtp://127.0.0.1:1' } });
      try {
        const res = await down.anon.post('/api/iam/otp/register/initiate', who());
        expect(res.status).to.equal(503);
        expect(res.body.error.name).to.equal('ServiceUnavailableError');
      } finally {
        await down.close();
      }
    });

    it('OTP endpoints answer 403 while IAM_PASSWORD_LESS_REGISTRATION is off', async () => {
      const off = await startTestApp(dialect);
      try {
        for (const p of ['register/initiate', 'register/confirm', 'login/initiate', 'login/confirm']) expect((await off.anon.post(`/api/iam/otp/${p}`, {})).status, p).to.equal(403);
        expect((await off.anon.post('/api/iam/register', who())).status).to.equal(403);
      } finally {
        await off.close();
      }
    });

    describe('IAM_REGISTRATION_REVEALS_TAKEN=false (issue 13 item 13)', () => {
      let quiet: TestApp;
      before(async () => {
        quiet = await startTestApp(dialect, { env: { IAM_PASSWORD_LESS_REGISTRATION: 'true', SMTP_URL: mail.url, IAM_REGISTRATION_REVEALS_TAKEN: 'false', IAM_ALLOW_PUBLIC_REGISTRATION: 'true' } });
      });
      after(async () => quiet?.close());

      const start = async (u: Record<string, unknown>) => quiet.anon.post('/api/iam/otp/register/initiate', u);

      it('a taken e-mail or username answers like a fresh registration; the addresses given get a notice, no code, and nothing is created', async () => {
        const owner = await quiet.createUser({ email: `owner${Date.now()}@example.test` });
        const fresh = await start({ ...who() });
        expect(fresh.status).to.equal(200);
        let since = mail.count();
        const taken = await start({ ...who(), email: owner.email.toUpperCase() });
        expect(taken.status).to.equal(200);
        expect(taken.body).to.deep.equal(fresh.body);
        const notice = await mail.next(owner.email, since);
        expect(notice.text).to.match(/an account already uses it/);
        expect(notice.text).to.not.match(/\b\d{6}\b/);
        const u = who();
        since = mail.count();
        const name = await start({ ...u, username: owner.username });
        expect(name.body).to.deep.equal(fresh.body);
        expect((await mail.next(u.email, since)).text).to.match(/username you gave is already in use/);
        const rows = await quiet.http.get(`/api/user?filters[email][$eq]=${u.email}`);
        expect(rows.body.records).to.have.length(0);
        // the owner's account is untouched and still signs in
        await quiet.signIn(owner.username, owner.password);
      });

      it('password registration still answers 409: it answers the account itself, so it cannot hide a taken one', async () => {
        const owner = await quiet.createUser();
        const res = await quiet.anon.post('/api/iam/register', { username: `x${Date.now()}`, email: owner.email, password: 'some-pass-123' });
        expect(res.status).to.equal(409);
      });
    });

    describe('expiry (short settings)', () => {
      let short: TestApp;
      before(async () => {
        short = await startTestApp(dialect, { env: { IAM_PASSWORD_LESS_REGISTRATION: 'true', SMTP_URL: mail.url, IAM_OTP_EXPIRY: '1s', IAM_FORGOT_PASSWORD_EXPIRY: '1s', IAM_JWT_ACCESS_TOKEN_TTL: '1s', IAM_JWT_REFRESH_TOKEN_TTL: '1s' } });
      });
      after(async () => short?.close());

      it('expired OTPs, reset tokens, access and refresh tokens are refused', async () => {
        const u = who();
        let since = mail.count();
        await short.anon.post('/api/iam/otp/register/initiate', u);
        const regCode = otpIn(await mail.next(u.email, since));
        const user = await short.createUser();
        since = mail.count();
        await short.anon.post('/api/iam/initiate/forgot-password', { email: user.email });
        const token = resetTokenIn(await mail.next(user.email, since));
        await sleep(1300);
        expect((await short.anon.post('/api/iam/otp/register/confirm', { identifier: u.email, otp: regCode })).status).to.equal(401);
        expect((await short.anon.post('/api/iam/confirm/forgot-password', { email: user.email, verificationToken: token, password: 'too-late-pass-1' })).status).to.equal(400);
        expect((await user.http.get('/api/iam/me')).status).to.equal(401);
        expect((await short.anon.post('/api/iam/refresh-tokens', { refreshToken: user.refreshToken })).status).to.equal(401);
      });
    });
  });
}
