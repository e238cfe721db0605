/**
 * The identity CLI checks every field as the API does (registration's formats and trimming, the models'
 * constraints from the registry): a refused input is one `error:` line naming the option and the rule, exit 2,
 * never SQL or driver text, and nothing is written. Each limit is tried at the limit and one past it.
 */
import { expect } from 'chai';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type CliRun, runCli } from '../../helpers/admin-cli';
import { DIALECTS } from '../../helpers/dialects';
import { startTestApp, type TestApp } from '../../helpers/test-app';

const PHONE = 'must be a phone number';

for (const dialect of DIALECTS) {
  describe(`identity: admin CLI input checks [${dialect}]`, () => {
    let app: TestApp;
    let n = 0;
    const cli = (...args: string[]) => runCli(app, args);
    before(async () => {
      app = await startTestApp(dialect);
    });
    after(async () => {
      await app?.close();
    });

    const refused = (r: CliRun, line: string): void => {
      expect(r.code, r.out + r.err).to.equal(2);
      expect(r.err, 'one line: no SQL, no driver text, no stack').to.equal(`error: ${line}\n`);
      expect(r.out).to.equal('');
    };
    const count = async (model: string, field: string, value: string): Promise<number> => {
      const res = await app.http.get(`/api/${model}?filters[${field}][$eq]=${encodeURIComponent(value)}`);
      expect(res.status, res.text).to.equal(200);
      return res.body.meta.totalRecords as number;
    };
    /** user:create with a fresh username and e-mail, and `extra` options. */
    const createUser = (extra: Record<string, string>) => {
      n += 1;
      const o: Record<string, string> = { username: `in${n}`, email: `in${n}@example.test`, password: 'input-pass-1', ...extra };
      return { email: o.email, run: cli('user:create', ...Object.entries(o).flatMap(([k, v]) => [`--${k}`, v])) };
    };

    const formatCases: { name: string; options: Record<string, string>; refusal: string }[] = [
      { name: 'a mobile that is no phone number', options: { mobile: 'not a phone' }, refusal: `--mobile ${PHONE}` },
      { name: 'a mobile of letters', options: { mobile: 'xyz' }, refusal: `--mobile ${PHONE}` },
      { name: 'a mobile of 40 digits', options: { mobile: '3'.repeat(40) }, refusal: '--mobile must be at most 32 characters' },
      { name: 'a full name of 300 characters', options: { 'full-name': 'h'.repeat(300) }, refusal: '--full-name must be at most 255 characters' },
      { name: 'an empty username', options: { username: '' }, refusal: '--username is required' },
      { name: 'an e-mail that is none', options: { email: 'not-an-email' }, refusal: '--email must be an e-mail address' },
      { name: 'a password of 7 characters', options: { password: 'seven77' }, refusal: '--password must be at least 8 characters' },
    ];
    for (const c of formatCases) {
      it(`user:create: ${c.name} is refused (exit 2), nothing written`, async () => {
        const { email, run } = createUser(c.options);
        refused(await run, `invalid user: ${c.refusal}`);
        expect(await count('user', 'email', email)).to.equal(0);
      });
    }

    /** The user model's lengths (user.yaml): the value at the limit is stored, one character more is refused. */
    const limitCases: { option: string; at: string; past: string; refusal: string }[] = [
      { option: 'mobile', at: `+${'1'.repeat(31)}`, past: `+${'2'.repeat(32)}`, refusal: '--mobile must be at most 32 characters' },
      { option: 'full-name', at: 'f'.repeat(255), past: 'g'.repeat(256), refusal: '--full-name must be at most 255 characters' },
      { option: 'email', at: `${'e'.repeat(242)}@example.test`, past: `${'e'.repeat(243)}@example.test`, refusal: '--email must be at most 255 characters' },
      { option: 'username', at: 'u'.repeat(255), past: 'v'.repeat(256), refusal: '--username must be at most 255 characters; --username must be 2 or more letters, digits, ".", "_" or "-"' },
    ];
    for (const c of limitCases) {
      it(`user:create --${c.option}: ${[...c.at].length} characters are stored, ${[...c.past].length} refused (exit 2), nothing written`, async () => {
        const past = createUser({ [c.option]: c.past });
        refused(await past.run, `invalid user: ${c.refusal}`);
        expect(await count('user', 'email', past.email)).to.equal(0);
        const at = createUser({ [c.option]: c.at });
        expect((await at.run).code).to.equal(0);
        expect(await count('user', 'email', at.email)).to.equal(1);
      });
    }

    it('user:create names every refused option on one line', async () => {
      const { email, run } = createUser({ mobile: 'xyz', 'full-name': 'x'.repeat(256) });
      refused(await run, `invalid user: --full-name must be at most 255 characters; --mobile ${PHONE}`);
      expect(await count('user', 'email', email)).to.equal(0);
    });

    it('user:create trims the username, e-mail and mobile as registration does', async () => {
      const r = await cli('user:create', '--username', ' cli5 ', '--email', ' cli5@example.test ', '--password', 'cli5-pass-1', '--mobile', ' +1 555 0155 ');
      expect(r.code, r.err).to.equal(0);
      expect(r.out).to.contain('(cli5)');
      const rows = (await app.http.get('/api/user?filters[username][$eq]=cli5')).body.records as Record<string, unknown>[];
      expect(rows.map((u) => [u.username, u.email, u.mobile])).to.deep.equal([['cli5', 'cli5@example.test', '+1 555 0155']]);
      await app.signIn('cli5', 'cli5-pass-1');
    });

    const roleCases: { name: string; role: string; refusal: string }[] = [
      { name: 'an empty name', role: '', refusal: '--name is required' },
      { name: 'a name of spaces only', role: '   ', refusal: '--name is required' },
      { name: 'a name with a comma', role: 'x,y', refusal: '--name must match ^[^,]*$ (no comma: lists of role names, such as --roles, are comma-separated)' },
    ];
    for (const c of roleCases) {
      it(`role:create: ${c.name} is refused (exit 2), nothing written`, async () => {
        refused(await cli('role:create', '--name', c.role), `invalid role: ${c.refusal}`);
        expect(await count('role', 'name', c.role.trim())).to.equal(0);
      });
    }

    it('role:create: a name of 64 characters is stored, 65 refused (exit 2), nothing written', async () => {
      refused(await cli('role:create', '--name', 's'.repeat(65)), 'invalid role: --name must be at most 64 characters');
      expect(await count('role', 'name', 's'.repeat(65))).to.equal(0);
      expect((await cli('role:create', '--name', 'r'.repeat(64))).code).to.equal(0);
      expect(await count('role', 'name', 'r'.repeat(64))).to.equal(1);
    });

    it('the role API refuses what role:create refuses (422): a comma, an empty name, 65 characters', async () => {
      for (const name of ['a,b', '', 't'.repeat(65)]) {
        const res = await app.http.post('/api/role', { name });
        expect(res.status, `${JSON.stringify(name)}: ${res.text}`).to.equal(422);
        expect(res.body.error.details.fields).to.have.property('name');
      }
      expect((await app.http.post('/api/role', { name: 'u'.repeat(64) })).status).to.equal(200);
    });

    it('role:grant names every action the registry knows when the permission does not exist (assignRoles too)', async () => {
      const actions = [...new Set(app.deps.registry.contentTypes.filter((m) => m.api).flatMap((m) => m.actions))];
      expect(actions).to.include('assignRoles');
      refused(await cli('role:grant', '--role', 'authenticated', '--permission', 'user.nothing'), `no permission user.nothing (form: <model>.<${actions.join('|')}>)`);
    });

    it('a usage error commander finds (a missing option) exits 2 as well', async () => {
      const r = await cli('role:create');
      expect(r.code).to.equal(2);
      expect(r.err).to.match(/^error: required option '--name <name>' not specified/);
    });

    /** Refused input of every other command: exit 2, one line naming the option, nothing on stdout (README, Admin CLI). */
    const otherRefusals: { args: string[]; line: string }[] = [
      { args: ['token:create', '--name', 't1', '--kind', 'bogus'], line: 'invalid API token: --kind must be one of read-only, full-access, custom' },
      { args: ['token:create', '--name', '', '--kind', 'read-only'], line: 'invalid API token: --name is required' },
      { args: ['token:create', '--name', '   ', '--kind', 'read-only'], line: 'invalid API token: --name is required' },
      { args: ['token:create', '--name', 'n'.repeat(101), '--kind', 'read-only'], line: 'invalid API token: --name must be at most 100 characters' },
      { args: ['token:create', '--name', 't2', '--kind', 'read-only', '--days', '5'], line: 'invalid API token: --days must be 7, 30, 90 or null (unlimited)' },
      { args: ['token:create', '--name', 't3', '--kind', 'read-only', '--days', 'abc'], line: 'invalid API token: --days must be 7, 30, 90 or null (unlimited)' },
      { args: ['token:create', '--name', 't3', '--kind', 'read-only', '--days', ' '], line: 'invalid API token: --days must be 7, 30, 90 or null (unlimited)' },
      { args: ['token:create', '--name', 't4', '--kind', 'custom'], line: 'invalid API token: --permissions must be a non-empty array of <model>.<action> names for kind custom' },
      { args: ['token:create', '--name', 't5', '--kind', 'custom', '--permissions', 'nope.find'], line: 'invalid API token: --permissions unknown permission nope.find (form: <model>.<action>, as GET /api/permission lists them)' },
      { args: ['token:create', '--name', 't6', '--kind', 'read-only', '--description', 'd'.repeat(501)], line: 'invalid API token: --description must be at most 500 characters' },
      { args: ['token:revoke', 'no-such-token'], line: 'no API token no-such-token' },
      { args: ['token:revoke', '987654'], line: 'no API token 987654' },
      { args: ['token:revoke', '   '], line: 'no API token "   "' },
      { args: ['media:migrate', '--to', 'ftp'], line: '--to: "ftp" is not a target (s3)' },
      { args: ['media:migrate', '--to', 's3', '--concurrency', '0'], line: '--concurrency: a whole number from 1 to 64' },
      { args: ['media:migrate', '--to', 's3', '--concurrency', '65'], line: '--concurrency: a whole number from 1 to 64' },
      { args: ['media:migrate', '--to', 's3', '--concurrency', 'abc'], line: '--concurrency: a whole number from 1 to 64' },
      { args: ['media:migrate', '--to', 's3', '--concurrency', ' '], line: '--concurrency: a whole number from 1 to 64' },
      { args: ['media:prune', '--grace', '-1'], line: '--grace: minutes, a number ≥ 0' },
      { args: ['media:prune', '--grace', 'soon'], line: '--grace: minutes, a number ≥ 0' },
      { args: ['media:prune', '--grace', ''], line: '--grace: minutes, a number ≥ 0' },
      { args: ['user:set-password', '--user', 'nobody-here', '--password', 'nobody-pass-1'], line: 'no user nobody-here' },
      { args: ['user:set-password', '--user', '', '--password', 'nobody-pass-1'], line: 'no user ""' },
      { args: ['user:create', '--username', 'roleless', '--email', 'roleless@example.test', '--password', 'roleless-pass-1', '--roles', 'authenticated,no-such-role'], line: 'no role no-such-role' },
      { args: ['role:grant', '--role', 'no-such-role', '--permission', 'institute.find'], line: 'no role no-such-role' },
      { args: ['role:revoke', '--role', 'no-such-role', '--permission', 'institute.find'], line: 'no role no-such-role' },
      { args: ['role:grant', '--role', 'authenticated', '--permission', 'institute.find', '--where', '{bad'], line: "--where is not JSON: Expected property name or '}' in JSON at position 1" },
      { args: ['role:grant', '--role', 'authenticated', '--permission', 'institute.find', '--fields', 'nope'], line: 'fields: unknown field "nope" of institute' },
      { args: ['role:grant', '--role', 'authenticated', '--permission', 'institute.find', '--fields', ' , '], line: 'invalid access rule: --fields must name at least one field (leave it out for every field)' },
    ];
    for (const c of otherRefusals) {
      it(`${c.args.map((a) => (a.length > 20 ? `${a.slice(0, 8)}…(${a.length})` : JSON.stringify(a))).join(' ')}: refused (exit 2), one line`, async () => {
        refused(await cli(...c.args), c.line);
      });
    }

    it('role:grant --permission \'\': refused (exit 2), the empty name quoted', async () => {
      const actions = [...new Set(app.deps.registry.contentTypes.filter((m) => m.api).flatMap((m) => m.actions))];
      refused(await cli('role:grant', '--role', 'authenticated', '--permission', ''), `no permission "" (form: <model>.<${actions.join('|')}>)`);
    });

    it('token:create: a name of 100 characters is stored, 101 refused (exit 2); a refused token is not written', async () => {
      const ok = await cli('token:create', '--name', 'k'.repeat(100), '--kind', 'read-only', '--days', '7');
      expect(ok.code, ok.err).to.equal(0);
      const list = await cli('token:list');
      expect(list.out).to.contain('k'.repeat(100));
      expect(list.out).to.not.contain('n'.repeat(101));
      expect(list.out).to.not.contain('\tt5\t');
      const revoked = await cli('token:revoke', 'k'.repeat(100));
      expect(revoked.code, revoked.err).to.equal(0);
      refused(await cli('token:revoke', 'k'.repeat(100)), `no API token ${'k'.repeat(100)}`);
    });

    it('openapi:export to a file it cannot write: one line, exit 1 (not the operator\'s input)', async () => {
      const r = await cli('openapi:export', join(app.env.DATA_DIR, 'no-such-folder', 'openapi.json'));
      expect(r.code).to.equal(1);
      expect(r.err).to.match(/^error: cannot write .*no-such-folder\/openapi\.json \(ENOENT\)\n$/);
    });

    it('user:import checks each row as user:create does: every bad row reported with its line, exit 2, nobody written', async () => {
      mkdirSync(app.env.DATA_DIR, { recursive: true });
      const file = join(app.env.DATA_DIR, 'input-checks.csv');
      const long = `+${'4'.repeat(31)}`;
      writeFileSync(file, ['username,email,password,fullName,mobile', `imp1,imp1@example.test,imp1-pass-1,Imp One,${long}`, 'imp2,imp2@example.test,imp2-pass-1,Imp Two,xyz', 'imp3,imp3@example.test,imp3-pass-1,Imp Three,not a phone', `imp4,imp4@example.test,imp4-pass-1,Imp Four,${long}5`, `imp5,imp5@example.test,imp5-pass-1,${'i'.repeat(256)},`, ''].join('\n'));
      const r = await cli('user:import', file, '--no-progress');
      expect(r.code, r.err).to.equal(2);
      expect(r.err).to.equal('');
      expect(r.out.trim().split('\n')).to.deep.equal([
        'line 2: not written imp1 (another row failed: nothing was written)',
        `line 3: failed imp2 (mobile ${PHONE})`,
        `line 4: failed imp3 (mobile ${PHONE})`,
        'line 5: failed imp4 (mobile must be at most 32 characters)',
        'line 6: failed imp5 (fullName must be at most 255 characters)',
        'nothing written: 4 of 5 rows failed (the import is one transaction); fix them and run the same command again',
      ]);
      for (const i of [1, 2, 3, 4, 5]) expect(await count('user', 'email', `imp${i}@example.test`), `imp${i}`).to.equal(0);
    });
  });
}
