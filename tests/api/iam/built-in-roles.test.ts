/**
 * The seeded roles (CONTRACT: admin, authenticated, public) cannot be deleted or renamed through
 * /api/role (409): deleting `admin` locked every admin out for good, deleting `authenticated` made
 * registration fail. Their permissions and description change like any role's; other roles are free.
 */
import { expect } from 'chai';
import { DIALECTS } from '../../helpers/dialects';
import { startTestApp, type TestApp } from '../../helpers/test-app';

for (const dialect of DIALECTS) {
  describe(`identity: built-in roles stay [${dialect}]`, () => {
    let app: TestApp;
    const ids: Record<string, number> = {};
    before(async () => {
      app = await startTestApp(dialect);
      for (const name of ['admin', 'authenticated', 'public']) {
        const r = await app.http.get(`/api/role?filters[name][$eq]=${name}`);
        expect(r.body.records, name).to.have.length(1);
        ids[name] = r.body.records[0].id as number;
      }
    });
    after(async () => app?.close());

    for (const name of ['admin', 'authenticated', 'public']) {
      it(`${name}: DELETE and a new name answer 409 naming the role; nothing changes`, async () => {
        const del = await app.http.del(`/api/role/${ids[name]}`);
        expect(del.status).to.equal(409);
        expect(del.body.error.name).to.equal('ConflictError');
        expect(del.body.error.details).to.deep.include({ reason: 'builtInRole', role: name });
        expect(del.body.error.message).to.contain(`"${name}"`);
        const rename = await app.http.patch(`/api/role/${ids[name]}`, { name: `${name}-old` });
        expect(rename.status).to.equal(409);
        expect(rename.body.error.details).to.deep.include({ reason: 'builtInRole', role: name });
        const put = await app.http.put(`/api/role/${ids[name]}`, { name: `${name}2` });
        expect(put.status).to.equal(409);
        const now = await app.http.get(`/api/role/${ids[name]}`);
        expect(now.status).to.equal(200);
        expect(now.body.name).to.equal(name);
      });
    }

    it('a built-in role’s description changes, and a PUT keeping its name is a write like any other', async () => {
      const patch = await app.http.patch(`/api/role/${ids.authenticated}`, { description: 'Everyone signed in' });
      expect(patch.status).to.equal(200);
      expect(patch.body.data.description).to.equal('Everyone signed in');
      const put = await app.http.put(`/api/role/${ids.public}`, { name: 'public', description: 'No token' });
      expect(put.status).to.equal(200);
    });

    it('the admin role still answers after the refusals: its members keep every permission', async () => {
      expect((await app.http.get('/api/user')).status).to.equal(200);
      expect((await app.http.post('/api/institute', { name: 'Still admin', code: 'ADM' })).status).to.equal(200);
    });

    it('a role of one’s own is renamed and deleted freely', async () => {
      const made = await app.http.post('/api/role', { name: 'editors' });
      expect(made.status).to.equal(200);
      const id = made.body.data.id as number;
      expect((await app.http.patch(`/api/role/${id}`, { name: 'writers' })).status).to.equal(200);
      expect((await app.http.del(`/api/role/${id}`)).status).to.equal(200);
    });
  });
}
