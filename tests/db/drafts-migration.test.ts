/**
 * Issue 14: what the generated migration does with content when `draftAndPublish` changes. Turning it on
 * for a model holding rows publishes every row (with its many-to-many links and media rows): no content
 * disappears from readers. Turning it off keeps the published version of each entry: the working row,
 * links and media rows become the published ones (entries never published stay as they were), and the
 * change is not refused as destructive.
 */
import { expect } from 'chai';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Knex } from 'knex';
import { loadConfig } from '../../config';
import { connect } from '../../database/connect';
import { makeMigration, migrateLatest } from '../../database/migrate';
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

const post = (drafts: boolean): string => `${drafts ? 'draftAndPublish: true\n' : ''}attributes:
  title: { type: string, required: true, unique: true }
  views: { type: integer }
  labels: { type: relation, relation: manyToMany, target: label }
  cover: { type: media }
`;
const LABEL = 'attributes:\n  name: { type: string }\n';

for (const dialect of DIALECTS) {
  describe(`draft & publish: migrations turning drafts on and off [${dialect}]`, () => {
    let database: TestDatabase;
    let db: Knex;
    let work: string;
    let models: string;
    let migrations: string;
    const now = (): string => new Date().toISOString();
    const titles = async (table: string): Promise<unknown[]> => (await db(table).select('id', 'title', 'views').orderBy('id')).map((r) => [Number(r.id), r.title, r.views]);
    const links = async (table: string): Promise<unknown[]> => (await db(table).select('post_id', 'label_id').orderBy(['post_id', 'label_id'])).map((r) => [Number(r.post_id), Number(r.label_id)]);

    before(async () => {
      database = await createTestDatabase(dialect);
      db = connect(loadConfig({ ...database.env, IAM_JWT_SECRET: 'x'.repeat(32), NODE_ENV: 'test' }, ROOT).database).db;
      work = mkdtempSync(join(tmpdir(), 'ris-drafts-mig-'));
      models = join(work, 'models');
      migrations = join(work, 'migrations');
    });
    after(async () => {
      await db?.destroy();
      await database?.drop();
      rmSync(work, { recursive: true, force: true });
    });

    it('a model without drafts gets no shadow tables', async () => {
      const made = makeMigration(registryOf(models, { 'post.yaml': post(false), 'label.yaml': LABEL }), migrations, 'init', false);
      expect(made?.changes.filter((c) => c.includes('__published'))).to.deep.equal([]);
      await migrateLatest(db, migrations);
      await db('label').insert([1, 2].map((id) => ({ id, name: `l${id}`, created_at: now(), updated_at: now() })));
      await db('post').insert([
        { id: 1, title: 'one', views: 1, created_at: now(), updated_at: now() },
        { id: 2, title: 'two', views: 2, created_at: now(), updated_at: now() },
      ]);
      await db('post_labels_links').insert([{ post_id: 1, label_id: 1 }, { post_id: 2, label_id: 2 }]);
      await db('media_files').insert({ name: 'c.txt', mime: 'text/plain', size: 3, sha256: 'a'.repeat(64), storage_key: 'k/one.txt', model: 'post', field: 'cover', record_id: 1, created_at: now() });
    });

    it('turning draftAndPublish on publishes every existing row, its links and its media rows', async () => {
      const made = makeMigration(registryOf(models, { 'post.yaml': post(true), 'label.yaml': LABEL }), migrations, 'drafts-on', false);
      expect(made?.changes).to.include.members(['+ table post__published', '+ table post_labels_links__published', '+ table media_files__published']);
      await migrateLatest(db, migrations);
      expect(await titles('post__published')).to.deep.equal(await titles('post'));
      expect(await titles('post__published')).to.deep.equal([[1, 'one', 1], [2, 'two', 2]]);
      expect(await links('post_labels_links__published')).to.deep.equal([[1, 1], [2, 2]]);
      expect((await db('media_files__published').select('storage_key', 'record_id')).map((r) => [r.storage_key, Number(r.record_id)])).to.deep.equal([['k/one.txt', 1]]);
      for (const table of ['post', 'post__published']) {
        const stamps = await db(table).select('published_at');
        expect(stamps.every((r) => r.published_at !== null), table).to.equal(true);
      }
      // unique values are enforced in the copy on its own
      const dup = db('post__published').insert({ id: 3, title: 'one', created_at: now(), updated_at: now() });
      await dup.then(
        () => expect.fail('a second published "one" was accepted'),
        (e: Error) => expect(e.message.toLowerCase()).to.match(/unique|duplicate/),
      );
    });

    it('turning it off keeps the published version of each entry (not refused as destructive)', async () => {
      // entry 1: the draft changed title, views, links and media since it was published
      await db('post').where('id', 1).update({ title: 'one (draft)', views: 100, updated_at: now() });
      await db('post_labels_links').where('post_id', 1).del();
      await db('post_labels_links').insert({ post_id: 1, label_id: 2 });
      await db('media_files').where({ model: 'post', record_id: 1 }).del();
      await db('media_files').insert({ name: 'd.txt', mime: 'text/plain', size: 3, sha256: 'b'.repeat(64), storage_key: 'k/draft.txt', model: 'post', field: 'cover', record_id: 1, created_at: now() });
      // entry 3: never published
      await db('post').insert({ id: 3, title: 'three (draft only)', views: 3, created_at: now(), updated_at: now() });
      const made = makeMigration(registryOf(models, { 'post.yaml': post(false), 'label.yaml': LABEL }), migrations, 'drafts-off', false);
      expect(made?.changes).to.include.members(['- table post__published', '- table post_labels_links__published', '- table media_files__published']);
      await migrateLatest(db, migrations);
      expect(await titles('post')).to.deep.equal([[1, 'one', 1], [2, 'two', 2], [3, 'three (draft only)', 3]]);
      expect(await links('post_labels_links')).to.deep.equal([[1, 1], [2, 2]]);
      expect((await db('media_files').select('storage_key').where({ model: 'post', record_id: 1 })).map((r) => r.storage_key)).to.deep.equal(['k/one.txt']);
      expect(await db.schema.hasTable('post__published')).to.equal(false);
      expect(await db.schema.hasTable('media_files__published')).to.equal(false);
    });
  });
}
