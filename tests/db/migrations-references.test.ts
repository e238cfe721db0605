/**
 * A migration that alters a table other tables reference keeps every reference to it. SQLite alters most
 * columns by rebuilding the table (new table, copy, drop, rename): with foreign keys on, the drop deleted
 * the rows of every ON DELETE CASCADE reference (the link tables of many-to-many relations), emptied
 * the SET NULL ones, and failed on a RESTRICT one. Here a model with a many-to-many relation and to-one relations from other models
 * (SET NULL, RESTRICT, CASCADE) and a media file goes through a type change, field removals, and an added
 * column rolled back; the links and foreign-key values stay, on every database. A migration that would
 * leave a row pointing nowhere fails, names the table, and changes nothing.
 */
import { expect } from 'chai';
import { mkdirSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Knex } from 'knex';
import { loadConfig } from '../../config';
import { connect } from '../../database/connect';
import type { Dialect } from '../../database/dialects/dialect';
import { makeMigration, migrateLatest, migrateRollback, migrationStatus } from '../../database/migrate';
import { loadRegistry } from '../../core/registry';
import type { Registry } from '../../core/registry/types';
import { DIALECTS } from '../helpers/dialects';
import { ROOT } from '../helpers/test-app';
import { createTestDatabase, type TestDatabase } from '../helpers/test-db';

const widget = (fields: string): string => `attributes:
  name: { type: string, required: true, unique: true }
${fields}  parts: { type: relation, relation: manyToMany, target: part }
  photo: { type: media }
`;
const part = (fields: string): string => `attributes:
  title: { type: string, required: true, unique: true }
${fields}`;
const OTHERS = {
  'note.yaml': 'attributes:\n  text: { type: string }\n  widget: { type: relation, relation: manyToOne, target: widget, onDelete: set null }\n  part: { type: relation, relation: manyToOne, target: part, onDelete: set null }\n',
  'item.yaml': 'attributes:\n  text: { type: string }\n  widget: { type: relation, relation: manyToOne, target: widget, onDelete: restrict }\n',
  'pin.yaml': 'attributes:\n  text: { type: string }\n  widget: { type: relation, relation: manyToOne, target: widget, onDelete: cascade }\n',
};

function registryOf(dir: string, files: Record<string, string>): Registry {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  for (const [name, text] of Object.entries({ ...OTHERS, ...files })) writeFileSync(join(dir, name), text);
  return loadRegistry([{ dir, plugin: null }], dir);
}

