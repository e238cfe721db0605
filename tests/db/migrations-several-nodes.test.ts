/**
 * Nodes starting together on one database bring the schema up to date one at a time (prepareSchema under
 * Dialect.lockedSession): the others wait, then find nothing to apply. Without the lock, on an empty
 * database every node but one failed while creating knex's own migration tables, and on MariaDB a node
 * that found the migration lock taken failed instead of waiting.
 */
import { expect } from 'chai';
import { join } from 'node:path';
import pino from 'pino';
import { loadConfig } from '../../config';
import { enabledPlugins } from '../../config/plugins';
import { boot, type Booted } from '../../core/boot';
import { prepareSchema, SCHEMA_LOCK } from '../../database/migrate';
import { DIALECTS } from '../helpers/dialects';
import { ROOT, TEST_JWT_SECRET } from '../helpers/test-app';
import { createTestDatabase, type TestDatabase } from '../helpers/test-db';

const NODES = 3;

for (const dialect of DIALECTS) {
  describe(`migrations: nodes starting together take turns [${dialect}]`, function () {
    this.timeout(120_000);
    let fresh: TestDatabase;
    const nodes: Booted[] = [];
    before(async () => {
      fresh = await createTestDatabase(dialect);
      // the shipped models and migrations, as in production (no automatic migration)
      const env = { NODE_ENV: 'production', LOG_LEVEL: 'silent', IAM_JWT_SECRET: TEST_JWT_SECRET, DATA_DIR: join(fresh.dir, 'data'), ...fresh.env };
      const config = loadConfig(env, ROOT);
      for (let i = 0; i < NODES; i++) nodes.push(boot(config, enabledPlugins(), pino({ level: 'silent' })));
    });
    after(async () => {
      for (const n of nodes.splice(0)) await n.close();
      await fresh?.drop();
    });

    it(`${NODES} nodes on an empty database: every start succeeds, each migration is applied once`, async () => {
      const dir = nodes[0].config.migrationsDir;
      const settled = await Promise.allSettled(nodes.map((n) => prepareSchema(n.db, n.registry, { dir, autoMigrate: false, allowDestructive: false, dialect: n.dialect })));
      expect(settled.filter((r) => r.status === 'rejected').map((r) => String((r as PromiseRejectedResult).reason)), 'no start fails').to.deep.equal([]);
      const applied = settled.map((r) => (r as PromiseFulfilledResult<{ applied: string[] }>).value.applied.length);
      expect(applied.filter((n) => n > 0), 'one node applied them, the others found nothing to do').to.have.length(1);
      const rows = (await nodes[0].db('knex_migrations').select('name')) as { name: string }[];
      expect(new Set(rows.map((r) => r.name)).size, 'each migration recorded once').to.equal(rows.length);
      expect(rows.length).to.equal(Math.max(...applied));
    });

    it('the lock is the database\'s: a second holder waits for the first to end', async () => {
      const order: string[] = [];
      let release: () => void = () => undefined;
      const held = new Promise<void>((r) => (release = r));
      const first = nodes[0].dialect.lockedSession(nodes[0].db, SCHEMA_LOCK, async () => {
        order.push('first in');
        await held;
        order.push('first out');
      });
      await new Promise((r) => setTimeout(r, 300));
      const second = nodes[1].dialect.lockedSession(nodes[1].db, SCHEMA_LOCK, async () => {
        order.push('second in');
      });
      await new Promise((r) => setTimeout(r, 500));
      expect(order, 'the second waits while the first holds it').to.deep.equal(['first in']);
      release();
      await Promise.all([first, second]);
      expect(order).to.deep.equal(['first in', 'first out', 'second in']);
    });
  });
}
