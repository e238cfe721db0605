/**
 * Issue 13 item 11: a model's YAML `permissions:` says who besides admin may do what; without it, nobody.
 * The grants are seeded at start and a restart applies YAML changes as changes: what the YAML added is
 * granted, what it dropped is revoked, and what an admin changed through the API stays.
 */
import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DIALECTS } from '../../helpers/dialects';
import { actionsOf } from '../../helpers/roles';
import { ROOT, startTestApp, type TestApp, type TestUser } from '../../helpers/test-app';
import { createTestDatabase } from '../../helpers/test-db';

const MODELS = join(ROOT, 'tests', 'fixtures', 'access-models');

/** The fixture model of the restart test, with the given `permissions:` block. */
function memo(permissions: string): string {
  return `displayName: Memo\n${permissions}attributes:\n  body: { type: string, maxLength: 100 }\n`;
}

async function permissionId(app: TestApp, action: string): Promise<number> {
  return (await app.http.get(`/api/permission?filters[action][$eq]=${action}`)).body.records[0].id as number;
}

/** Sets the permissions of role `name` through the admin API, as an operator would. */
async function setRolePermissions(app: TestApp, name: string, actions: readonly string[]): Promise<void> {
  const role = (await app.http.get(`/api/role?filters[name][$eq]=${name}`)).body.records[0].id as number;
  const ids: number[] = [];
  for (const a of actions) ids.push(await permissionId(app, a));
  const res = await app.http.patch(`/api/role/${role}`, { permissions: ids });
  expect(res.status, res.text).to.equal(200);
}

for (const dialect of DIALECTS) {
  describe(`model permissions: YAML permissions:, default admin only [${dialect}]`, () => {
    let app: TestApp;
    let member: TestUser;

    before(async () => {
      app = await startTestApp(dialect, { contentTypesDir: MODELS });
      member = await app.createUser({ roles: ['authenticated'] });
      await app.http.post('/api/topic', { code: 'T1' });
      await app.http.post('/api/secret-note', { text: 'n' });
    });
    after(async () => app?.close());

    it('a model without permissions: is not readable by authenticated (403) nor public (401); admin may', async () => {
      expect((await member.http.get('/api/topic')).status).to.equal(403);
      expect((await member.http.get('/api/topic/1')).status).to.equal(403);
      expect((await app.anon.get('/api/topic')).status).to.equal(401);
      expect((await app.http.get('/api/topic')).status).to.equal(200);
    });

    it('a model grants what its YAML names: secret-note gives authenticated find, not findOne nor writes', async () => {
      expect((await member.http.get('/api/secret-note')).status).to.equal(200);
      expect((await member.http.get('/api/secret-note/1')).status).to.equal(403);
      expect((await member.http.post('/api/secret-note', { text: 'x' })).status).to.equal(403);
      expect((await app.anon.get('/api/secret-note')).status).to.equal(401);
    });

    it('the YAML grants are seeded: authenticated holds secret-note.find and nothing else; public holds nothing', async () => {
      expect(await actionsOf(app, 'authenticated')).to.deep.equal(['secret-note.find']);
      expect(await actionsOf(app, 'public')).to.deep.equal([]);
    });

    it('admin holds every action of every model, the declared ones (user.assignRoles) too', async () => {
      const all = await actionsOf(app, 'admin');
      expect(all).to.include.members(['topic.find', 'topic.recover', 'secret-note.create', 'user.update', 'user.assignRoles', 'role.update']);
      expect(all.filter((a) => a.endsWith('.assignRoles'))).to.deep.equal(['user.assignRoles']);
    });
  });

  describe(`model permissions: the shipped models keep their grants [${dialect}]`, () => {
    it('institute and fee-type: authenticated find + findOne, from their YAML', async () => {
      const app = await startTestApp(dialect);
      try {
        expect(await actionsOf(app, 'authenticated')).to.deep.equal(['fee-type.find', 'fee-type.findOne', 'institute.find', 'institute.findOne']);
        expect(await actionsOf(app, 'public')).to.deep.equal([]);
      } finally {
        await app.close();
      }
    });
  });

  describe(`model permissions: a restart applies YAML changes as changes [${dialect}]`, () => {
    it('grants what the YAML added, revokes what it dropped, keeps what an admin changed', async () => {
      const models = mkdtempSync(join(tmpdir(), 'ris-perm-models-'));
      const database = await createTestDatabase(dialect);
      const start = async (permissions: string): Promise<TestApp> => {
        writeFileSync(join(models, 'memo.yaml'), memo(permissions));
        return startTestApp(dialect, { contentTypesDir: models, database });
      };
      try {
        let app = await start('permissions:\n  authenticated: [find, findOne]\n  public: [find]\n');
        expect(await actionsOf(app, 'authenticated')).to.deep.equal(['memo.find', 'memo.findOne']);
        expect(await actionsOf(app, 'public')).to.deep.equal(['memo.find']);
        expect((await app.anon.get('/api/memo')).status).to.equal(200);
        // the admin revokes a YAML grant and adds one of its own
        await setRolePermissions(app, 'authenticated', ['memo.find', 'memo.create']);
        await app.close();

        // nothing changed in the YAML: the admin's changes stay
        app = await start('permissions:\n  authenticated: [find, findOne]\n  public: [find]\n');
        expect(await actionsOf(app, 'authenticated')).to.deep.equal(['memo.create', 'memo.find']);
        await app.close();

        // the YAML drops find (authenticated) and public's find, adds update: dropped ones go, the added one comes
        app = await start('permissions:\n  authenticated: [findOne, update]\n');
        expect(await actionsOf(app, 'authenticated')).to.deep.equal(['memo.create', 'memo.update']);
        expect(await actionsOf(app, 'public')).to.deep.equal([]);
        expect((await app.anon.get('/api/memo')).status).to.equal(401);
        await app.close();

        // no permissions: at all: every YAML grant goes, the admin's own stays
        app = await start('');
        expect(await actionsOf(app, 'authenticated')).to.deep.equal(['memo.create']);
        const member = await app.createUser({ roles: ['authenticated'] });
        expect((await member.http.get('/api/memo')).status).to.equal(403);
        await app.close();
      } finally {
        await database.drop();
        rmSync(models, { recursive: true, force: true });
      }
    });

    it('a database seeded before the bookkeeping keeps every grant it holds; its first start records the baseline', async () => {
      const models = mkdtempSync(join(tmpdir(), 'ris-perm-models-'));
      const database = await createTestDatabase(dialect);
      try {
        writeFileSync(join(models, 'memo.yaml'), memo('permissions:\n  authenticated: [find]\n'));
        let app = await startTestApp(dialect, { contentTypesDir: models, database });
        // as an earlier version left it: grants the YAML does not declare, and no record of what the YAML gave
        await setRolePermissions(app, 'authenticated', ['memo.findOne', 'memo.create']);
        await app.deps.db('roles').update({ seeded_permissions: null });
        await app.close();
        app = await startTestApp(dialect, { contentTypesDir: models, database });
        expect(await actionsOf(app, 'authenticated')).to.deep.equal(['memo.create', 'memo.find', 'memo.findOne']);
        await app.close();
        // from then on the YAML's changes apply as changes
        writeFileSync(join(models, 'memo.yaml'), memo(''));
        app = await startTestApp(dialect, { contentTypesDir: models, database });
        expect(await actionsOf(app, 'authenticated')).to.deep.equal(['memo.create', 'memo.findOne']);
        await app.close();
      } finally {
        await database.drop();
        rmSync(models, { recursive: true, force: true });
      }
    });
  });
}
