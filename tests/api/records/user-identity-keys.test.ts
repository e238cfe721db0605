/**
 * The identity keys of accounts written through /api/user (README "Users through the record API"): the
 * usernameKey / emailKey / mobileKey columns are set in the write's own INSERT or UPDATE (the identity
 * plugin's before hooks), so their unique indexes decide a case variant of another account's name, also
 * under a race and for multipart bodies: 409, never 500, never a silent success. A user created without
 * `roles` gets the default role (CONTRACT: `authenticated`, "default role of new users"). A write that
 * changes an e-mail or mobile un-verifies it unless it sets the flag itself.
 */
import { expect } from 'chai';
import { DIALECTS } from '../../helpers/dialects';
import { sendForm } from '../../helpers/multipart';
import { userWith } from '../../helpers/roles';
import { startTestApp, type TestApp } from '../../helpers/test-app';

const ROUNDS = 6;
const PASSWORD = 'a-password-123';

interface Answer {
  readonly status: number;
  readonly body: { error?: { name: string; message: string; details: Record<string, unknown> } };
}

for (const dialect of DIALECTS) {
  describe(`user writes: identity keys in the write, default role, verified flags [${dialect}]`, () => {
    let app: TestApp;
    let n = 0;
    const tag = (): string => {
      n += 1;
      return `${Date.now().toString(36)}${n}`;
    };
    const token = (): string | null => app.admin?.accessToken ?? null;
    /** Accounts whose name (lower-cased) is `value` in `column`. */
    const holders = async (column: 'username' | 'email', value: string): Promise<number> =>
      ((await app.deps.db('users').whereRaw('lower(??) = ?', [column, value.toLowerCase()]).select('id')) as unknown[]).length;
    /** A duplicate answer: 409 ConflictError naming public fields only (never a key column). */
    const expectConflict = (res: Answer, fields: readonly string[], what: string): void => {
      expect(res.status, `${what}: ${JSON.stringify(res.body)}`).to.equal(409);
      expect(res.body.error?.name).to.equal('ConflictError');
      expect(res.body.error?.message).to.match(/already taken/);
      expect(res.body.error?.message).to.not.match(/Key/);
      const details = res.body.error?.details ?? {};
      const named = (details.fields ?? (details.errors as { fields: Record<string, unknown> }[] | undefined)?.[0]?.fields ?? {}) as Record<string, unknown>;
      expect(Object.keys(named), what).to.not.be.empty;
      for (const f of Object.keys(named)) expect(fields, what).to.include(f);
    };

    before(async () => {
      app = await startTestApp(dialect);
    });
    after(async () => app?.close());

    it(`concurrent creates that differ only in case (JSON, bulk, multipart): one is created, the others answer 409; never two accounts in one name (${ROUNDS} rounds)`, async () => {
      for (let round = 0; round < ROUNDS; round += 1) {
        const t = tag();
        const bodies = [
          { username: `un${t}`, email: `au${t}@example.com`, password: PASSWORD },
          { username: `UN${t}`, email: `AU${t}@EXAMPLE.com`, password: PASSWORD },
          { username: `Un${t}`, email: `Au${t}@Example.com`, password: PASSWORD },
        ];
        const answers: Answer[] = await Promise.all([
          app.http.post('/api/user', bodies[0]),
          app.http.post('/api/user/bulk', [bodies[1]]),
          sendForm(`${app.url}/api/user`, 'POST', { data: bodies[2] }, [], app.fetch, token()),
        ]);
        expect(answers.filter((a) => a.status === 200), `round ${round}: ${JSON.stringify(answers.map((a) => a.status))}`).to.have.length(1);
        for (const a of answers.filter((x) => x.status !== 200)) expectConflict(a, ['username', 'email'], `round ${round}`);
        expect(await holders('username', `un${t}`), `round ${round}: accounts named un${t}`).to.equal(1);
        expect(await holders('email', `au${t}@example.com`), `round ${round}: accounts at au${t}@example.com`).to.equal(1);
      }
    });

    it(`concurrent renames to names that differ only in case (PATCH, PUT): one succeeds, the other answers 409 (${ROUNDS} rounds)`, async () => {
      for (let round = 0; round < ROUNDS; round += 1) {
        const [p, q] = [await app.createUser(), await app.createUser()];
        const t = tag();
        const answers: Answer[] = await Promise.all([
          app.http.patch(`/api/user/${p.id}`, { username: `pn${t}` }),
          app.http.put(`/api/user/${q.id}`, { username: `PN${t}`, email: q.email }),
        ]);
        expect(answers.filter((a) => a.status === 200), `round ${round}: ${JSON.stringify(answers.map((a) => a.status))}`).to.have.length(1);
        for (const a of answers.filter((x) => x.status !== 200)) expectConflict(a, ['username'], `round ${round}`);
        expect(await holders('username', `pn${t}`)).to.equal(1);
      }
    });

    it('multipart writes are checked like JSON ones: PATCH (updateDto) to a case variant of another username, POST (data) with a case variant of another e-mail: 409, nothing written', async () => {
      const t = tag();
      const bob = await app.createUser({ username: `bob${t}`, email: `Admin${t}@Example.com` });
      const other = await app.createUser();
      const patched = await sendForm(`${app.url}/api/user/${other.id}`, 'PATCH', { updateDto: { username: `BOB${t}` } }, [], app.fetch, token());
      expectConflict(patched, ['username'], 'multipart PATCH');
      const created = await sendForm(`${app.url}/api/user`, 'POST', { data: { username: `new${t}`, email: `ADMIN${t}@example.com`, password: PASSWORD } }, [], app.fetch, token());
      expectConflict(created, ['email'], 'multipart POST');
      expect(await holders('username', `bob${t}`)).to.equal(1);
      expect(await holders('email', `admin${t}@example.com`)).to.equal(1);
      expect(await holders('username', `new${t}`)).to.equal(0);
      expect((await app.signIn(bob.username.toUpperCase(), bob.password)).id).to.equal(bob.id);
      expect((await app.signIn(other.username, other.password)).id).to.equal(other.id);
    });

    it('a user created without roles gets the default role authenticated (JSON, bulk, multipart, by a caller without user.assignRoles too); roles: [] creates one with none; named roles are exactly those', async () => {
      const manager = await userWith(app, `user-manager-${tag()}`, ['user.find', 'user.findOne', 'user.create', 'user.update']);
      const roles = (await app.http.get('/api/role?limit=100')).body.records as { id: number; name: string }[];
      const adminRole = roles.find((r) => r.name === 'admin')?.id ?? 0;
      const body = (extra: Record<string, unknown> = {}) => {
        const t = tag();
        return { username: `role${t}`, email: `role${t}@example.test`, password: PASSWORD, ...extra };
      };
      const rolesOf = async (id: number): Promise<string[]> =>
        ((await app.http.get(`/api/user/${id}?populate[0]=roles`)).body.roles as { name: string }[]).map((r) => r.name).sort();
      const single = await app.http.post('/api/user', body());
      const bulk = await app.http.post('/api/user/bulk', [body(), body()]);
      const form = await sendForm(`${app.url}/api/user`, 'POST', { data: body() }, [], app.fetch, token());
      const byManager = await manager.http.post('/api/user', body());
      for (const res of [single, bulk, form, byManager]) expect(res.status, JSON.stringify(res.body)).to.equal(200);
      const ids = [single.body.data.id, ...bulk.body.data.map((u: { id: number }) => u.id), form.body.data.id, byManager.body.data.id] as number[];
      for (const id of ids) expect(await rolesOf(id), `user ${id}`).to.deep.equal(['authenticated']);
      // a default-role user reads what authenticated may read (CONTRACT: find + findOne on the example models)
      const signed = await app.signIn(single.body.data.username, PASSWORD);
      expect(signed.roles).to.deep.equal(['authenticated']);
      expect((await signed.http.get('/api/institute')).status).to.equal(200);
      const none = await app.http.post('/api/user', body({ roles: [] }));
      expect(none.status).to.equal(200);
      expect(await rolesOf(none.body.data.id)).to.deep.equal([]);
      const named = await app.http.post('/api/user', body({ roles: [adminRole] }));
      expect(await rolesOf(named.body.data.id)).to.deep.equal(['admin']);
    });

    it('changing the e-mail or mobile through /api/user un-verifies it unless the same write sets the flag; the same address in another case or spelling keeps it', async () => {
      const t = tag();
      const made = await app.http.post('/api/user', { username: `ver${t}`, email: `ver${t}@example.test`, mobile: '+15557001', password: PASSWORD, emailVerified: true, mobileVerified: true });
      expect(made.status, made.text).to.equal(200);
      const id = made.body.data.id as number;
      const flags = async () => {
        const u = (await app.http.get(`/api/user/${id}`)).body as { emailVerified: boolean; mobileVerified: boolean };
        return { emailVerified: u.emailVerified, mobileVerified: u.mobileVerified };
      };
      const patch = async (body: Record<string, unknown>) => {
        const res = await app.http.patch(`/api/user/${id}`, body);
        expect(res.status, res.text).to.equal(200);
        return flags();
      };
      expect(await patch({ email: `VER${t}@Example.TEST`, mobile: '+1 555 7001' }), 'same address, other case or spelling').to.deep.equal({ emailVerified: true, mobileVerified: true });
      expect(await patch({ email: `new${t}@example.test` }), 'new e-mail').to.deep.equal({ emailVerified: false, mobileVerified: true });
      expect(await patch({ mobile: '+15557002' }), 'new mobile').to.deep.equal({ emailVerified: false, mobileVerified: false });
      expect(await patch({ email: `newer${t}@example.test`, emailVerified: true, mobile: '+15557003', mobileVerified: true }), 'new addresses, flags set by the write').to.deep.equal({ emailVerified: true, mobileVerified: true });
      expect(await patch({ mobile: null }), 'mobile cleared').to.deep.equal({ emailVerified: true, mobileVerified: false });
      const form = await sendForm(`${app.url}/api/user/${id}`, 'PATCH', { updateDto: { email: `form${t}@example.test` } }, [], app.fetch, token());
      expect(form.status, JSON.stringify(form.body)).to.equal(200);
      expect((await flags()).emailVerified, 'multipart: new e-mail').to.equal(false);
      const put = await app.http.put(`/api/user/${id}`, { username: `ver${t}`, email: `put${t}@example.test`, emailVerified: true });
      expect(put.status, put.text).to.equal(200);
      expect((await flags()).emailVerified, 'PUT naming the flag').to.equal(true);
    });
  });
}
