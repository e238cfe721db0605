/** Registry-driven migrations on live databases: every change keeps the other values of existing records. */
import { expect } from 'chai';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Knex } from 'knex';
import { loadConfig } from '../../config';
import { connect } from '../../database/connect';
import { DestructiveChangeError, makeMigration, migrateLatest, migrateRollback, migrationFiles, migrationStatus, prepareSchema } from '../../database/migrate';
import { loadRegistry } from '../../core/registry';
import type { Registry } from '../../core/registry/types';
import { DIALECTS } from '../helpers/dialects';
import { ROOT } from '../helpers/test-app';
import { createTestDatabase, type TestDatabase } from '../helpers/test-db';

function registryOf(dir: string, files: Record<string, string>): Registry {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return loadRegistry([{ dir, plugin: null }], dir);
}

const V1 = `attributes:
  name: { type: string, required: true, unique: true }
  size: { type: integer }
`;

for (const dialect of DIALECTS) {
  describe(`migrations from the registry [${dialect}]`, () => {
    let database: TestDatabase;
    let db: Knex;
    let work: string;
    let models: string;
    let migrations: string;

    before(async () => {
      database = await createTestDatabase(dialect);
      db = connect(loadConfig({ ...database.env, IAM_JWT_SECRET: 'x'.repeat(32), NODE_ENV: 'test' }, ROOT).database).db;
      work = mkdtempSync(join(tmpdir(), 'ris-mig-'));
      models = join(work, 'models');
      migrations = join(work, 'migrations');
    });
    after(async () => {
      await db?.destroy();
      await database?.drop();
      rmSync(work, { recursive: true, force: true });
    });

    const rows = async (): Promise<Record<string, unknown>[]> => db('widget').select('*').orderBy('id');
    const insert = (row: Record<string, unknown>) =>
      db('widget').insert({ ...row, created_at: new Date().toISOString(), updated_at: new Date().toISOString() });

    it('creates the table from the first model and writes nothing when nothing changed', async () => {
      const reg = registryOf(models, { 'widget.yaml': V1 });
      const made = makeMigration(reg, migrations, 'init', false);
      // every registry has the event outbox (issue 15)
      expect(made?.changes).to.deep.equal(['+ table widget', '+ table event_outbox']);
      expect(await migrateLatest(db, migrations)).to.have.length(1);
      await insert({ name: 'a', size: 1 });
      await insert({ name: 'b', size: 2 });
      expect(makeMigration(reg, migrations, 'again', false)).to.equal(null);
      expect(migrationFiles(migrations)).to.have.length(1);
    });

    it('adds fields to a table holding data: existing values stay, the default fills the new column', async () => {
      const reg = registryOf(models, {
        'widget.yaml': `${V1}  color: { type: string, default: red }\n  weight: { type: decimal }\n  maker: { type: relation, relation: manyToOne, target: maker }\n`,
        'maker.yaml': 'attributes:\n  title: { type: string }\n',
      });
      const made = makeMigration(reg, migrations, 'add-fields', false);
      expect(made?.changes).to.include.members(['+ table maker', '+ column widget.color', '+ column widget.weight', '+ column widget.maker_id']);
      await migrateLatest(db, migrations);
      const r = await rows();
      expect(r.map((x) => [x.name, x.size, x.color, x.weight, x.maker_id])).to.deep.equal([
        ['a', 1, 'red', null, null],
        ['b', 2, 'red', null, null],
      ]);
    });

    it('renames a declared field and keeps its values', async () => {
      const reg = registryOf(models, {
        'widget.yaml': `attributes:\n  name: { type: string, required: true, unique: true }\n  dimension: { type: integer, renamedFrom: size }\n  color: { type: string, default: red }\n  weight: { type: decimal }\n  maker: { type: relation, relation: manyToOne, target: maker }\n`,
        'maker.yaml': 'attributes:\n  title: { type: string }\n',
      });
      const made = makeMigration(reg, migrations, 'rename', false);
      expect(made?.changes).to.deep.equal(['~ column widget.size → dimension']);
      await migrateLatest(db, migrations);
      expect((await rows()).map((x) => x.dimension)).to.deep.equal([1, 2]);
      // the rename hint is one-shot: the next diff sees no change
      expect(makeMigration(reg, migrations, 'noop', false)).to.equal(null);
    });

    it('refuses a destructive change without --allow-destructive, then drops only what was asked', async () => {
      const reg = registryOf(models, {
        'widget.yaml': `attributes:\n  name: { type: string, required: true, unique: true }\n  dimension: { type: integer, renamedFrom: size }\n  color: { type: string, default: red }\n  maker: { type: relation, relation: manyToOne, target: maker }\n`,
        'maker.yaml': 'attributes:\n  title: { type: string }\n',
      });
      expect(() => makeMigration(reg, migrations, 'drop-weight', false)).to.throw(DestructiveChangeError, /drop column widget.weight/);
      const before = migrationFiles(migrations).length;
      expect(migrationFiles(migrations)).to.have.length(before);
      await db('widget').where({ name: 'a' }).update({ weight: 9.5 });
      expect(makeMigration(reg, migrations, 'drop-weight', true)?.changes).to.deep.equal(['- column widget.weight']);
      await migrateLatest(db, migrations);
      const r = await rows();
      expect(r[0]).to.not.have.property('weight');
      expect(r.map((x) => [x.name, x.dimension, x.color])).to.deep.equal([
        ['a', 1, 'red'],
        ['b', 2, 'red'],
      ]);
    });

    it('a start with AUTO_MIGRATE off refuses a registry change no migration covers', async () => {
      const reg = registryOf(models, {
        'widget.yaml': `attributes:\n  name: { type: string, required: true, unique: true }\n  dimension: { type: integer }\n  color: { type: string, default: red }\n  extra: { type: text }\n  maker: { type: relation, relation: manyToOne, target: maker }\n`,
        'maker.yaml': 'attributes:\n  title: { type: string }\n',
      });
      let err: unknown;
      try {
        await prepareSchema(db, reg, { dir: migrations, autoMigrate: false, allowDestructive: false });
      } catch (e) {
        err = e;
      }
      expect(String(err)).to.match(/migrate:make/);
    });

    it('rolls back the last migration: the dropped column returns, the other values stay', async () => {
      const undone = await migrateRollback(db, migrations);
      expect(undone).to.have.length(1);
      expect(undone[0]).to.match(/drop-weight/);
      const r = await rows();
      expect(r[0]).to.have.property('weight', null);
      expect(r.map((x) => [x.name, x.dimension])).to.deep.equal([
        ['a', 1],
        ['b', 2],
      ]);
      const status = await migrationStatus(db, migrations);
      expect(status.pending).to.have.length(1);
      expect(status.applied).to.have.length(3);
    });

    it('keeps unique-with-soft-delete: archived rows may share a value, active ones may not', async () => {
      const reg = registryOf(models, {
        'gadget.yaml': 'softDelete: true\nattributes:\n  code: { type: string, required: true, unique: true }\n',
      });
      const dir = join(work, 'migrations-gadget');
      makeMigration(reg, dir, 'gadget', false);
      const own = await createTestDatabase(dialect);
      const gdb = connect(loadConfig({ ...own.env, IAM_JWT_SECRET: 'x'.repeat(32), NODE_ENV: 'test' }, ROOT).database).db;
      try {
        await migrateLatest(gdb, dir);
        const now = new Date().toISOString();
        const base = { created_at: now, updated_at: now };
        await gdb('gadget').insert({ ...base, code: 'x', deleted_tracker: 'one' });
        await gdb('gadget').insert({ ...base, code: 'x', deleted_tracker: 'two' });
        await gdb('gadget').insert({ ...base, code: 'x' });
        let conflict: unknown;
        try {
          await gdb('gadget').insert({ ...base, code: 'x' });
        } catch (e) {
          conflict = e;
        }
        expect(conflict, 'second active row with the same code').to.be.instanceOf(Error);
      } finally {
        await gdb.destroy();
        await own.drop();
      }
    });
  });
}
