/**
 * Issue 14: turning one flag on for a model that already has the other, with records: the generated
 * migration keeps every row visible. i18n → + draftAndPublish: every locale row is published as it was.
 * draftAndPublish → + i18n: working rows and published copies both become DEFAULT_LOCALE entries.
 */
import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DIALECTS } from '../../helpers/dialects';
import { startTestApp, type TestApp } from '../../helpers/test-app';
import { createTestDatabase, type TestDatabase } from '../../helpers/test-db';

const note = (flags: { drafts: boolean; i18n: boolean }): string => `${flags.drafts ? 'draftAndPublish: true\n' : ''}${flags.i18n ? 'i18n: true\n' : ''}permissions:
  public: [find, findOne]
attributes:
  text: { type: string, required: true, unique: true }
`;

const LOCALES = { LOCALES: 'en,fr', DEFAULT_LOCALE: 'en' };
type Row = Record<string, unknown>;

for (const dialect of DIALECTS) {
  describe(`draft & publish with locales: turning one flag on for a model with the other [${dialect}]`, () => {
    let models: string;
    let database: TestDatabase;
    beforeEach(async () => {
      models = mkdtempSync(join(tmpdir(), 'ris-content-onoff-'));
      database = await createTestDatabase(dialect);
    });
    afterEach(async () => {
      await database.drop();
      rmSync(models, { recursive: true, force: true });
    });

    async function run(flags: { drafts: boolean; i18n: boolean }, fn: (app: TestApp) => Promise<void>): Promise<void> {
      writeFileSync(join(models, 'note.yaml'), note(flags));
      const app = await startTestApp(dialect, { contentTypesDir: models, database, env: LOCALES });
      try {
        await fn(app);
      } finally {
        await app.close();
      }
    }

    it('i18n model + draftAndPublish: every locale row is published as it was; drafts then work per locale', async function () {
      this.timeout(60_000);
      let en = 0;
      let fr = 0;
      await run({ drafts: false, i18n: true }, async (app) => {
        en = (await app.http.post('/api/note', { text: 'hello' })).body.data.id;
        fr = (await app.http.post(`/api/note/${en}/localizations?locale=fr`, { text: 'bonjour' })).body.data.id;
        expect(fr).to.be.a('number');
      });
      await run({ drafts: true, i18n: true }, async (app) => {
        const seen = await app.anon.get('/api/note?locale=all&sort[0]=id');
        expect(seen.status, seen.text).to.equal(200);
        expect(seen.body.records.map((r: Row) => [r.id, r.text, r.localeName, r.defaultEntityLocaleId, r._status, r._hasUnpublishedChanges])).to.deep.equal([
          [en, 'hello', 'en', en, 'published', false],
          [fr, 'bonjour', 'fr', en, 'published', false],
        ]);
        expect((await app.anon.get(`/api/note/${en}?locale=fr`)).body.localizations).to.deep.equal([{ id: en, locale: 'en' }]);
        expect((await app.http.patch(`/api/note/${fr}`, { text: 'salut' })).status).to.equal(200);
        expect((await app.anon.get(`/api/note/${fr}`)).body).to.include({ text: 'bonjour', _hasUnpublishedChanges: true });
        expect((await app.http.post(`/api/note/${en}/publish?locale=fr`)).status).to.equal(200);
        expect((await app.anon.get(`/api/note/${fr}`)).body).to.include({ text: 'salut', _hasUnpublishedChanges: false });
      });
    });

    it('draftAndPublish model + i18n: drafts and published copies become DEFAULT_LOCALE entries; nothing changes for readers', async function () {
      this.timeout(60_000);
      const ids: number[] = [];
      await run({ drafts: true, i18n: false }, async (app) => {
        ids.push((await app.http.post('/api/note?status=published', { text: 'one' })).body.data.id);
        ids.push((await app.http.post('/api/note?status=published', { text: 'two' })).body.data.id);
        ids.push((await app.http.post('/api/note', { text: 'draft only' })).body.data.id);
        expect((await app.http.patch(`/api/note/${ids[1]}`, { text: 'two (edited)' })).status).to.equal(200);
      });
      await run({ drafts: true, i18n: true }, async (app) => {
        const seen = await app.anon.get('/api/note?sort[0]=id');
        expect(seen.status, seen.text).to.equal(200);
        expect(seen.body.records.map((r: Row) => [r.id, r.text, r.localeName, r.defaultEntityLocaleId, r._hasUnpublishedChanges])).to.deep.equal([
          [ids[0], 'one', 'en', ids[0], false],
          [ids[1], 'two', 'en', ids[1], true],
        ]);
        const drafts = await app.http.get('/api/note?status=draft&sort[0]=id');
        expect(drafts.body.records.map((r: Row) => [r.text, r.localeName, r.defaultEntityLocaleId])).to.deep.equal([
          ['one', 'en', ids[0]],
          ['two (edited)', 'en', ids[1]],
          ['draft only', 'en', ids[2]],
        ]);
        // the same value in another locale: no conflict, as a draft or published
        const fr = await app.http.post(`/api/note/${ids[0]}/localizations?locale=fr`, { text: 'one' });
        expect(fr.status, fr.text).to.equal(200);
        expect((await app.http.post(`/api/note/${ids[0]}/publish?locale=fr`)).status).to.equal(200);
        expect((await app.anon.get('/api/note?locale=fr')).body.records.map((r: Row) => r.text)).to.deep.equal(['one']);
      });
    });
  });
}
