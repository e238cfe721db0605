/** Issue 14: turning i18n on for a model with rows keeps them readable: each becomes an entry in DEFAULT_LOCALE. */
import { join } from 'node:path';
import { expect } from 'chai';
import { DIALECTS } from '../../helpers/dialects';
import { ROOT, startTestApp } from '../../helpers/test-app';
import { createTestDatabase } from '../../helpers/test-db';

const SWITCH = join(ROOT, 'tests', 'fixtures', 'locale-switch');

for (const dialect of DIALECTS) {
  describe(`locales: turning i18n on for a model with rows [${dialect}]`, () => {
    it('the generated migration makes each row an entry of its own in DEFAULT_LOCALE; Find still lists them', async function () {
      this.timeout(60_000);
      const database = await createTestDatabase(dialect);
      try {
        const before = await startTestApp(dialect, { database, contentTypesDir: join(SWITCH, 'before') });
        const ids: number[] = [];
        try {
          for (const title of ['One', 'Two']) ids.push((await before.http.post('/api/note', { title })).body.data.id);
        } finally {
          await before.close();
        }
        const after = await startTestApp(dialect, { database, contentTypesDir: join(SWITCH, 'after'), env: { LOCALES: 'fr,en', DEFAULT_LOCALE: 'fr' } });
        try {
          const list = await after.http.get('/api/note?sort[0]=id');
          expect(list.status, list.text).to.equal(200);
          expect(list.body.records.map((r: Record<string, unknown>) => [r.id, r.title, r.localeName, r.defaultEntityLocaleId])).to.deep.equal([
            [ids[0], 'One', 'fr', ids[0]],
            [ids[1], 'Two', 'fr', ids[1]],
          ]);
          const en = await after.http.post(`/api/note/${ids[0]}/localizations?locale=en`, { title: 'One' });
          expect(en.status, en.text).to.equal(200);
          expect(en.body.data).to.include({ localeName: 'en', defaultEntityLocaleId: ids[0] });
        } finally {
          await after.close();
        }
      } finally {
        await database.drop();
      }
    });
  });
}
