/** The identity plugin's admin CLI commands, run as a separate process against each database. */
import { expect } from 'chai';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from '../../helpers/admin-cli';
import { DIALECTS } from '../../helpers/dialects';
import { MailSink, otpIn } from '../../helpers/sinks';
import { startTestApp, type TestApp } from '../../helpers/test-app';

for (const dialect of DIALECTS) {
  describe(`identity: admin CLI [${dialect}]`, () => {
    let app: TestApp;
    let mail: MailSink;
    const cliWith = (env: Record<string, string>, ...args: string[]) => runCli(app, args, env);
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
      const r = await cli('user:create', '--username', 'cliuser', '--email', 'cli@example.test', '--password', 'cli-pass-123', '--roles', 'admin,authenticated');
      expect(r.code, r.err).to.equal(0);
      const u = await app.signIn('cliuser', 'cli-pass-123');
      expect(u.roles).to.deep.equal(['admin', 'authenticated']);
      const dup = await cli('user:create', '--username', 'CLIUSER', '--email', 'other@example.test', '--password', 'cli-pass-123');
      expect(dup.code).to.equal(1);
      expect(dup.err).to.match(/username .*already taken/);
      expect((await cli('user:create', '--username', 'x1', '--email', 'x1@example.test', '--password', 'short')).err).to.match(/at least 8/);
    });

    it('user:create without roles, or with --roles \'\', gives the default role authenticated (CONTRACT: default role of new users)', async () => {
      for (const [username, roles] of [['noroles1', []], ['noroles2', ['--roles', '']], ['noroles3', ['--roles', ' , ']]] as const) {
        const r = await cli('user:create', '--username', username, '--email', `${username}@example.test`, '--password', 'cli-pass-123', ...roles);
        expect(r.code, r.err).to.equal(0);
        expect(r.out).to.contain('with roles authenticated');
        expect((await app.signIn(username, 'cli-pass-123')).roles, username).to.deep.equal(['authenticated']);
      }
    });

    it('user:create checks the username and e-mail as registration and user:import do (a username shaped like an e-mail would shadow that address at sign-in)', async () => {
      for (const [username, email, problem] of [['cli@example.test', 'y1@example.test', /username/], ['with space', 'y2@example.test', /username/], ['y3', 'not-an-email', /email/]] as const) {
        const r = await cli('user:create', '--username', username, '--email', email, '--password', 'cli-pass-123');
        expect(r.code, r.out).to.equal(2); // refused input (cli-input.test.ts)
        expect(r.err).to.match(problem);
      }
      expect((await app.http.get('/api/user?filters[email][$in][0]=y1@example.test&filters[email][$in][1]=y2@example.test&filters[email][$in][2]=not-an-email')).body.meta.totalRecords).to.equal(0);
    });

    it('users the CLI creates or imports have their e-mail marked verified: an OTP sign-in keeps their password (issue 13 item 14)', async () => {
      expect((await cli('user:create', '--username', 'otpcli', '--email', 'otpcli@example.test', '--password', 'otp-cli-pass-1')).code).to.equal(0);
      mkdirSync(app.env.DATA_DIR, { recursive: true });
      const json = join(app.env.DATA_DIR, 'verified.json');
      writeFileSync(json, JSON.stringify([{ username: 'otpimp', email: 'otpimp@example.test', password: 'otp-imp-pass-1' }]));
      expect((await cli('user:import', json, '--no-progress')).code).to.equal(0);
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
      expect((await cli('role:create', '--name', 'editor')).code).to.equal(0);
      const editor = await app.createUser({ roles: ['editor'] });
      expect((await editor.http.post('/api/institute', { name: 'Ed 1', code: 'ED1' })).status).to.equal(403);
      expect((await cli('role:grant', '--role', 'editor', '--permission', 'institute.create')).code).to.equal(0);
      await new Promise((r) => setTimeout(r, 600)); // the permission cache lives at most 0.5 s
      expect((await editor.http.post('/api/institute', { name: 'Ed 2', code: 'ED2' })).status).to.equal(200);
      expect((await cli('role:revoke', '--role', 'editor', '--permission', 'institute.create')).code).to.equal(0);
      await new Promise((r) => setTimeout(r, 600));
      expect((await editor.http.post('/api/institute', { name: 'Ed 3', code: 'ED3' })).status).to.equal(403);
      expect((await cli('role:grant', '--role', 'editor', '--permission', 'nothing.here')).err).to.match(/no permission/);
    });

    it('role:grant --where/--fields grants on some rows and fields only (issue 16); a bad rule fails with Find\'s message; role:revoke removes it', async () => {
      expect((await cli('role:create', '--name', 'clerk')).code).to.equal(0);
      const clerk = await app.createUser({ roles: ['clerk'] });
      for (const [name, code, city] of [['Clerk A', 'CLA', 'Springfield'], ['Clerk B', 'CLB', 'Shelbyville']]) expect((await app.http.post('/api/institute', { name, code, city })).status).to.equal(200);
      const r = await cli('role:grant', '--role', 'clerk', '--permission', 'institute.find', '--where', '{"city":{"$eq":"Springfield"}}', '--fields', 'name,city');
      expect(r.code, r.err).to.equal(0);
      expect(r.out).to.contain('clerk: institute.find granted where {"city":{"$eq":"Springfield"}} on fields name, city');
      await new Promise((res) => setTimeout(res, 600)); // the permission cache lives at most 0.5 s
      const seen = await clerk.http.get('/api/institute');
      expect(seen.status, seen.text).to.equal(200);
      expect(seen.body.records.map((x: Record<string, unknown>) => [x.name, x.city, x.code])).to.deep.equal([['Clerk A', 'Springfield', undefined]]);
      const bad = await cli('role:grant', '--role', 'clerk', '--permission', 'institute.find', '--where', '{"town":{"$eq":"x"}}');
      expect(bad.code, 'refused input').to.equal(2);
      expect(bad.err).to.contain('where[town]: unknown field "town" of institute');
      expect((await cli('role:grant', '--role', 'clerk', '--permission', 'institute.find', '--where', '{nope')).err).to.contain('--where is not JSON');
      const revoked = await cli('role:revoke', '--role', 'clerk', '--permission', 'institute.find');
      expect(revoked.out).to.contain('and 1 access rule');
      await new Promise((res) => setTimeout(res, 600));
      expect((await clerk.http.get('/api/institute')).status).to.equal(403);
    });

    it('with REDIS_URL set (as on every node of a cluster), a command exits once it is done', async () => {
      const t = Date.now();
      const r = await cliWith({ REDIS_URL: 'redis://127.0.0.1:6379' }, 'user:create', '--username', 'redisuser', '--email', 'redis@example.test', '--password', 'redis-pass-1');
      expect(r.signal, 'still running when killed').to.equal(null);
      expect(r.code, r.err).to.equal(0);
      expect(Date.now() - t).to.be.below(10_000);
      await app.signIn('redisuser', 'redis-pass-1');
      const failed = await cliWith({ REDIS_URL: 'redis://127.0.0.1:6379' }, 'user:create', '--username', 'redisuser', '--email', 'other@example.test', '--password', 'redis-pass-1');
      expect(failed.signal, 'still running when killed').to.equal(null);
      expect(failed.code).to.equal(1);
    });

    it('user:set-password sets it and ends every session of the user', async () => {
      const u = await app.createUser();
      expect((await cli('user:set-password', '--user', u.username, '--password', 'set-by-admin-1')).code).to.equal(0);
      await new Promise((r) => setTimeout(r, 600));
      expect((await u.http.get('/api/iam/me')).status).to.equal(401);
      await app.signIn(u.username, 'set-by-admin-1');
    });

    const importFile = (name: string, text: string): string => {
      mkdirSync(app.env.DATA_DIR, { recursive: true });
      const file = join(app.env.DATA_DIR, name);
      writeFileSync(file, text);
      return file;
    };
    const signsIn = async (username: string, password: string): Promise<boolean> => (await app.anon.post('/api/iam/authenticate', { username, password })).status === 200;

    it('user:import is all or nothing: a failing row writes nobody, and every row is reported with its line', async () => {
      // Row "dave" has a quoted line break in fullName: the rows after it start one line further down.
      const csv = importFile('users.csv', 'username,email,password,fullName,roles\nann,ann@example.test,ann-pass-1,Ann,editor\nbob,bad-email,bob-pass-1,Bob,\ndave,dave@example.test,"dave,pass-1","Dave\nD",authenticated;editor\nann,ann2@example.test,ann-pass-2,Dup,\neve,eve@example.test,eve-pass-1,Eve,nosuchrole\n');
      const r = await cli('user:import', csv, '--no-progress');
      expect(r.code, r.err).to.equal(2);
      expect(r.out.split('\n')).to.deep.equal([
        'line 2: not written ann (another row failed: nothing was written)',
        'line 3: failed bob (email must be an e-mail address)',
        'line 4: not written dave (another row failed: nothing was written)',
        'line 6: failed ann (username appears twice in the file)',
        'line 7: failed eve (unknown role nosuchrole)',
        'nothing written: 3 of 5 rows failed (the import is one transaction); fix them and run the same command again',
        '',
      ]);
      expect(await signsIn('ann', 'ann-pass-1')).to.equal(false);
      expect(await signsIn('dave', 'dave,pass-1')).to.equal(false);

      // Fixed, the same command writes every row and reports each new user.
      writeFileSync(csv, 'username,email,password,fullName,roles\nann,ann@example.test,ann-pass-1,Ann,editor\nbob,bob@example.test,bob-pass-1,Bob,\ndave,dave@example.test,"dave,pass-1","Dave\nD",authenticated;editor\n');
      const fixed = await cli('user:import', csv, '--no-progress');
      expect(fixed.code, fixed.out + fixed.err).to.equal(0);
      const lines = fixed.out.trim().split('\n');
      expect(lines).to.have.length(4);
      expect(lines[0]).to.match(/^line 2: created ann \(id \d+\)$/);
      expect(lines[1]).to.match(/^line 3: created bob \(id \d+\)$/);
      expect(lines[2]).to.match(/^line 4: created dave \(id \d+\)$/);
      expect(lines[3]).to.equal('imported: 3 created, 0 skipped');
      const dave = await app.signIn('dave', 'dave,pass-1');
      expect(dave.roles).to.deep.equal(['authenticated', 'editor']);
      expect((await app.signIn('bob', 'bob-pass-1')).roles).to.deep.equal(['authenticated']);
    });

    it('user:import runs again after a partial import: without --skip-existing the users already there fail, with it they are skipped and reported', async () => {
      const first = importFile('first.json', JSON.stringify([{ username: 'erin', email: 'erin@example.test', password: 'erin-pass-1' }]));
      expect((await cli('user:import', first, '--no-progress')).code).to.equal(0);
      const all = importFile(
        'all.json',
        JSON.stringify([
          { username: 'erin', email: 'erin@example.test', password: 'erin-pass-1' },
          { username: 'frank', email: 'frank@example.test', password: 'frank-pass-1', roles: ['authenticated', 'editor'] },
          { username: 'gina', email: 'ADMIN@example.test', password: 'gina-pass-1' },
        ]),
      );
      const strict = await cli('user:import', all, '--no-progress');
      expect(strict.code).to.equal(2);
      expect(strict.out).to.contain('item 1: failed erin (username erin is already taken (--skip-existing skips it); email erin@example.test is already taken (--skip-existing skips it))');
      expect(strict.out).to.contain('item 2: not written frank');
      expect(strict.out).to.contain('item 3: failed gina (email ADMIN@example.test is already taken (--skip-existing skips it))');
      expect(await signsIn('frank', 'frank-pass-1')).to.equal(false);

      const skipping = await cli('user:import', all, '--no-progress', '--skip-existing');
      expect(skipping.code, skipping.out + skipping.err).to.equal(0);
      const lines = skipping.out.trim().split('\n');
      expect(lines[0]).to.equal('item 1: skipped erin (username erin and email erin@example.test already exist)');
      expect(lines[1]).to.match(/^item 2: created frank \(id \d+\)$/);
      expect(lines[2]).to.equal('item 3: skipped gina (email ADMIN@example.test already exists)');
      expect(lines[3]).to.equal('imported: 1 created, 2 skipped');
      expect((await app.signIn('frank', 'frank-pass-1')).roles).to.deep.equal(['authenticated', 'editor']);
      expect(await signsIn('erin', 'erin-pass-1')).to.equal(true); // untouched
      expect(await signsIn('gina', 'gina-pass-1')).to.equal(false);

      // Everything there: a third run skips every row and writes nothing.
      const again = await cli('user:import', all, '--no-progress', '--skip-existing');
      expect(again.code).to.equal(0);
      expect(again.out.trim().split('\n').pop()).to.equal('imported: 0 created, 3 skipped');
    });

    it('user:import refuses on both databases what one of them would refuse: over-long fields, a mobile twice or already taken', async () => {
      const long = `${'x'.repeat(250)}@example.test`; // 263 characters: PostgreSQL's column would refuse it, SQLite's would not
      expect((await cli('user:create', '--username', 'mobileowner', '--email', 'mobileowner@example.test', '--password', 'owner-pass-1', '--mobile', '+1 555 0100')).code).to.equal(0);
      const file = importFile(
        'lengths.json',
        JSON.stringify([
          { username: 'hank', email: long, password: 'hank-pass-1' },
          { username: 'ivy', email: 'ivy@example.test', password: 'ivy-pass-1', mobile: '+1 555 0199' },
          { username: 'jack', email: 'jack@example.test', password: 'jack-pass-1', mobile: '+1 (555) 0199' },
          { username: 'kim', email: 'kim@example.test', password: 'kim-pass-1', mobile: '+1-555-0100' },
          { username: 'leo', email: 'leo@example.test', password: 'leo-pass-1', fullName: 'L'.repeat(256) },
        ]),
      );
      const r = await cli('user:import', file, '--no-progress', '--skip-existing');
      expect(r.code).to.equal(2);
      expect(r.out.trim().split('\n')).to.deep.equal([
        'item 1: failed hank (email must be at most 255 characters)',
        'item 2: not written ivy (another row failed: nothing was written)',
        'item 3: failed jack (mobile appears twice in the file)',
        'item 4: failed kim (mobile +1-555-0100 is already taken)',
        'item 5: failed leo (fullName must be at most 255 characters)',
        'nothing written: 4 of 5 rows failed (the import is one transaction); fix them and run the same command again',
      ]);
      expect(await signsIn('ivy', 'ivy-pass-1')).to.equal(false);
    });

    it('user:import: a file it cannot read is one clear line and exit 1', async () => {
      const broken = importFile('broken.json', '[{"username": "x"');
      const r = await cli('user:import', broken, '--no-progress');
      expect(r.code).to.equal(1);
      expect(r.err).to.match(/^error: .*broken\.json: not valid JSON/);
      const missing = await cli('user:import', join(app.env.DATA_DIR, 'nope.csv'), '--no-progress');
      expect(missing.code).to.equal(1);
      expect(missing.err).to.match(/^error: .*nope\.csv: cannot be read \(ENOENT\)/);
    });
  });
}
