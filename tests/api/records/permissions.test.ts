/** CONTRACT Roles and permissions: no token → 401, a token without the permission → 403; seeded roles. */
import { expect } from 'chai';
import { DIALECTS } from '../../helpers/dialects';
import { startTestApp, type TestApp, type TestUser } from '../../helpers/test-app';

for (const dialect of DIALECTS) {
  describe(`records: authentication and permissions [${dialect}]`, () => {
    let app: TestApp;
    let member: TestUser;
    let instituteId: number;

    before(async () => {
      app = await startTestApp(dialect);
      member = await app.createUser({ roles: ['authenticated'] });
      instituteId = (await app.http.post('/api/institute', { name: 'Perm High', code: 'PERM' })).body.data.id;
    });
    after(async () => app?.close());

    const endpoints: [string, string, unknown?][] = [
      ['get', '/api/institute'],
      ['get', '/api/institute/1'],
      ['post', '/api/institute', { name: 'X', code: 'X' }],
      ['post', '/api/fee-type/bulk', [{ feeType: 'X' }]],
      ['put', '/api/institute/1', { name: 'X', code: 'X' }],
      ['patch', '/api/institute/1', { name: 'X' }],
      ['del', '/api/institute/1'],
      ['post', '/api/fee-type/recover/1'],
      ['get', '/api/user'],
    ];

    for (const [method, path, body] of endpoints) {
      it(`${method.toUpperCase()} ${path} without a token → 401`, async () => {
        const c = app.anon as unknown as Record<string, (p: string, b?: unknown) => Promise<{ status: number; body: { error: { name: string } } }>>;
        const res = await c[method](path, body);
        expect(res.status).to.equal(401);
        expect(res.body.error.name).to.equal('UnauthorizedError');
      });
    }

    it('authenticated may find and findOne the example models, nothing else (403)', async () => {
      expect((await member.http.get('/api/institute')).status).to.equal(200);
      expect((await member.http.get(`/api/institute/${instituteId}`)).status).to.equal(200);
      expect((await member.http.get('/api/fee-type')).status).to.equal(200);
      const write = await member.http.post('/api/institute', { name: 'Nope', code: 'NOPE' });
      expect(write.status).to.equal(403);
      expect(write.body.error.name).to.equal('ForbiddenError');
      expect((await member.http.patch(`/api/institute/${instituteId}`, { city: 'X' })).status).to.equal(403);
      expect((await member.http.del(`/api/institute/${instituteId}`)).status).to.equal(403);
      expect((await member.http.get('/api/fee-type?showSoftDeleted=inclusive')).status).to.equal(403);
    });

    it('the plugin models are admin-only: user, role, permission', async () => {
      for (const m of ['user', 'role', 'permission']) {
        expect((await member.http.get(`/api/${m}`)).status, m).to.equal(403);
        expect((await app.http.get(`/api/${m}`)).status, m).to.equal(200);
      }
    });

    it('a role without any permission gets 403; an invalid or foreign token gets 401', async () => {
      const nobody = await app.createUser({ roles: ['public'] });
      expect((await nobody.http.get('/api/institute')).status).to.equal(403);
      expect((await app.anon.withToken('not-a-token').get('/api/institute')).status).to.equal(401);
      const basic = await app.anon.get('/api/institute', { headers: { authorization: 'Basic YWRtaW46YWRtaW4=' } });
      expect(basic.status).to.equal(401);
    });

    it('sessions and one-time codes have no REST routes (api: false)', async () => {
      for (const m of ['session', 'refresh-token', 'one-time-code']) expect((await app.http.get(`/api/${m}`)).status, m).to.equal(404);
    });

    it('an admin lists users with roles.permissions populated; secrets never appear, filter or sort', async () => {
      const res = await app.http.get(`/api/user?filters[id][$eq]=${member.id}&populate[0]=roles.permissions`);
      expect(res.status).to.equal(200);
      const u = res.body.records[0];
      expect(u).to.include({ id: member.id, username: member.username });
      expect(u.roles.map((r: { name: string }) => r.name)).to.deep.equal(['authenticated']);
      const actions = u.roles[0].permissions.map((p: { action: string }) => p.action);
      expect(actions).to.include.members(['institute.find', 'institute.findOne', 'fee-type.find']);
      expect(actions).to.not.include('institute.create');
      for (const secret of ['password', 'usernameKey', 'emailKey', 'mobileKey', 'pendingVerification']) expect(u).to.not.have.property(secret);
      expect(res.text).to.not.match(/\$2[aby]\$/);
      expect((await app.http.get('/api/user?filters[password][$startsWith]=$2')).status).to.equal(400);
      expect((await app.http.get('/api/user?sort[0]=emailKey')).status).to.equal(400);
    });

    it('an admin creates a user through /api/user: the password is hashed (> 72 bytes → 422) and signs in', async () => {
      const long = await app.http.post('/api/user', { username: 'restuser', email: 'rest@example.test', password: 'x'.repeat(73) });
      expect(long.status).to.equal(422);
      expect(long.body.error.details.fields).to.have.property('password');
      const roleId = (await app.http.get('/api/role?filters[name][$eq]=authenticated')).body.records[0].id;
      const made = await app.http.post('/api/user', { username: 'RestUser', email: 'Rest@Example.test', password: 'rest-pass-123', roles: [roleId] });
      expect(made.status).to.equal(200);
      expect(made.body.data).to.not.have.property('password');
      const signed = await app.signIn('restuser', 'rest-pass-123');
      expect(signed.roles).to.deep.equal(['authenticated']);
    });

    it('records created by a granted user carry that user in createdBy', async () => {
      const editor = await app.createUser({ roles: ['admin'], fullName: 'Eddie Editor' });
      const res = await editor.http.post('/api/institute', { name: 'Edited', code: 'EDT' });
      expect(res.status).to.equal(200);
      expect(res.body.data.createdBy).to.deep.equal({ id: editor.id, fullName: 'Eddie Editor', username: editor.username, email: editor.email });
    });
  });
}
