/**
 * Issue 13 item 12: through /api/user, the identity plugin's private identity columns are server-only
 * (YAML `writable: false`: a body naming one is refused like an unknown field, 422), and writing `roles`
 * needs `user.assignRoles` (YAML `writeAction`), not just `user.create` / `user.update`. The account's
 * booleans are never null (YAML `required` with a default): null answers 422 naming the field.
 */
import { expect } from 'chai';
import { DIALECTS } from '../../helpers/dialects';
import { sendForm } from '../../helpers/multipart';
import { makeRole, userWith } from '../../helpers/roles';
import { startTestApp, type TestApp, type TestUser } from '../../helpers/test-app';

const SERVER_ONLY = { usernameKey: 'someone', emailKey: 'someone@example.test', mobileKey: '+15550001', pendingVerification: 'email' } as const;
const USER_ADMIN = ['user.find', 'user.findOne', 'user.create', 'user.update', 'role.find'];
/** The user's booleans and what an account left without them gets. */
const FLAGS = { active: true, forcePasswordChange: false, emailVerified: false, mobileVerified: false } as const;

for (const dialect of DIALECTS) {
  describe(`user writes: server-only identity columns, roles need user.assignRoles [${dialect}]`, () => {
    let app: TestApp;
    /** Manages users but may not give roles. */
    let manager: TestUser;
    /** Manages users and gives roles. */
    let assigner: TestUser;
    let authenticatedRole: number;
    let adminRole: number;

    before(async () => {
      app = await startTestApp(dialect);
      // also authenticated: the users it creates get that role by default, and it may write only accounts
      // holding no permission it lacks (user-write-scope.ts)
      await makeRole(app, 'user-manager', USER_ADMIN);
      manager = await app.createUser({ roles: ['user-manager', 'authenticated'] });
      assigner = await userWith(app, 'role-assigner', [...USER_ADMIN, 'user.assignRoles']);
      const roles = (await app.http.get('/api/role?limit=100')).body.records as { id: number; name: string }[];
      authenticatedRole = roles.find((r) => r.name === 'authenticated')?.id ?? 0;
      adminRole = roles.find((r) => r.name === 'admin')?.id ?? 0;
    });
    after(async () => app?.close());

    let n = 0;
    const newUser = (extra: Record<string, unknown> = {}) => {
      n += 1;
      return { username: `writer${n}`, email: `writer${n}@example.test`, password: 'a-password-123', ...extra };
    };

    for (const [field, value] of Object.entries(SERVER_ONLY)) {
      it(`${field}: refused on create, bulk create, PATCH and PUT, even for admin (422 naming it); nothing is written`, async () => {
        const created = await app.http.post('/api/user', newUser({ [field]: value }));
        expect(created.status, created.text).to.equal(422);
        expect(created.body.error.details.fields[field]).to.deep.equal(['is not a field of user']);
        const bulk = await app.http.post('/api/user/bulk', [newUser({ [field]: value })]);
        expect(bulk.status).to.equal(422);
        expect(bulk.body.error.details.errors[0].fields[field]).to.deep.equal(['is not a field of user']);
        const target = await app.createUser();
        const patched = await app.http.patch(`/api/user/${target.id}`, { [field]: value });
        expect(patched.status, patched.text).to.equal(422);
        expect(patched.body.error.details.fields).to.have.property(field);
        const put = await app.http.put(`/api/user/${target.id}`, { username: target.username, email: target.email, [field]: value });
        expect(put.status, put.text).to.equal(422);
        const form = await sendForm(`${app.url}/api/user/${target.id}`, 'PATCH', { data: { [field]: value } }, [], app.fetch, app.admin?.accessToken ?? null);
        expect(form.status).to.equal(422);
        // the account still signs in by its own name: no key was overwritten
        expect((await app.signIn(target.username, target.password)).id).to.equal(target.id);
      });
    }

    for (const [field, byDefault] of Object.entries(FLAGS)) {
      it(`${field} is a boolean, never null: null answers 422 details.fields.${field} (create, bulk, PATCH, PUT, multipart); nothing is written`, async () => {
        const mark = await app.deps.events.latestId();
        const created = await app.http.post('/api/user', newUser({ [field]: null }));
        expect(created.status, created.text).to.equal(422);
        expect(created.body.error.name).to.equal('ValidationError');
        expect(created.body.error.details.fields).to.deep.equal({ [field]: ['must be boolean'] });
        const bulk = await app.http.post('/api/user/bulk', [newUser(), newUser({ [field]: null })]);
        expect(bulk.status, bulk.text).to.equal(422);
        expect(bulk.body.error.details.errors).to.deep.equal([{ index: 1, fields: { [field]: ['must be boolean'] } }]);
        expect(await app.deps.events.readAfter(mark, 100), 'no account was written').to.deep.equal([]);

        const made = await app.http.post('/api/user', newUser());
        expect(made.status, made.text).to.equal(200);
        expect(made.body.data[field], 'left out: its default').to.equal(byDefault);
        const id = made.body.data.id as number;
        const { username, email } = made.body.data as { username: string; email: string };
        const patched = await app.http.patch(`/api/user/${id}`, { [field]: null });
        expect(patched.status, patched.text).to.equal(422);
        expect(patched.body.error.details.fields).to.deep.equal({ [field]: ['must be boolean'] });
        const put = await app.http.put(`/api/user/${id}`, { username, email, [field]: null });
        expect(put.status, put.text).to.equal(422);
        expect(put.body.error.details.fields).to.deep.equal({ [field]: ['must be boolean'] });
        const form = await sendForm(`${app.url}/api/user/${id}`, 'PATCH', { data: { [field]: null } }, [], app.fetch, app.admin?.accessToken ?? null);
        expect(form.status).to.equal(422);
        expect(form.body.error.details.fields).to.deep.equal({ [field]: ['must be boolean'] });
        expect((await app.http.get(`/api/user/${id}`)).body[field], 'unchanged').to.equal(byDefault);

        // a boolean is written as given, and a PUT that leaves it out writes its default
        expect((await app.http.patch(`/api/user/${id}`, { [field]: !byDefault })).body.data[field]).to.equal(!byDefault);
        const reset = await app.http.put(`/api/user/${id}`, { username, email });
        expect(reset.status, reset.text).to.equal(200);
        expect(reset.body.data[field]).to.equal(byDefault);
      });
    }

    it('a PUT through the API leaves the server-only columns as the server set them', async () => {
      const target = await app.createUser({ mobile: '+15550002' });
      const keys = () => app.deps.db('users').where('id', target.id).first('username_key', 'email_key', 'mobile_key');
      const before = await keys();
      expect(before.username_key).to.equal(target.username.toLowerCase());
      const put = await app.http.put(`/api/user/${target.id}`, { username: target.username, email: target.email, mobile: '+15550002', password: target.password, fullName: 'Put Person', roles: [authenticatedRole] });
      expect(put.status, put.text).to.equal(200);
      expect(await keys()).to.deep.equal(before);
      expect((await app.signIn(target.email, target.password)).id).to.equal(target.id);
    });

    it('the write schemas in /docs leave the server-only columns out and say what roles need', async () => {
      const schemas = (app.document.components as { schemas: Record<string, { properties: Record<string, { description?: string }> }> }).schemas;
      for (const name of ['UserCreate', 'UserReplace', 'UserUpdate']) {
        for (const field of Object.keys(SERVER_ONLY)) expect(schemas[name].properties, `${name}.${field}`).to.not.have.property(field);
        expect(schemas[name].properties.roles.description).to.contain('user.assignRoles');
      }
    });

    it('without user.assignRoles: creating or changing a user works, naming roles is 403 (create, bulk, PATCH, PUT, multipart)', async () => {
      const plain = await manager.http.post('/api/user', newUser());
      expect(plain.status, plain.text).to.equal(200);
      const id = plain.body.data.id as number;
      expect((await manager.http.patch(`/api/user/${id}`, { fullName: 'Renamed' })).status).to.equal(200);

      const attempts = [
        await manager.http.post('/api/user', newUser({ roles: [adminRole] })),
        await manager.http.post('/api/user/bulk', [newUser(), newUser({ roles: [adminRole] })]),
        await manager.http.patch(`/api/user/${id}`, { roles: [adminRole] }),
        await manager.http.patch(`/api/user/${manager.id}`, { roles: [adminRole] }),
        await manager.http.patch(`/api/user/${id}`, { roles: [] }),
        // a PUT sets every attribute it leaves out, roles too: it needs the permission as well
        await manager.http.put(`/api/user/${id}`, { username: `writer-put${n}`, email: `put${n}@example.test` }),
      ];
      for (const res of attempts) {
        expect(res.status, res.text).to.equal(403);
        expect(res.body.error.name).to.equal('ForbiddenError');
        expect(res.body.error.message).to.contain('user.assignRoles');
      }
      const form = await sendForm(`${app.url}/api/user`, 'POST', { data: newUser({ roles: [adminRole] }) }, [], app.fetch, manager.accessToken);
      expect(form.status).to.equal(403);
      // nothing changed: the manager is no admin, and the user has the default role only (CONTRACT)
      expect((await manager.http.get('/api/role')).status).to.equal(200);
      expect((await manager.http.get('/api/permission')).status).to.equal(403);
      const roles = await app.http.get(`/api/user/${id}?populate[0]=roles`);
      expect((roles.body.roles as { name: string }[]).map((r) => r.name)).to.deep.equal(['authenticated']);
      expect(roles.body.fullName).to.equal('Renamed');
    });

    it('without user.assignRoles: an account holding permissions the caller lacks (an admin) cannot be written: its password, e-mail, mobile or flags would take it over (403, nothing changes)', async () => {
      const admin = await app.createUser({ roles: ['admin'] });
      const before = (await app.http.get(`/api/user/${admin.id}`)).body;
      const attempts = [
        await manager.http.patch(`/api/user/${admin.id}`, { password: 'taken-over-123' }),
        await manager.http.patch(`/api/user/${admin.id}`, { email: 'attacker@example.test' }),
        await manager.http.patch(`/api/user/${admin.id}`, { mobile: '+15559999' }),
        await manager.http.patch(`/api/user/${admin.id}`, { active: false }),
      ];
      const form = await sendForm(`${app.url}/api/user/${admin.id}`, 'PATCH', { data: { password: 'taken-over-123' } }, [], app.fetch, manager.accessToken);
      expect(form.status).to.equal(403);
      for (const res of attempts) {
        expect(res.status, res.text).to.equal(403);
        expect(res.body.error.name).to.equal('ForbiddenError');
        expect(res.body.error.message).to.contain('user.assignRoles');
      }
      expect((await app.anon.post('/api/iam/authenticate', { username: admin.username, password: 'taken-over-123' })).status).to.equal(401);
      expect((await app.signIn(admin.username, admin.password)).id).to.equal(admin.id);
      const after = (await app.http.get(`/api/user/${admin.id}`)).body;
      expect(after).to.include({ email: before.email, mobile: before.mobile, active: true });
      // users holding nothing the manager lacks stay writable, the manager itself included
      const plain = await app.createUser({ roles: [] });
      expect((await manager.http.patch(`/api/user/${plain.id}`, { password: 'set-by-manager-1' })).status).to.equal(200);
      expect((await manager.http.patch(`/api/user/${manager.id}`, { fullName: 'Myself' })).status).to.equal(200);
      // with user.assignRoles the caller may give itself admin anyway, so it may write the admin too
      expect((await assigner.http.patch(`/api/user/${admin.id}`, { fullName: 'Renamed Admin' })).status).to.equal(200);
    });

    it('identifiers written through /api/user are identifiers: a case variant of another account\'s is 409, a renamed account signs in by its new names only, a created one by its e-mail in any case', async () => {
      const a = await app.createUser({ mobile: '+15550003' });
      const b = await app.createUser();
      const clashes = [
        await app.http.patch(`/api/user/${b.id}`, { username: a.username.toUpperCase() }),
        await app.http.patch(`/api/user/${b.id}`, { email: a.email.toUpperCase() }),
        await app.http.patch(`/api/user/${b.id}`, { mobile: '+1 555 000 3' }),
        await app.http.put(`/api/user/${b.id}`, { username: b.username, email: a.email.toUpperCase() }),
        await app.http.post('/api/user', newUser({ email: a.email.toUpperCase() })),
        await app.http.post('/api/user/bulk', [newUser({ username: a.username.toUpperCase() })]),
        await app.http.post('/api/user/bulk', [newUser({ email: 'twice@example.test' }), newUser({ email: 'TWICE@example.test' })]),
      ];
      for (const res of clashes) {
        expect(res.status, res.text).to.equal(409);
        expect(res.body.error.name).to.equal('ConflictError');
      }
      // a caller who may not write users learns nothing of which names exist: 403 / 401 as for any body
      const plain = await app.createUser();
      expect((await plain.http.post('/api/user', newUser({ email: a.email }))).status).to.equal(403);
      expect((await plain.http.post('/api/user/bulk', [newUser({ username: a.username })])).status).to.equal(403);
      expect((await plain.http.patch(`/api/user/${b.id}`, { email: a.email })).status).to.equal(403);
      expect((await app.anon.post('/api/user', newUser({ email: a.email }))).status).to.equal(401);
      expect((await app.anon.patch(`/api/user/${b.id}`, { email: a.email })).status).to.equal(401);
      expect((await app.signIn(b.username, b.password)).id).to.equal(b.id);
      // a rename: the new name and e-mail sign in, the old ones no longer do
      const renamed = await app.http.patch(`/api/user/${b.id}`, { username: `${b.username}-new`, email: `new-${b.email}` });
      expect(renamed.status, renamed.text).to.equal(200);
      expect((await app.anon.post('/api/iam/authenticate', { username: b.username, password: b.password })).status).to.equal(401);
      expect((await app.anon.post('/api/iam/authenticate', { email: b.email, password: b.password })).status).to.equal(401);
      expect((await app.signIn(`${b.username}-new`.toUpperCase(), b.password)).id).to.equal(b.id);
      expect((await app.signIn(`NEW-${b.email}`, b.password)).id).to.equal(b.id);
      // the old name is free again
      expect((await app.http.post('/api/user', newUser({ username: b.username }))).status).to.equal(200);
      const mixed = `Mixed.Case${n}@Example.test`;
      const made = await app.http.post('/api/user', newUser({ email: mixed }));
      expect(made.status, made.text).to.equal(200);
      expect((await app.signIn(mixed.toLowerCase(), 'a-password-123')).id).to.equal(made.body.data.id);
    });

    it('a username follows the registration rule through /api/user too: one shaped like another account\'s e-mail would take over its e-mail sign-in (422)', async () => {
      const owner = await app.createUser();
      const target = await app.createUser();
      for (const username of [owner.email, 'with space', 'x', 'a/b']) {
        const created = await app.http.post('/api/user', newUser({ username }));
        expect(created.status, created.text).to.equal(422);
        expect(created.body.error.details.fields).to.have.property('username');
        const patched = await app.http.patch(`/api/user/${target.id}`, { username });
        expect(patched.status, patched.text).to.equal(422);
      }
      // the owner still signs in with the e-mail typed as a username
      expect((await app.signIn(owner.email, owner.password)).id).to.equal(owner.id);
      expect((await app.http.patch(`/api/user/${target.id}`, { username: 'Some.User_name-2' })).status).to.equal(200);
    });

    it('with user.assignRoles: roles are written on create, PATCH and PUT; the user signs in with them', async () => {
      const made = await assigner.http.post('/api/user', newUser({ roles: [authenticatedRole] }));
      expect(made.status, made.text).to.equal(200);
      const id = made.body.data.id as number;
      const signed = await app.signIn(made.body.data.username, 'a-password-123');
      expect(signed.roles).to.deep.equal(['authenticated']);
      expect((await assigner.http.patch(`/api/user/${id}`, { roles: [] })).status).to.equal(200);
      const put = await assigner.http.put(`/api/user/${id}`, { username: made.body.data.username, email: made.body.data.email, roles: [authenticatedRole] });
      expect(put.status, put.text).to.equal(200);
      const bulk = await assigner.http.post('/api/user/bulk', [newUser({ roles: [authenticatedRole] })]);
      expect(bulk.status, bulk.text).to.equal(200);
      // the admin holds the permission like every other
      expect((await app.http.patch(`/api/user/${id}`, { roles: [authenticatedRole] })).status).to.equal(200);
    });
  });
}
