/**
 * Read-your-writes for who a caller is, every database: a committed change of a user's roles, of the user
 * itself (deleted), or of a role (renamed, deleted) holds for that user's very next request on this node,
 * although the service keeps each session's actor for up to 0.5 s (authenticate.ts): the write drops it.
 */
import { expect } from 'chai';
import { DIALECTS } from '../../helpers/dialects';
import { startTestApp, type TestApp } from '../../helpers/test-app';

for (const dialect of DIALECTS) {
  describe(`role and user changes hold for the next request [${dialect}]`, () => {
    let app: TestApp;
    const tag = Math.random().toString(36).slice(2, 8);
    before(async () => {
      app = await startTestApp(dialect);
    });
    after(async () => app?.close());

    it("a user's roles taken away: the next request is refused; given back: the next is allowed", async () => {
      const bob = await app.createUser({ username: `bob-${tag}` });
      expect((await bob.http.get('/api/fee-type')).status).to.equal(200);
      expect((await app.http.patch(`/api/user/${bob.id}`, { roles: [] })).status).to.equal(200);
      const refused = await bob.http.get('/api/fee-type');
      expect(refused.status, refused.text).to.equal(403);
      const adminRole = (await app.http.get('/api/role?filters[name][$eq]=admin')).body.records[0].id as number;
      expect((await app.http.patch(`/api/user/${bob.id}`, { roles: [adminRole] })).status).to.equal(200);
      // admin only: the user list
      const promoted = await bob.http.get('/api/user');
      expect(promoted.status, promoted.text).to.equal(200);
    });

    it('a role renamed or deleted: its users lose what it gave at their next request', async () => {
      const role = await app.http.post('/api/role', { name: `auditor-${tag}` });
      expect(role.status, role.text).to.equal(200);
      const granted = await app.http.get(`/api/permission?filters[action][$eq]=institute.create`);
      const permission = granted.body.records[0].id as number;
      expect((await app.http.patch(`/api/role/${role.body.data.id}`, { permissions: [permission] })).status).to.equal(200);
      const carol = await app.createUser({ username: `carol-${tag}`, roles: [`auditor-${tag}`] });
      const create = (): Promise<{ status: number; text: string }> => carol.http.post('/api/institute', { name: `Inst ${tag} ${Math.random()}`, code: `c${Math.random().toString(36).slice(2, 8)}` });
      expect((await create()).status).to.equal(200);
      // renamed: still her role, under its new name
      expect((await app.http.patch(`/api/role/${role.body.data.id}`, { name: `reviewer-${tag}` })).status).to.equal(200);
      const renamed = await create();
      expect(renamed.status, renamed.text).to.equal(200);
      expect((await app.http.del(`/api/role/${role.body.data.id}`)).status).to.equal(200);
      const refused = await create();
      expect(refused.status, refused.text).to.equal(403);
    });

    it('a user deleted: the next request with its token is refused', async () => {
      const dave = await app.createUser({ username: `dave-${tag}` });
      expect((await dave.http.get('/api/fee-type')).status).to.equal(200);
      expect((await app.http.del(`/api/user/${dave.id}`)).status).to.equal(200);
      const refused = await dave.http.get('/api/fee-type');
      expect(refused.status, refused.text).to.equal(401);
    });
  });
}
