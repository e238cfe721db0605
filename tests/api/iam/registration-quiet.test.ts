/**
 * IAM_REGISTRATION_REVEALS_TAKEN=false (README Identity, "Account enumeration"): only someone who
 * controls a taken address learns it is taken. A registrant who gave someone else's e-mail beside their
 * own mobile was told by SMS that "the e-mail address you gave is already in use"; the notice to an
 * address that is not taken now names no other address (a taken username, which the registrant chose,
 * is still named).
 */
import { expect } from 'chai';
import { DIALECTS } from '../../helpers/dialects';
import { MailSink, SmsSink } from '../../helpers/sinks';
import { startTestApp, type TestApp, type TestUser } from '../../helpers/test-app';

for (const dialect of DIALECTS) {
  describe(`identity: quiet OTP registration names no address the registrant may not control [${dialect}]`, () => {
    let app: TestApp;
    let mail: MailSink;
    let sms: SmsSink;
    let owner: TestUser;
    let n = 0;
    const who = () => {
      n += 1;
      const tag = `${Date.now().toString(36)}${n}`;
      return { username: `quiet${tag}`, email: `quiet${tag}@example.test`, mobile: `+49151777${String(n).padStart(4, '0')}`, validationSources: ['mobile'] };
    };
    before(async () => {
      mail = await new MailSink().start();
      sms = await new SmsSink().start();
      app = await startTestApp(dialect, { env: { IAM_PASSWORD_LESS_REGISTRATION: 'true', IAM_REGISTRATION_REVEALS_TAKEN: 'false', SMTP_URL: mail.url, SMS_WEBHOOK_URL: sms.url } });
      owner = await app.createUser({ email: `owner${Date.now()}@example.test` });
    });
    after(async () => {
      await app?.close();
      await mail?.close();
      await sms?.close();
    });

    it('someone else’s e-mail beside one’s own mobile: the SMS says only that the registration could not be completed', async () => {
      const u = { ...who(), email: owner.email };
      const [m0, s0] = [mail.count(), sms.count()];
      expect((await app.anon.post('/api/iam/otp/register/initiate', u)).status).to.equal(200);
      const toMobile = await sms.next(u.mobile, s0);
      expect(toMobile.text).to.match(/could not be completed/);
      expect(toMobile.text).to.not.match(/e-mail|email|address|in use|\b\d{6}\b/i);
      // the owner of the taken address is told someone tried
      expect((await mail.next(owner.email, m0)).text).to.match(/an account already uses it/);
    });

    it('a taken username is still named to the addresses given (the registrant chose it)', async () => {
      const u = { ...who(), username: owner.username };
      const [m0, s0] = [mail.count(), sms.count()];
      expect((await app.anon.post('/api/iam/otp/register/initiate', u)).status).to.equal(200);
      expect((await sms.next(u.mobile, s0)).text).to.match(/username you gave is already in use/);
      expect((await mail.next(u.email, m0)).text).to.match(/username you gave is already in use/);
    });
  });
}
