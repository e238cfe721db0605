/** The identity plugin's admin CLI commands, run as a separate process against each database. */
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DIALECTS } from '../../helpers/dialects';
import { MailSink, otpIn } from '../../helpers/sinks';
import { ROOT, startTestApp, type TestApp } from '../../helpers/test-app';

for (const dialect of DIALECTS) {
  describe(`identity: admin CLI [${dialect}]`, () => {
    let app: TestApp;
    let mail: MailSink;
    const cliWith = (env: Record<string, string>, ...args: string[]) => {
      const r = spawnSync(process.execPath, [join(ROOT, 'dist', 'admin-cli', 'index.js'), ...args], { env: { ...process.env, ...app.env, ...env }, encoding: 'utf8', timeout: 30_000 });
      return { code: r.status, signal: r.signal, out: r.stdout, err: r.stderr };
    };
    const cli = (...args: string[]) => cliWith({}, ...args);

    before(async () => {
      mail = await new MailSink().start();
      app = await startTestApp(dialect, { env: { IAM_PASSWORD_LESS_REGISTRATION: 'true', SMTP_URL: mail.url } });
    });
    after(async () => {
      await app?.close();
      await mail?.close();
    });

    it('user:create makes an active user who can sign in; a duplicate fails with a clear line', async () => {
      const r = cli('user:create', '--username', 'cliuser', '--email', 'cli@example.test', '--password', 'cli-pass-123', '--roles', 'admin,authenticated');
      expect(r.code, r.err).to.equal(0);
      const u = await app.signIn('cliuser', 'cli-pass-123');
      expect(u.roles).to.deep.equal(['admin', 'authenticated']);
      const dup = cli('user:create', '--username', 'CLIUSER', '--email', 'other@example.test', '--password', 'cli-pass-123');
      expect(dup.code).to.equal(1);
      expect(dup.err).to.match(/username .*already taken/);
      expect(cli('user:create', '--username', 'x1', '--email', 'x1@example.test', '--password', 'short').err).to.match(/at least 8/);
    });

    it('users the CLI creates or imports have their e-mail marked verified: an OTP sign-in keeps their password (issue 13 item 14)', async () => {
      expect(cli('user:create', '--username', 'otpcli', '--email', 'otpcli@example.test', '--password', 'otp-cli-pass-1').code).to.equal(0);
      mkdirSync(app.env.DATA_DIR, { recursive: true });
      const json = join(app.env.DATA_DIR, 'verified.json');
      writeFileSync(json, JSON.stringify([{ username: 'otpimp', email: 'otpimp@example.test', password: 'otp-imp-pass-1' }]));
      expect(cli('user:import', json, '--no-progress').code).to.equal(0);
      for (const [name, email, password] of [['otpcli', 'otpcli@example.test', 'otp-cli-pass-1'], ['otpimp', 'otpimp@example.test', 'otp-imp-pass-1']]) {
        const row = (await app.http.get(`/api/user?filters[username][$eq]=${name}`)).body.records[0];
        expect(row, name).to.include({ emailVerified: true });
        const session = await app.signIn(name, password);
        const since = mail.count();
        expect((await app.anon.post('/api/iam/otp/login/initiate', { identifier: email })).status).to.equal(200);
        const code = otpIn(await mail.next(email, since));
        expect((await app.anon.post('/api/iam/otp/login/confirm', { identifier: email, otp: code })).status, name).to.equal(200);
        expect((await app.anon.post('/api/iam/authenticate', { username: name, password })).status, name).to.equal(200);
        expect((await session.http.get('/api/iam/me')).status, name).to.equal(200);
      }
    });

    it('role:create, role:grant and role:revoke change what a user of that role may do', async () => {
      expect(cli('role:create', '--name', 'editor').code).to.equal(0);
      const editor = await app.createUser({ roles: ['editor'] });
      expect((await editor.http.post('/api/institute', { name: 'Ed 1', code: 'ED1' })).status).to.equal(403);
      expect(cli('role:grant', '--role', 'editor', '--permission', 'institute.create').code).to.equal(0);
      await new Promise((r) => setTimeout(r, 600)); // the permission cache lives at most 0.5 s
      expect((await editor.http.post('/api/institute', { name: 'Ed 2', code: 'ED2' })).status).to.equal(200);
      expect(cli('role:revoke', '--role', 'editor', '--permission', 'institute.create').code).to.equal(0);
      await new Promise((r) => setTimeout(r, 600));
      expect((await editor.http.post('/api/institute', { name: 'Ed 3', code: 'ED3' })).status).to.equal(403);
      expect(cli('role:grant', '--role', 'editor', '--permission', 'nothing.here').err).to.match(/no permission/);
    });

    it('with REDIS_URL set (as on every node of a cluster), a command exits once it is done', async () => {
      const t = Date.now();
      const r = cliWith({ REDIS_URL: 'redis://127.0.0.1:6379' }, 'user:create', '--username', 'redisuser', '--email', 'redis@example.test', '--password', 'redis-pass-1');
      expect(r.signal, 'still running when killed').to.equal(null);
      expect(r.code, r.err).to.equal(0);
      expect(Date.now() - t).to.be.below(10_000);
      await app.signIn('redisuser', 'redis-pass-1');
      const failed = cliWith({ REDIS_URL: 'redis://127.0.0.1:6379' }, 'user:create', '--username', 'redisuser', '--email', 'other@example.test', '--password', 'redis-pass-1');
      expect(failed.signal, 'still running when killed').to.equal(null);
      expect(failed.code).to.equal(1);
    });

    it('user:set-password sets it and ends every session of the user', async () => {
      const u = await app.createUser();
      expect(cli('user:set-password', '--user', u.username, '--password', 'set-by-admin-1').code).to.equal(0);
      await new Promise((r) => setTimeout(r, 600));
      expect((await u.http.get('/api/iam/me')).status).to.equal(401);
      await app.signIn(u.username, 'set-by-admin-1');
    });

    it('user:import takes CSV and JSON, writes the valid rows and reports the rejected ones', async () => {
      mkdirSync(app.env.DATA_DIR, { recursive: true });
      const csv = join(app.env.DATA_DIR, 'users.csv');
      writeFileSync(csv, 'username,email,password,fullName,roles\nann,ann@example.test,ann-pass-1,Ann,editor\nbob,bad-email,bob-pass-1,Bob,\nann,ann2@example.test,ann-pass-2,Dup,\ndave,dave@example.test,"dave,pass-1","Dave, D",authenticated;editor\n');
      const r = cli('user:import', csv, '--no-progress');
      expect(r.code).to.equal(2);
      expect(r.out).to.contain('created 2 users, rejected 2');
      expect(r.out).to.match(/row 2: email is missing or invalid/);
      expect(r.out).to.match(/row 3: username appears twice/);
      const dave = await app.signIn('dave', 'dave,pass-1');
      expect(dave.roles).to.deep.equal(['authenticated', 'editor']);
      const json = join(app.env.DATA_DIR, 'users.json');
      writeFileSync(json, JSON.stringify([{ username: 'erin', email: 'erin@example.test', password: 'erin-pass-1' }, { username: 'ann', email: 'ann3@example.test', password: 'ann-pass-3' }]));
      const j = cli('user:import', json, '--no-progress');
      expect(j.out).to.contain('created 0 users, rejected 2');
      expect(j.out).to.match(/row 2: username .*already taken/);
      expect(j.out).to.match(/row 1: batch rolled back/);
    });
  });
}
