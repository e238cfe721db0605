/**
 * Issue 14, locales under concurrency: the rows of one entry are written by one write at a time (every
 * path that touches several locale rows takes the entry's lock first), so parallel calls on one entry give
 * the answers the same calls made one after the other would give, on every database: one new locale
 * row per locale (409 for the rest), shared values agreeing in every locale row, never a deadlock (500/503).
 */
import { expect } from 'chai';
import { DIALECTS } from '../../helpers/dialects';
import type { Reply } from '../../helpers/http';
import type { TestApp } from '../../helpers/test-app';
import { startLocaleApp } from './app';

const statuses = (replies: readonly Reply[]): number[] => replies.map((r) => r.status).sort((a, b) => a - b);

for (const dialect of DIALECTS) {
  describe(`locales: parallel writes to one entry [${dialect}]`, () => {
    let app: TestApp;
    before(async () => {
      app = await startLocaleApp(dialect);
    });
    after(async () => app?.close());

    let n = 0;
    async function entry(extra: Record<string, unknown> = {}): Promise<number> {
      n += 1;
      const res = await app.http.post('/api/article', { title: `Busy ${n}`, ...extra });
      expect(res.status, res.text).to.equal(200);
      return res.body.data.id as number;
    }
    /** Every row of entry `en` (any locale, archived too): locale → price. */
    async function rows(en: number): Promise<{ id: number; localeName: string; price: number | null; deletedTracker: string }[]> {
      const res = await app.http.get(`/api/article?locale=all&showSoftDeleted=inclusive&filters[defaultEntityLocaleId][$eq]=${en}&sort[0]=id&fields[0]=localeName&fields[1]=price&fields[2]=deletedTracker`);
      expect(res.status, res.text).to.equal(200);
      return res.body.records;
    }

    it('eight parallel localizations of one entry in one locale: one 200, seven 409, one row', async () => {
      const en = await entry({ price: 1 });
      const replies = await Promise.all(Array.from({ length: 8 }, (_, i) => app.http.post(`/api/article/${en}/localizations?locale=fr`, { title: `Occupé ${n} ${i}` })));
      expect(statuses(replies), replies.map((r) => r.text).join('\n')).to.deep.equal([200, 409, 409, 409, 409, 409, 409, 409]);
      const won = replies.find((r) => r.status === 200) as Reply;
      for (const r of replies.filter((x) => x.status === 409)) {
        expect(r.body.error).to.include({ status: 409, name: 'ConflictError' });
        expect(r.body.error.details).to.deep.equal({ locale: 'fr', id: won.body.data.id });
      }
      expect((await rows(en)).map((r) => r.localeName)).to.deep.equal(['en', 'fr']);
    });

    it('parallel localizations of one entry in different locales all succeed, each listing the locales before it', async () => {
      const en = await entry();
      const replies = await Promise.all(['fr', 'de'].map((l) => app.http.post(`/api/article/${en}/localizations?locale=${l}`, { title: `Parallèle ${n} ${l}` })));
      expect(statuses(replies), replies.map((r) => r.text).join('\n')).to.deep.equal([200, 200]);
      expect((await rows(en)).map((r) => r.localeName).sort()).to.deep.equal(['de', 'en', 'fr']);
    });

    it('parallel shared-value PATCHes through different locales all succeed; every locale row ends with one of the prices', async () => {
      const en = await entry({ price: 1 });
      for (const l of ['fr', 'de']) expect((await app.http.post(`/api/article/${en}/localizations?locale=${l}`, { title: `Geteilt ${n} ${l}` })).status).to.equal(200);
      for (let round = 0; round < 3; round++) {
        const sent = [10, 20, 30, 40].map((p) => p + round);
        const replies = await Promise.all(['en', 'fr', 'de', 'fr'].map((l, i) => app.http.patch(`/api/article/${en}?locale=${l}`, { price: sent[i] })));
        expect(statuses(replies), replies.map((r) => r.text).join('\n')).to.deep.equal([200, 200, 200, 200]);
        const prices = (await rows(en)).map((r) => Number(r.price));
        expect(new Set(prices).size, `round ${round}: ${prices.join(', ')}`).to.equal(1);
        expect(sent).to.include(prices[0]);
      }
    });

    it('parallel PUTs, PATCHes, a localization and deletes of one entry: every answer is one the calls in some order give', async () => {
      const en = await entry({ price: 5 });
      const fr = (await app.http.post(`/api/article/${en}/localizations?locale=fr`, { title: `Mêlée ${n}` })).body.data.id as number;
      const replies = await Promise.all([
        app.http.put(`/api/article/${fr}`, { title: `Mêlée ${n} bis`, price: 6 }),
        app.http.patch(`/api/article/${en}`, { price: 7 }),
        app.http.post(`/api/article/${en}/localizations?locale=de`, { title: `Gemenge ${n}` }),
        app.http.patch(`/api/article/${en}?locale=fr`, { price: 8 }),
      ]);
      expect(statuses(replies), replies.map((r) => r.text).join('\n')).to.deep.equal([200, 200, 200, 200]);
      const prices = (await rows(en)).map((r) => Number(r.price));
      expect(new Set(prices).size, prices.join(', ')).to.equal(1);
      // deletes of one locale and of the whole entry at once: each goes once; the others find nothing (404)
      const deletes = await Promise.all([app.http.del(`/api/article/${en}?locale=fr`), app.http.del(`/api/article/${en}?locale=all`), app.http.del(`/api/article/${fr}?locale=de`)]);
      for (const r of deletes) expect([200, 404], r.text).to.include(r.status);
      expect((await rows(en)).map((r) => r.deletedTracker)).to.deep.equal(['deleted', 'deleted', 'deleted']);
      const recovers = await Promise.all(Array.from({ length: 4 }, () => app.http.post(`/api/article/recover/${en}?locale=all`)));
      expect(statuses(recovers), recovers.map((r) => r.text).join('\n')).to.deep.equal([200, 404, 404, 404]);
      expect((await rows(en)).map((r) => r.localeName).sort()).to.deep.equal(['de', 'en', 'fr']);
    });
  });
}
