/**
 * Spec 4.2 OTP flow with several sources, and OTP registration replacing an unfinished one.
 * A sign-in or registration that sent codes to e-mail and mobile completes only when a right guess spent
 * each of them: a code that died (5 wrong tries), expired or was replaced unproven fails the whole batch
 * (401, as a wrong code). A new registration replaces only one nobody finished nor made into an account;
 * the replaced account is deleted as DELETE /api/user/{id} deletes it (record.delete + user.delete).
 */
import { expect } from 'chai';
import { DIALECTS } from '../../helpers/dialects';
import { freshEvents } from '../../helpers/fresh-events';
import { SecretWatch } from '../../helpers/no-secrets';
import { MailSink, otpIn, SmsSink } from '../../helpers/sinks';
import { startTestApp, type TestApp } from '../../helpers/test-app';

interface Who {
  readonly username: string;
  readonly email: string;
  readonly mobile: string;
}

const wrong = (code: string): string => (code === '000000' ? '111111' : '000000');

for (const dialect of DIALECTS) {
  describe(`identity: OTP batches of several sources, replaced registrations [${dialect}]`, () => {
    /** Sign-in validates e-mail and mobile (IAM_PASSWORD_LESS_LOGIN_VALIDATE_WHAT=email,mobile). */
    let both: TestApp;
    /** Sign-in validates the e-mail (a request may add mobile); taken addresses are not revealed. */
    let quiet: TestApp;
    let mail: MailSink;
    let sms: SmsSink;
    const watch = new SecretWatch();
    let n = 0;
    const who = (): Who => {
      n += 1;
      return { username: `batch${n}`, email: `batch${n}@example.test`, mobile: `+4915100000${String(n).padStart(3, '0')}` };
    };

    before(async () => {
      watch.start();
      mail = await new MailSink().start();
      sms = await new SmsSink().start();
      const env = { IAM_PASSWORD_LESS_REGISTRATION: 'true', SMTP_URL: mail.url, SMS_WEBHOOK_URL: sms.url };
      both = await startTestApp(dialect, { env: { ...env, IAM_PASSWORD_LESS_LOGIN_VALIDATE_WHAT: 'email,mobile' } });
      quiet = await startTestApp(dialect, { env: { ...env, IAM_REGISTRATION_REVEALS_TAKEN: 'false' } });
    });
    after(async () => {
      try {
        await watch.checkStoredHashes(both.deps.db);
        await watch.checkStoredHashes(quiet.deps.db);
      } finally {
        watch.stop();
        await both?.close();
        await quiet?.close();
        await mail?.close();
        await sms?.close();
      }
    });

    /** Starts an OTP registration; the codes sent (mobile too when `extra` adds it). */
    const register = async (app: TestApp, u: Who, extra: string[] = []): Promise<{ email: string; mobile: string | null }> => {
      const [m0, s0] = [mail.count(), sms.count()];
      const res = await app.anon.post('/api/iam/otp/register/initiate', { ...u, validationSources: extra });
      expect(res.status, res.text).to.equal(200);
      return { email: otpIn(await mail.next(u.email, m0)), mobile: extra.includes('mobile') ? otpIn(await sms.next(u.mobile, s0)) : null };
    };
    /** An active passwordless account (registered and verified by e-mail) with a mobile number. */
    const account = async (app: TestApp): Promise<Who> => {
      const u = who();
      const { email } = await register(app, u);
      expect((await app.anon.post('/api/iam/otp/register/confirm', { type: 'email', identifier: u.email, otp: email })).body.active).to.equal(true);
      return u;
    };
    /** Starts an OTP sign-in by e-mail; both codes sent (the app validates mobile too, or `extra` adds it). */
    const signInCodes = async (app: TestApp, u: Who, extra: string[] = []): Promise<{ email: string; mobile: string }> => {
      const [m0, s0] = [mail.count(), sms.count()];
      expect((await app.anon.post('/api/iam/otp/login/initiate', { identifier: u.email, validationSources: extra })).status).to.equal(200);
      return { email: otpIn(await mail.next(u.email, m0)), mobile: otpIn(await sms.next(u.mobile, s0)) };
    };
    /** Five wrong guesses at the mobile code: it dies. The last answer. */
    const killMobile = async (app: TestApp, flow: 'login' | 'register', u: Who, code: string) => {
      let last = null;
      for (let i = 0; i < 5; i++) {
        last = await app.anon.post(`/api/iam/otp/${flow}/confirm`, { type: 'mobile', identifier: u.mobile, otp: wrong(code) });
        expect(last.status).to.equal(401);
      }
      return last!;
    };
    const userRow = async (app: TestApp, username: string) => (await app.deps.db('users').where('username', username).first()) as Record<string, unknown> | undefined;
    const sessionsOf = async (app: TestApp, username: string): Promise<number> => {
      const id = Number((await userRow(app, username))?.id);
      return Number(((await app.deps.db('sessions').where('user_id', id).count({ n: '*' })) as { n: number | string }[])[0].n);
    };

    describe('sign-in with two sources', () => {
      it('both codes confirmed at the same moment: one of the two answers carries the tokens', async () => {
        const u = await account(both);
        for (let round = 0; round < 4; round += 1) {
          const codes = await signInCodes(both, u);
          const answers = await Promise.all([
            both.anon.post('/api/iam/otp/login/confirm', { type: 'email', identifier: u.email, otp: codes.email }),
            both.anon.post('/api/iam/otp/login/confirm', { type: 'mobile', identifier: u.mobile, otp: codes.mobile }),
          ]);
          for (const a of answers) expect(a.status, a.text).to.equal(200);
          expect(answers.filter((a) => typeof a.body.accessToken === 'string'), 'answers with tokens').to.have.length.within(1, 2);
        }
      });

      it('a mobile code killed by 5 wrong tries fails the batch: the e-mail code alone gets 401 as a wrong code, no tokens; a new initiate starts over', async () => {
        const u = await account(both);
        const codes = await signInCodes(both, u);
        const bad = await killMobile(both, 'login', u, codes.mobile);
        const res = await both.anon.post('/api/iam/otp/login/confirm', { type: 'email', identifier: u.email, otp: codes.email });
        expect(res.status).to.equal(401);
        expect(res.body).to.deep.equal(bad.body);
        expect(await sessionsOf(both, u.username)).to.equal(0);
        // starting over with both codes signs in
        const again = await signInCodes(both, u);
        const first = await both.anon.post('/api/iam/otp/login/confirm', { type: 'email', identifier: u.email, otp: again.email });
        expect(first.status).to.equal(200);
        expect(first.body).to.include({ accessToken: null, refreshToken: null });
        expect(first.body.pending).to.deep.equal(['mobile']);
        const second = await both.anon.post('/api/iam/otp/login/confirm', { type: 'mobile', identifier: u.mobile, otp: again.mobile });
        expect(second.status).to.equal(200);
        expect(second.body.accessToken).to.be.a('string');
      });

      it('the same when the request added mobile (validationSources) to the configured e-mail', async () => {
        const u = await account(quiet);
        const codes = await signInCodes(quiet, u, ['mobile']);
        const bad = await killMobile(quiet, 'login', u, codes.mobile);
        const res = await quiet.anon.post('/api/iam/otp/login/confirm', { type: 'email', identifier: u.email, otp: codes.email });
        expect(res.status).to.equal(401);
        expect(res.body).to.deep.equal(bad.body);
        expect(await sessionsOf(quiet, u.username)).to.equal(0);
      });

      it('a code of the batch that expired fails it, whichever code is confirmed first', async () => {
        const u = await account(both);
        const id = Number((await userRow(both, u.username))?.id);
        const past = new Date(Date.now() - 60_000).toISOString();
        // the e-mail code confirmed first, the mobile one expires before its turn…
        let codes = await signInCodes(both, u);
        expect((await both.anon.post('/api/iam/otp/login/confirm', { type: 'email', identifier: u.email, otp: codes.email })).body.pending).to.deep.equal(['mobile']);
        await both.deps.db('one_time_codes').where({ user_id: id, purpose: 'login', channel: 'mobile' }).whereNull('used_at').update({ expires_at: past });
        expect((await both.anon.post('/api/iam/otp/login/confirm', { type: 'mobile', identifier: u.mobile, otp: codes.mobile })).status).to.equal(401);
        // …or the mobile code expired before the e-mail one is confirmed
        codes = await signInCodes(both, u);
        await both.deps.db('one_time_codes').where({ user_id: id, purpose: 'login', channel: 'mobile' }).whereNull('used_at').update({ expires_at: past });
        expect((await both.anon.post('/api/iam/otp/login/confirm', { type: 'email', identifier: u.email, otp: codes.email })).status).to.equal(401);
        expect(await sessionsOf(both, u.username)).to.equal(0);
      });

      it('a code replaced by a newer initiate before its check fails its batch: the other code alone gets no tokens', async () => {
        const u = await account(quiet);
        // batch 1: e-mail and mobile; batch 2 (e-mail only) replaces batch 1's e-mail code
        const first = await signInCodes(quiet, u, ['mobile']);
        const since = mail.count();
        expect((await quiet.anon.post('/api/iam/otp/login/initiate', { identifier: u.email })).status).to.equal(200);
        const second = otpIn(await mail.next(u.email, since));
        expect((await quiet.anon.post('/api/iam/otp/login/confirm', { type: 'email', identifier: u.email, otp: first.email })).status).to.equal(401);
        expect((await quiet.anon.post('/api/iam/otp/login/confirm', { type: 'mobile', identifier: u.mobile, otp: first.mobile })).status).to.equal(401);
        expect(await sessionsOf(quiet, u.username)).to.equal(0);
        // the newer batch (e-mail only) signs in
        const ok = await quiet.anon.post('/api/iam/otp/login/confirm', { type: 'email', identifier: u.email, otp: second });
        expect(ok.status).to.equal(200);
        expect(ok.body.accessToken).to.be.a('string');
      });
    });

    describe('registration with two sources', () => {
      it('a mobile code that died fails the registration: the e-mail code gets 401 and proves nothing; a new initiate replaces it', async () => {
        const u = who();
        const codes = await register(both, u, ['mobile']);
        await killMobile(both, 'register', u, codes.mobile as string);
        expect((await both.anon.post('/api/iam/otp/register/confirm', { type: 'email', identifier: u.email, otp: codes.email })).status).to.equal(401);
        expect(await userRow(both, u.username)).to.deep.include({ pending_verification: 'email,mobile' });
        const row = (await userRow(both, u.username)) as Record<string, unknown>;
        expect(Boolean(row.email_verified), 'email_verified').to.equal(false);
        expect(Boolean(row.active), 'active').to.equal(false);
        const again = await register(both, u, ['mobile']);
        expect((await both.anon.post('/api/iam/otp/register/confirm', { type: 'mobile', identifier: u.mobile, otp: again.mobile })).body).to.include({ active: false });
        expect((await both.anon.post('/api/iam/otp/register/confirm', { type: 'email', identifier: u.email, otp: again.email })).body).to.include({ active: true });
      });

      it('both codes confirmed at the same moment: neither proof is lost, the account is active', async () => {
        for (let round = 0; round < 4; round += 1) {
          const u = who();
          const codes = await register(both, u, ['mobile']);
          const answers = await Promise.all([
            both.anon.post('/api/iam/otp/register/confirm', { type: 'email', identifier: u.email, otp: codes.email }),
            both.anon.post('/api/iam/otp/register/confirm', { type: 'mobile', identifier: u.mobile, otp: codes.mobile }),
          ]);
          for (const a of answers) expect(a.status, a.text).to.equal(200);
          // the one that committed last saw the other's proof: it answers active
          expect(answers.map((a) => a.body.active)).to.include(true);
          const row = (await userRow(both, u.username)) as Record<string, unknown>;
          expect(row.pending_verification, 'pending_verification').to.equal(null);
          expect(Boolean(row.active), 'active').to.equal(true);
          expect(Boolean(row.email_verified), 'email_verified').to.equal(true);
          expect(Boolean(row.mobile_verified), 'mobile_verified').to.equal(true);
        }
      });

      it('one whose registrant proved an address is not replaced while it can still finish; once its other code died, it is', async () => {
        const u = who();
        const codes = await register(both, u, ['mobile']);
        expect((await both.anon.post('/api/iam/otp/register/confirm', { type: 'email', identifier: u.email, otp: codes.email })).body).to.include({ active: false });
        const id = (await userRow(both, u.username))?.id;
        const stranger = { ...who(), email: u.email };
        const taken = await both.anon.post('/api/iam/otp/register/initiate', stranger);
        expect(taken.status).to.equal(409);
        expect(taken.body.error.details.fields).to.have.keys(['email']);
        expect((await userRow(both, u.username))?.id).to.equal(id);
        await killMobile(both, 'register', u, codes.mobile as string);
        expect((await both.anon.post('/api/iam/otp/register/initiate', stranger)).status).to.equal(200);
        expect(await userRow(both, u.username)).to.equal(undefined);
      });
    });

    describe('replacing an unfinished registration', () => {
      /** A pending OTP registration (codes sent to its e-mail); its id and e-mail code. */
      const pending = async (app: TestApp, u: Who) => {
        const { email } = await register(app, u);
        return { id: Number((await userRow(app, u.username))?.id), code: email };
      };
      const password = 'made-by-admin-1';
      watch.passwords.add(password);

      it('a registration an admin made an account (active, password, e-mail verified): a new registration of its e-mail answers 409 and the account keeps working', async () => {
        const u = who();
        const { id } = await pending(both, u);
        const patched = await both.http.patch(`/api/user/${id}`, { active: true, password, emailVerified: true });
        expect(patched.status).to.equal(200);
        expect((await userRow(both, u.username))?.pending_verification).to.equal(null);
        const session = await both.signIn(u.username, password);
        const res = await both.anon.post('/api/iam/otp/register/initiate', { ...who(), email: u.email });
        expect(res.status).to.equal(409);
        expect(res.body.error.details.fields).to.have.keys(['email']);
        expect((await userRow(both, u.username))?.id).to.equal(id);
        expect((await session.http.get('/api/iam/me')).status).to.equal(200);
      });

      it('with IAM_REGISTRATION_REVEALS_TAKEN=false: the answer of a fresh registration, a notice to the address, the account untouched', async () => {
        const u = who();
        const { id } = await pending(quiet, u);
        expect((await quiet.http.patch(`/api/user/${id}`, { active: true, password, emailVerified: true })).status).to.equal(200);
        const session = await quiet.signIn(u.username, password);
        const fresh = await quiet.anon.post('/api/iam/otp/register/initiate', who());
        const since = mail.count();
        const res = await quiet.anon.post('/api/iam/otp/register/initiate', { ...who(), email: u.email });
        expect(res.status).to.equal(200);
        expect(res.body).to.deep.equal(fresh.body);
        expect((await mail.next(u.email, since)).text).to.match(/an account already uses it/);
        expect((await userRow(quiet, u.username))?.id).to.equal(id);
        expect((await session.http.get('/api/iam/me')).status).to.equal(200);
      });

      for (const write of [{ active: true }, { password }, { emailVerified: true }, { mobileVerified: true }]) {
        it(`an admin write of ${JSON.stringify(write)} alone makes it an account: not replaced, no longer pending`, async () => {
          const u = who();
          const { id } = await pending(both, u);
          expect((await both.http.patch(`/api/user/${id}`, write)).status).to.equal(200);
          expect((await userRow(both, u.username))?.pending_verification).to.equal(null);
          for (const field of ['email', 'username', 'mobile'] as const) {
            const res = await both.anon.post('/api/iam/otp/register/initiate', { ...who(), [field]: u[field] });
            expect(res.status, field).to.equal(409);
          }
          expect((await userRow(both, u.username))?.id).to.equal(id);
        });
      }

      it('an admin write of its name leaves the registration running: its registrant finishes it', async () => {
        const u = who();
        const { id, code } = await pending(both, u);
        expect((await both.http.patch(`/api/user/${id}`, { fullName: 'Corrected Name' })).status).to.equal(200);
        expect((await userRow(both, u.username))?.pending_verification).to.equal('email');
        const ok = await both.anon.post('/api/iam/otp/register/confirm', { type: 'email', identifier: u.email, otp: code });
        expect(ok.body).to.include({ active: true });
      });

      it('an account an earlier version left marked pending (active, with a password) is not replaced', async () => {
        const owner = await both.createUser();
        await both.deps.db('users').where('id', owner.id).update({ pending_verification: 'email' });
        const res = await both.anon.post('/api/iam/otp/register/initiate', { ...who(), email: owner.email });
        expect(res.status).to.equal(409);
        expect((await owner.http.get('/api/iam/me')).status).to.equal(200);
      });

      it('a replacement is announced as a delete: record.delete and user.delete of the old account (as FindOne answered it), then the new one’s create', async () => {
        const events = freshEvents(() => both, 'user');
        const u = who();
        const { id: old } = await pending(both, u);
        const before = (await both.http.get(`/api/user/${old}`)).body;
        await events.skipAll();
        await register(both, u);
        const created = Number((await userRow(both, u.username))?.id);
        expect(created).to.not.equal(old);
        const list = await events.fresh();
        expect(list.map((e) => [e.type, e.recordId, e.actor])).to.deep.equal([
          ['record.delete', old, null],
          ['user.delete', old, null],
          ['record.create', created, null],
          ['user.create', created, null],
        ]);
        expect(list[0].record).to.deep.equal(before);
        expect(list[1].record).to.deep.equal(before);
      });
    });
  });
}
