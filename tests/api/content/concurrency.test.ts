/**
 * Issue 14, draft & publish with locales under concurrency: publishing one locale writes the entry's shared
 * values to its other published copies, and a shared edit writes every locale's draft, so parallel calls on
 * one entry touch the same rows in different orders. They run one after the other (the entry's lock, taken
 * first by every such write), on every database: all succeed as they would in some order, never a
 * deadlock (500 on PostgreSQL, 503 on MariaDB before), and the published locales still agree on shared values.
 */
import { join } from 'node:path';
import { expect } from 'chai';
import { DIALECTS } from '../../helpers/dialects';
import type { Reply } from '../../helpers/http';
import { ROOT, startTestApp, type TestApp } from '../../helpers/test-app';

const MODELS = join(ROOT, 'tests', 'fixtures', 'content-models');
const statuses = (replies: readonly Reply[]): number[] => replies.map((r) => r.status).sort((a, b) => a - b);
const texts = (replies: readonly Reply[]): string => replies.map((r) => r.text).join('\n');

for (const dialect of DIALECTS) {
  describe(`draft & publish with locales: parallel writes to one entry [${dialect}]`, () => {
    let app: TestApp;
    before(async () => {
      app = await startTestApp(dialect, { contentTypesDir: MODELS, env: { LOCALES: 'en,fr,de', DEFAULT_LOCALE: 'en' } });
    });
    after(async () => app?.close());

    let n = 0;
    /** A published entry in en, fr and de. */
    async function entry(): Promise<number> {
      n += 1;
      const en = await app.http.post('/api/page?status=published', { title: `Race ${n}`, price: 1 });
      expect(en.status, en.text).to.equal(200);
      for (const l of ['fr', 'de']) expect((await app.http.post(`/api/page/${en.body.data.id}/localizations?locale=${l}`, { title: `Race ${n} ${l}` })).status).to.equal(200);
      expect((await app.http.post(`/api/page/${en.body.data.id}/publish?locale=all`)).status).to.equal(200);
      return en.body.data.id as number;
    }
    const prices = async (id: number, status: 'draft' | 'published'): Promise<number[]> => {
      const res = await app.http.get(`/api/page?locale=all&status=${status}&filters[defaultEntityLocaleId][$eq]=${id}&fields[0]=price&sort[0]=id`);
      expect(res.status, res.text).to.equal(200);
      return res.body.records.map((r: { price: number }) => r.price);
    };

    it('parallel shared PATCHes through each locale, then parallel publishes of each locale and of all: every call succeeds', async () => {
      const id = await entry();
      for (let round = 0; round < 3; round++) {
        const patches = await Promise.all(['en', 'fr', 'de', 'fr'].map((l, i) => app.http.patch(`/api/page/${id}?locale=${l}`, { price: 10 * round + i })));
        expect(statuses(patches), texts(patches)).to.deep.equal([200, 200, 200, 200]);
        const drafts = await prices(id, 'draft');
        expect(new Set(drafts).size, drafts.join(', ')).to.equal(1);
        const publishes = await Promise.all(['en', 'fr', 'de', 'all'].map((l) => app.http.post(`/api/page/${id}/publish?locale=${l}`)));
        expect(statuses(publishes), texts(publishes)).to.deep.equal([200, 200, 200, 200]);
        expect(await prices(id, 'published')).to.deep.equal(drafts);
      }
    });

    it('parallel publishes and unpublishes of every locale: each succeeds, and the locales end all published or all not', async () => {
      const id = await entry();
      const replies = await Promise.all(Array.from({ length: 8 }, (_, i) => app.http.post(`/api/page/${id}/${i % 2 ? 'publish' : 'unpublish'}?locale=all`)));
      expect(statuses(replies), texts(replies)).to.deep.equal([200, 200, 200, 200, 200, 200, 200, 200]);
      expect([0, 3]).to.include((await prices(id, 'published')).length);
    });

    it('a shared PATCH, a localized PATCH and publishes of two locales at once: each succeeds; the published locales agree', async () => {
      const id = await entry();
      const replies = await Promise.all([
        app.http.patch(`/api/page/${id}?locale=de`, { price: 77 }),
        app.http.post(`/api/page/${id}/publish?locale=fr`),
        app.http.patch(`/api/page/${id}?locale=fr`, { body: 'texte' }),
        app.http.post(`/api/page/${id}/publish?locale=de`),
      ]);
      expect(statuses(replies), texts(replies)).to.deep.equal([200, 200, 200, 200]);
      const published = await prices(id, 'published');
      expect(new Set(published).size, published.join(', ')).to.equal(1);
    });
  });
}
