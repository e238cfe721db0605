/**
 * A password sign-in checks the password (a bcrypt's time) before it opens a session. A password change
 * committed meanwhile ends every session: a sign-in that checked the old password must not open one after
 * it (it would outlive the change that claims to have ended them all).
 */
import { expect } from 'chai';
import { DIALECTS } from '../../helpers/dialects';
import { startTestApp, type TestApp } from '../../helpers/test-app';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

for (const dialect of DIALECTS) {
  describe(`identity: sign-ins racing a password change [${dialect}]`, () => {
    let app: TestApp;
    before(async () => {
      // A slower bcrypt (cost 9, about 40 ms here) widens the window between the check and the session.
      app = await startTestApp(dialect, { env: { IAM_BCRYPT_COST: '9', IAM_RATE_LIMIT_PER_ACCOUNT: '1000', IAM_RATE_LIMIT_PER_ADDRESS: '1000' } });
    });
    after(async () => {
      await app?.close();
    });

    it('no session opened with the old password outlives change-password', async () => {
      const u = await app.createUser({ username: 'racer', email: 'racer@example.test', password: 'old-password-1' });
      const change = u.http.post('/api/iam/change-password', { currentPassword: 'old-password-1', newPassword: 'new-password-1' });
      const signIns: Promise<{ status: number; token?: string }>[] = [];
      for (let i = 0; i < 40; i++) {
        signIns.push(app.anon.post('/api/iam/authenticate', { username: 'racer', password: 'old-password-1' }).then((r) => ({ status: r.status, token: r.body?.data?.accessToken as string | undefined })));
        await sleep(5);
      }
      expect((await change).status).to.equal(200);
      const all = await Promise.all(signIns);
      for (const s of all) expect(s.status, JSON.stringify(s)).to.be.oneOf([200, 401]);
      const live: string[] = [];
      for (const s of all) if (s.token && (await app.anon.withToken(s.token).get('/api/iam/me')).status === 200) live.push(s.token);
      expect(live, 'sessions signed in with the old password still live after the change').to.have.length(0);
      expect((await app.anon.post('/api/iam/authenticate', { username: 'racer', password: 'new-password-1' })).status).to.equal(200);
    });
  });
}