for (const dialect of DIALECTS) {
  describe(`migrations keep the rows that reference an altered table [${dialect}]`, () => {
    let database: TestDatabase;
    let db: Knex;
    let dbDialect: Dialect;
    let work: string;
    let models: string;
    let migrations: string;

    before(async () => {
      database = await createTestDatabase(dialect);
      ({ db, dialect: dbDialect } = connect(loadConfig({ ...database.env, IAM_JWT_SECRET: 'x'.repeat(32), NODE_ENV: 'test' }, ROOT).database));
      work = mkdtempSync(join(tmpdir(), 'ris-mig-refs-'));
      models = join(work, 'models');
      migrations = join(work, 'migrations');
    });
    after(async () => {
      await db?.destroy();
      await database?.drop();
      rmSync(work, { recursive: true, force: true });
    });

    /** Every reference to a widget or part, by names: links, to-one values, media rows. */
    async function references(): Promise<Record<string, unknown>> {
      const widgetName = new Map(((await db('widget').select('id', 'name')) as { id: number; name: string }[]).map((r) => [r.id, r.name]));
      const partTitle = new Map(((await db('part').select('id', 'title')) as { id: number; title: string }[]).map((r) => [r.id, r.title]));
      const links = (await db('widget_parts_links').select('widget_id', 'part_id')) as { widget_id: number; part_id: number }[];
      const toOne = async (table: string): Promise<string[]> =>
        ((await db(table).select('text', 'widget_id').orderBy('id')) as { text: string; widget_id: number | null }[]).map((r) => `${r.text}→${r.widget_id === null ? 'null' : (widgetName.get(r.widget_id) ?? `missing ${r.widget_id}`)}`);
      const noteParts = ((await db('note').select('text', 'part_id').orderBy('id')) as { text: string; part_id: number | null }[]).map((r) => `${r.text}→${r.part_id === null ? 'null' : (partTitle.get(r.part_id) ?? `missing ${r.part_id}`)}`);
      const media = (await db('media_files').select('model', 'field', 'record_id', 'storage_key').orderBy('id')) as { record_id: number; storage_key: string }[];
      return {
        links: links.map((l) => `${widgetName.get(l.widget_id) ?? `missing ${l.widget_id}`}→${partTitle.get(l.part_id) ?? `missing ${l.part_id}`}`).sort(),
        notes: await toOne('note'),
        noteParts,
        items: await toOne('item'),
        pins: await toOne('pin'),
        media: media.map((m) => `${m.storage_key}→${widgetName.get(m.record_id) ?? `missing ${m.record_id}`}`),
      };
    }

    const EXPECTED = {
      links: ['w1→p1', 'w1→p2', 'w2→p1'],
      notes: ['n1→w1', 'n2→w2'],
      noteParts: ['n1→p2', 'n2→null'],
      items: ['i1→w2'],
      pins: ['p1→w1', 'p2→w2'],
      media: ['k1→w1'],
    };

    async function apply(files: Record<string, string>, name: string): Promise<readonly string[]> {
      const made = makeMigration(registryOf(models, files), migrations, name, true);
      expect(made, name).to.not.equal(null);
      expect(await migrateLatest(db, migrations)).to.have.length(1);
      return made?.changes ?? [];
    }

    it('starts with widgets, parts, links, to-one references and a media file', async () => {
      await apply({ 'widget.yaml': widget('  size: { type: integer }\n'), 'part.yaml': part('  weight: { type: integer }\n') }, 'init');
      const now = new Date().toISOString();
      const base = { created_at: now, updated_at: now };
      const [w1, w2] = [1, 2];
      await db('widget').insert([{ ...base, id: w1, name: 'w1', size: 1 }, { ...base, id: w2, name: 'w2', size: 2 }]);
      await db('part').insert([{ ...base, id: 1, title: 'p1', weight: 5 }, { ...base, id: 2, title: 'p2', weight: 6 }]);
      await db('widget_parts_links').insert([{ widget_id: w1, part_id: 1 }, { widget_id: w1, part_id: 2 }, { widget_id: w2, part_id: 1 }]);
      await db('note').insert([{ ...base, text: 'n1', widget_id: w1, part_id: 2 }, { ...base, text: 'n2', widget_id: w2 }]);
      await db('item').insert([{ ...base, text: 'i1', widget_id: w2 }]);
      await db('pin').insert([{ ...base, text: 'p1', widget_id: w1 }, { ...base, text: 'p2', widget_id: w2 }]);
      await db('media_files').insert({ name: 'a.png', mime: 'image/png', size: 1, sha256: 'x'.repeat(64), storage_key: 'k1', model: 'widget', field: 'photo', record_id: w1, created_at: now });
      expect(await references()).to.deep.equal(EXPECTED);
    });

    it('a changed column type of the many-to-many target (rebuilt on SQLite) keeps every link', async () => {
      // `part` is referenced by the link table (ON DELETE CASCADE) and notes (SET NULL): the rebuild used to empty the one and clear the other
      const changes = await apply({ 'widget.yaml': widget('  size: { type: integer }\n'), 'part.yaml': part('  weight: { type: string }\n') }, 'weight-text');
      expect(changes).to.include('~ column part.weight');
      expect(await references()).to.deep.equal(EXPECTED);
      expect(((await db('part').select('weight').orderBy('id')) as { weight: unknown }[]).map((r) => String(r.weight))).to.deep.equal(['5', '6']);
    });

    it('a changed column type of the referenced model (rebuilt on SQLite) keeps every link and foreign-key value', async () => {
      // `widget` is referenced with CASCADE (links, pins), SET NULL (notes) and RESTRICT (items)
      const changes = await apply({ 'widget.yaml': widget('  size: { type: string }\n'), 'part.yaml': part('  weight: { type: string }\n') }, 'size-text');
      expect(changes).to.include('~ column widget.size');
      expect(await references()).to.deep.equal(EXPECTED);
      expect(((await db('widget').select('size').orderBy('id')) as { size: unknown }[]).map((r) => String(r.size))).to.deep.equal(['1', '2']);
    });

    it('removed fields of both sides of the many-to-many relation keep every link and foreign-key value', async () => {
      const changes = await apply({ 'widget.yaml': widget(''), 'part.yaml': part('') }, 'drop-fields');
      expect(changes).to.include.members(['- column widget.size', '- column part.weight']);
      expect(await references()).to.deep.equal(EXPECTED);
    });

    it('an added column, then rolled back (a column dropped), keeps every link and foreign-key value', async () => {
      await apply({ 'widget.yaml': widget('  color: { type: string }\n'), 'part.yaml': part('') }, 'add-color');
      expect(await references()).to.deep.equal(EXPECTED);
      const undone = await migrateRollback(db, migrations);
      expect(undone).to.have.length(1);
      expect(undone[0]).to.match(/add-color/);
      expect(Object.keys((await db('widget').first()) as object)).to.not.include('color');
      expect(await references()).to.deep.equal(EXPECTED);
      // the change is given up: nothing is left pending for the next run
      unlinkSync(join(migrations, undone[0]));
    });

    it('foreign keys are enforced again after the migrations', async () => {
      const now = new Date().toISOString();
      let refused: unknown;
      try {
        await db('item').insert({ created_at: now, updated_at: now, text: 'orphan', widget_id: 999 });
      } catch (e) {
        refused = e;
      }
      expect(refused, 'an item naming no widget').to.be.instanceOf(Error);
      // … and ON DELETE actions fire again outside migrations
      await db('part').insert({ created_at: now, updated_at: now, id: 3, title: 'p3' });
      await db('widget_parts_links').insert({ widget_id: 2, part_id: 3 });
      await db('part').where({ id: 3 }).del();
      expect(await references()).to.deep.equal(EXPECTED);
    });

    it('a hand-written migration that leaves a row naming a missing row fails, names the table, and changes nothing', async () => {
      const file = join(migrations, '99990101000000000_orphan.js');
      const before = await migrationStatus(db, migrations);
      writeFileSync(file, "exports.up = async (knex) => { await knex('widget').where({ name: 'w2' }).del(); };\nexports.down = async () => {};\n");
      try {
        let err: unknown;
        try {
          await migrateLatest(db, migrations);
        } catch (e) {
          err = e;
        }
        expect(err, 'the migration fails').to.be.instanceOf(Error);
        expect(String((err as Error).message)).to.match(/\bitem\b/);
        expect(await references()).to.deep.equal(EXPECTED);
        expect((await migrationStatus(db, migrations)).applied).to.deep.equal(before.applied);
      } finally {
        unlinkSync(file);
      }
    });

    if (dialect === 'sqlite') {
      it('a migration whose connection has foreign keys on is refused before it changes anything (sqlite)', async () => {
        const file = join(migrations, '99990101000000001_size-again.js');
        writeFileSync(file, "exports.up = async (knex) => { await knex.schema.alterTable('widget', (t) => { t.integer('size').nullable(); }); await knex.schema.alterTable('widget', (t) => { t.dropColumn('size'); }); };\nexports.down = async () => {};\n");
        try {
          let err: unknown;
          try {
            // a pool connection made during the run (or a caller's transaction) has them on: simulated here
            await dbDialect.migrationRun(db, async (hooks) => {
              await db.raw('PRAGMA foreign_keys = ON');
              return db.migrate.latest({ directory: migrations, loadExtensions: ['.js'], ...hooks } as Knex.MigratorConfig);
            });
          } catch (e) {
            err = e;
          }
          expect(String(err)).to.match(/foreign keys are on/);
          expect(await references()).to.deep.equal(EXPECTED);
          expect((await db.raw('PRAGMA foreign_keys')) as unknown[]).to.deep.equal([{ foreign_keys: 1 }]);
        } finally {
          unlinkSync(file);
        }
      });
    }
  });
}
