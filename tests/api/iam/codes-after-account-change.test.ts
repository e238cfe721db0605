/**
 * A reset token or sign-in code is mailed to an address of an account as it was then. Once that address
 * is changed, or the account is deactivated, what was mailed before must not reset the password, sign in,
 * or mark the new address verified (whoever holds the old mailbox is no longer the account's).
 */
import { expect } from 'chai';
import { DIALECTS } from '../../helpers/dialects';
import { MailSink, otpIn, resetTokenIn, SmsSink } from '../../helpers/sinks';
import { startTestApp, type TestApp } from '../../helpers/test-app';

for (const dialect of DIALECTS) {
  describe(`identity: codes mailed before an account change [${dialect}]`, () => {
    let app: TestApp;
    let mail: MailSink;
    let sms: SmsSink;
    let n = 0;
    const person = () => {
      n += 1;
      return { username: `changed${n}`, email: `changed${n}@example.test`, password: `changed-pass-${n}`, mobile: `+4915200000${n}` };
    };
    const verifiedFlags = async (id: number): Promise<boolean> => {
      const row = (await app.deps.db('users').where('id', id).first('email_verified')) as { email_verified: unknown };
      return row.email_verified === true || row.email_verified === 1 || row.email_verified === '1';
    };

    before(async () => {
      mail = await new MailSink().start();
      sms = await new SmsSink().start();
      app = await startTestApp(dialect, { env: { IAM_PASSWORD_LESS_REGISTRATION: 'true', SMTP_URL: mail.url, SMS_WEBHOOK_URL: sms.url } });
    });
    after(async () => {
      await app?.close();
      await mail?.close();
      await sms?.close();
    });

    it('a reset token mailed to the old address is refused once the e-mail changed; the new address stays unverified', async () => {
      const u = await app.createUser(person());
      const since = mail.count();
      await app.anon.post('/api/iam/initiate/forgot-password', { email: u.email });
      const token = resetTokenIn(await mail.next(u.email, since));
      const moved = await app.http.patch(`/api/user/${u.id}`, { email: `moved-${u.email}` });
      expect(moved.status, moved.text).to.equal(200);
      const res = await app.anon.post('/api/iam/confirm/forgot-password', { verificationToken: token, password: 'taken-over-1' });
      expect(res.status, res.text).to.equal(400);
      expect(res.body.error.details.errorCode).to.equal('INVALID_RESET_TOKEN');
      expect((await app.anon.post('/api/iam/authenticate', { username: u.username, password: u.password })).status).to.equal(200);
      expect(await verifiedFlags(u.id)).to.equal(false);
    });

    it('a reset token issued before a deactivation sets no password (none to find on reactivation)', async () => {
      const u = await app.createUser(person());
      const since = mail.count();
      await app.anon.post('/api/iam/initiate/forgot-password', { email: u.email });
      const token = resetTokenIn(await mail.next(u.email, since));
      expect((await app.http.patch(`/api/user/${u.id}`, { active: false })).status).to.equal(200);
      const res = await app.anon.post('/api/iam/confirm/forgot-password', { verificationToken: token, password: 'while-inactive-1' });
      expect(res.status, res.text).to.equal(400);
      expect((await app.http.patch(`/api/user/${u.id}`, { active: true })).status).to.equal(200);
      expect((await app.anon.post('/api/iam/authenticate', { username: u.username, password: 'while-inactive-1' })).status).to.equal(401);
      expect((await app.anon.post('/api/iam/authenticate', { username: u.username, password: u.password })).status).to.equal(200);
    });

    it('an OTP sign-in code mailed to the old address signs nobody in once the e-mail changed', async () => {
      const u = await app.createUser(person());
      const since = mail.count();
      await app.anon.post('/api/iam/otp/login/initiate', { identifier: u.username });
      const code = otpIn(await mail.next(u.email, since));
      const newEmail = `moved-${u.email}`;
      expect((await app.http.patch(`/api/user/${u.id}`, { email: newEmail })).status).to.equal(200);
      const res = await app.anon.post('/api/iam/otp/login/confirm', { identifier: newEmail, type: 'email', otp: code });
      expect(res.status, res.text).to.equal(401);
      expect(await verifiedFlags(u.id)).to.equal(false);
    });
  });
}
