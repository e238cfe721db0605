/**
 * Issue 15, seeding at boot: the roles (admin, authenticated, public) and the permissions a start creates are
 * records (/api/role, /api/permission), so each gets its `record.create`, by the system (actor null), with its
 * record as FindOne answers it, as role:create's role does. A start that creates nothing announces nothing.
 * Two nodes seeding a fresh database at once (two pools) take turns (the lock `identity-seed`): neither fails,
 * each role, permission, grant and event is made once.
 */
import { expect } from 'chai';
import { join } from 'node:path';
import pino from 'pino';
import { loadConfig } from '../../../config';
import { enabledPlugins } from '../../../config/plugins';
import { boot, type Booted } from '../../../core/boot';
import type { StoredEvent } from '../../../core/events/types';
import { seed } from '../../../core/plugins/users-permissions/seed';
import { IdentityStore } from '../../../core/plugins/users-permissions/store';
import { prepareSchema } from '../../../database/migrate';
import { DIALECTS } from '../../helpers/dialects';
import { ROOT, startTestApp, TEST_JWT_SECRET, type TestApp } from '../../helpers/test-app';
import { createTestDatabase, type TestDatabase } from '../../helpers/test-db';

const SEEDED = ['role', 'permission'];

for (const dialect of DIALECTS) {
  describe(`events: seeding at boot [${dialect}]`, function () {
    this.timeout(60_000);
    let database: TestDatabase;
    let app: TestApp;

    const seededEvents = async (after = 0): Promise<StoredEvent[]> => (await app.deps.events.readAfter(after, 10_000)).filter((e) => e.model !== null && SEEDED.includes(e.model));
    const all = async (model: string): Promise<Record<string, unknown>[]> => {
      const out: Record<string, unknown>[] = [];
      for (let offset = 0; ; offset += 100) {
        const res = await app.http.get(`/api/${model}?sort[0]=id&limit=100&offset=${offset}`);
        expect(res.status, res.text).to.equal(200);
        out.push(...(res.body.records as Record<string, unknown>[]));
        if (out.length >= res.body.meta.totalRecords) return out;
      }
    };

    before(async () => {
      database = await createTestDatabase(dialect);
      app = await startTestApp(dialect, { database });
    });
    after(async () => {
      await app?.close();
      await database?.drop();
    });

    it('the first start announces every role and permission it creates: record.create, by the system, the FindOne answer', async () => {
      const events = await seededEvents();
      const roles = await all('role');
      const permissions = await all('permission');
      expect(roles.map((r) => r.name)).to.have.members(['admin', 'authenticated', 'public']);
      expect(permissions.length).to.be.above(10);
      // one event per seeded row, roles first, in the seeding's order
      expect(events.map((e) => [e.type, e.model, e.actor])).to.deep.equal([...roles, ...permissions].map((r) => ['record.create', roles.includes(r) ? 'role' : 'permission', null]));
      expect(events.map((e) => Number(e.recordId)).sort((a, b) => a - b)).to.deep.equal([...roles.map((r) => r.id as number), ...permissions.map((r) => r.id as number)].sort((a, b) => a - b));
      for (const e of events) {
        const read = await app.http.get(`/api/${e.model}/${e.recordId}`);
        expect(read.status, read.text).to.equal(200);
        expect(e.record, `${e.model} ${e.recordId}`).to.deep.equal(read.body);
      }
      expect(events.find((e) => e.model === 'role')!.record).to.not.have.property('seededPermissions');
    });

    it('a restart on the same database creates nothing and announces nothing', async () => {
      const mark = await app.deps.events.latestId();
      await app.close();
      app = await startTestApp(dialect, { database });
      expect(await seededEvents(mark)).to.deep.equal([]);
    });

    it('a seeded role missing from the database comes back at the next start, announced', async () => {
      // (The API refuses to delete a built-in role now, 409; before, an admin could.)
      const pub = (await all('role')).find((r) => r.name === 'public')!;
      expect((await app.http.del(`/api/role/${pub.id}`)).status).to.equal(409);
      await app.deps.db('roles').where('id', Number(pub.id)).del();
      const mark = await app.deps.events.latestId();
      await app.close();
      app = await startTestApp(dialect, { database });
      const back = (await all('role')).find((r) => r.name === 'public')!;
      const events = await seededEvents(mark);
      expect(events.map((e) => [e.type, e.model, e.recordId, e.actor])).to.deep.equal([['record.create', 'role', back.id, null]]);
      expect(events[0].record).to.deep.equal((await app.http.get(`/api/role/${back.id}`)).body);
    });

    it('two nodes seeding a fresh database at once: neither fails; each role, permission, grant and event once', async () => {
      const fresh = await createTestDatabase(dialect);
      const env = { NODE_ENV: 'test', LOG_LEVEL: 'silent', IAM_JWT_SECRET: TEST_JWT_SECRET, DATA_DIR: join(fresh.dir, 'data'), MIGRATIONS_DIR: join(fresh.dir, 'migrations'), CONTENT_TYPES_DIR: join(ROOT, 'content-types'), ...fresh.env };
      const config = loadConfig(env, ROOT);
      // two nodes: two processes' worth of deps, two pools on one database
      const nodes: Booted[] = [];
      try {
        for (let i = 0; i < 2; i++) nodes.push(boot(config, enabledPlugins(), pino({ level: 'silent' })));
        await prepareSchema(nodes[0].db, nodes[0].registry, { dir: config.migrationsDir, autoMigrate: true, allowDestructive: false });
        const stores = nodes.map((n) => new IdentityStore(n));
        const settled = await Promise.allSettled([0, 1, 0, 1].map((i) => seed(stores[i])));
        expect(settled.filter((r) => r.status === 'rejected').map((r) => String((r as PromiseRejectedResult).reason)), 'none fails').to.deep.equal([]);
        const db = nodes[0].db;
        const store = stores[0];
        const roles = (await db(store.roles).orderBy('id').select('id', 'name')) as { id: number; name: string }[];
        expect(roles.map((r) => r.name)).to.have.members(['admin', 'authenticated', 'public']);
        expect(roles).to.have.length(3);
        const permissions = (await db(store.permissions).orderBy('id').select('id', 'action')) as { id: number; action: string }[];
        expect(new Set(permissions.map((p) => p.action)).size, 'each permission once').to.equal(permissions.length);
        const { table, ownerColumn, targetColumn } = store.rolePermissions;
        const grants = (await db(table).select(ownerColumn, targetColumn)) as Record<string, unknown>[];
        const pairs = grants.map((g) => `${g[ownerColumn]}:${g[targetColumn]}`);
        expect(new Set(pairs).size, 'each grant once').to.equal(pairs.length);
        const admin = roles.find((r) => r.name === 'admin')!;
        expect(grants.filter((g) => Number(g[ownerColumn]) === Number(admin.id)), 'admin holds every permission').to.have.length(permissions.length);
        const events = (await nodes[0].events.readAfter(0, 10_000)).filter((e) => e.model !== null && SEEDED.includes(e.model));
        expect(events.map((e) => [e.type, e.model, Number(e.recordId)])).to.deep.equal([
          ...roles.map((r) => ['record.create', 'role', Number(r.id)]),
          ...permissions.map((p) => ['record.create', 'permission', Number(p.id)]),
        ]);
      } finally {
        for (const n of nodes) await n.close();
        await fresh.drop();
      }
    });
  });
}
