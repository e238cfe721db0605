/**
 * Issue 14: DELETE /api/{model}/{id}?locale=<code>|all removes one locale or the whole entry (absent: the row
 * {id} names); the default-locale row alone goes only when no other locale remains. Recover follows the same rule.
 * The bulk forms take `locale=` the same way, for each id; every other query parameter is refused (400).
 */
import { expect } from 'chai';
import { DIALECTS } from '../../helpers/dialects';
import type { TestApp } from '../../helpers/test-app';
import { startLocaleApp } from './app';

for (const dialect of DIALECTS) {
  describe(`locales: delete and recover per locale [${dialect}]`, () => {
    let app: TestApp;
    before(async () => {
      app = await startLocaleApp(dialect);
    });
    after(async () => app?.close());

    let n = 0;
    async function entry(model = 'article'): Promise<{ en: number; fr: number; de: number }> {
      n += 1;
      const en = (await app.http.post(`/api/${model}`, { title: `Entry ${n}` })).body.data.id as number;
      const fr = (await app.http.post(`/api/${model}/${en}/localizations?locale=fr`, { title: `Entrée ${n}` })).body.data.id as number;
      const de = (await app.http.post(`/api/${model}/${en}/localizations?locale=de`, { title: `Eintrag ${n}` })).body.data.id as number;
      return { en, fr, de };
    }
    const status = async (id: number) => (await app.http.get(`/api/article/${id}?showSoftDeleted=inclusive`)).body.deletedTracker as string;

    it('locale=<code> archives that locale of the entry only, whichever row {id} names', async () => {
      const e = await entry();
      const res = await app.http.del(`/api/article/${e.en}?locale=fr`);
      expect(res.status, res.text).to.equal(200);
      expect(res.body.data).to.include({ id: e.fr, deletedTracker: 'deleted' });
      expect([await status(e.en), await status(e.fr), await status(e.de)]).to.deep.equal(['not-deleted', 'deleted', 'not-deleted']);
      expect((await app.http.get(`/api/article/${e.en}`)).body.localizations).to.deep.equal([{ id: e.de, locale: 'de' }]);
      expect((await app.http.get(`/api/article/${e.en}?locale=fr`)).status).to.equal(404);
    });

    it('without locale= the row {id} names goes; the default-locale row alone is refused while others remain (409)', async () => {
      const e = await entry();
      expect((await app.http.del(`/api/article/${e.de}`)).status).to.equal(200);
      const refused = await app.http.del(`/api/article/${e.en}`);
      expect(refused.status).to.equal(409);
      expect(refused.body.error.message).to.contain('locale=all');
      expect(refused.body.error.details.locales).to.deep.equal(['fr']);
      expect(await status(e.en)).to.equal('not-deleted');
      expect((await app.http.del(`/api/article/${e.fr}`)).status).to.equal(200);
      expect((await app.http.del(`/api/article/${e.en}`)).status).to.equal(200);
    });

    it('locale=all archives every locale of the entry in one call', async () => {
      const e = await entry();
      const res = await app.http.del(`/api/article/${e.fr}?locale=all`);
      expect(res.status, res.text).to.equal(200);
      expect(res.body.data.id).to.equal(e.fr);
      expect([await status(e.en), await status(e.fr), await status(e.de)]).to.deep.equal(['deleted', 'deleted', 'deleted']);
    });

    it('recover: locale=all brings every archived locale back; another locale alone waits for the default-locale row', async () => {
      const e = await entry();
      expect((await app.http.del(`/api/article/${e.en}?locale=all`)).status).to.equal(200);
      const early = await app.http.post(`/api/article/recover/${e.en}?locale=fr`);
      expect(early.status).to.equal(409);
      expect(early.body.error.message).to.contain('recover it first');
      const all = await app.http.post(`/api/article/recover/${e.de}?locale=all`);
      expect(all.status, all.text).to.equal(200);
      expect(all.body.data.data.id).to.equal(e.de);
      expect([await status(e.en), await status(e.fr), await status(e.de)]).to.deep.equal(['not-deleted', 'not-deleted', 'not-deleted']);
    });

    it('recover one locale at a time: the default-locale row, then another by locale=', async () => {
      const e = await entry();
      expect((await app.http.del(`/api/article/${e.en}?locale=all`)).status).to.equal(200);
      expect((await app.http.post(`/api/article/recover/${e.en}`)).status).to.equal(200);
      const fr = await app.http.post(`/api/article/recover/${e.en}?locale=fr`);
      expect(fr.status, fr.text).to.equal(200);
      expect(fr.body.data.data).to.include({ id: e.fr, localeName: 'fr' });
      expect(await status(e.de)).to.equal('deleted');
      expect((await app.http.post(`/api/article/recover/${e.en}?locale=fr`)).status).to.equal(404);
    });

    it('Find with showSoftDeleted sees archived locales per locale as well', async () => {
      const e = await entry();
      await app.http.del(`/api/article/${e.en}?locale=de`);
      const res = await app.http.get(`/api/article?locale=de&showSoftDeleted=inclusive&filters[id][$eq]=${e.de}`);
      expect(res.body.records.map((r: { id: number }) => r.id)).to.deep.equal([e.de]);
      // an archived row still lists the entry's active locales
      expect(res.body.records[0].localizations).to.deep.equal([{ id: e.en, locale: 'en' }, { id: e.fr, locale: 'fr' }]);
      expect((await app.http.get(`/api/article?locale=de&filters[id][$eq]=${e.de}`)).body.records).to.deep.equal([]);
    });

    it('without soft delete: locale=<code> removes that row, locale=all the whole entry, for good', async () => {
      const e = await entry('leaflet');
      expect((await app.http.del(`/api/leaflet/${e.en}?locale=de`)).status).to.equal(200);
      expect((await app.http.get(`/api/leaflet/${e.de}`)).status).to.equal(404);
      expect((await app.http.del(`/api/leaflet/${e.en}`)).status).to.equal(409);
      const all = await app.http.del(`/api/leaflet/${e.en}?locale=all`);
      expect(all.status, all.text).to.equal(200);
      expect(all.body.data.id).to.equal(e.en);
      for (const id of [e.en, e.fr]) expect((await app.http.get(`/api/leaflet/${id}`)).status).to.equal(404);
    });

    it('bulk delete takes locale= as single delete does: all → every locale of each entry, a code → that locale of each, absent → the rows named', async () => {
      const [a, b, c] = [await entry(), await entry(), await entry()];
      // the advice of the 409 can be followed on the bulk endpoint
      const refused = await app.http.del('/api/article/bulk', [a.en]);
      expect(refused.status, refused.text).to.equal(409);
      expect(refused.body.error.message).to.contain('locale=all');
      const all = await app.http.del('/api/article/bulk?locale=all', [a.en, b.fr]);
      expect(all.status, all.text).to.equal(200);
      // one answer per id of the body, in its order: the row it names
      expect(all.body.map((r: { data: { id: number } }) => r.data.id)).to.deep.equal([a.en, b.fr]);
      for (const e of [a, b]) expect([await status(e.en), await status(e.fr), await status(e.de)]).to.deep.equal(['deleted', 'deleted', 'deleted']);
      const fr = await app.http.del('/api/article/bulk?locale=fr', [c.de]);
      expect(fr.status, fr.text).to.equal(200);
      expect(fr.body.map((r: { data: { id: number; localeName: string } }) => [r.data.id, r.data.localeName])).to.deep.equal([[c.fr, 'fr']]);
      expect([await status(c.en), await status(c.fr), await status(c.de)]).to.deep.equal(['not-deleted', 'deleted', 'not-deleted']);
      // an entry without that locale (active) fails the whole call: nothing changes
      const d = await entry();
      const missing = await app.http.del('/api/article/bulk?locale=fr', [d.en, c.en]);
      expect(missing.status, missing.text).to.equal(404);
      expect(await status(d.fr)).to.equal('not-deleted');
    });

    it('bulk recover takes locale= likewise: all → every archived locale of each entry (first row first), a code → that one', async () => {
      const [a, b] = [await entry(), await entry()];
      expect((await app.http.del('/api/article/bulk?locale=all', [a.en, b.en])).status).to.equal(200);
      const early = await app.http.post('/api/article/recover/bulk', [a.fr]);
      expect(early.status, early.text).to.equal(409);
      expect(early.body.error.message).to.contain('locale=all');
      const fr = await app.http.post('/api/article/recover/bulk?locale=en', [a.fr]);
      expect(fr.status, fr.text).to.equal(200);
      expect(fr.body.data.map((r: { data: { id: number } }) => r.data.id)).to.deep.equal([a.en]);
      const all = await app.http.post('/api/article/recover/bulk?locale=all', [a.de, b.fr]);
      expect(all.status, all.text).to.equal(200);
      expect(all.body.data.map((r: { data: { id: number } }) => r.data.id)).to.deep.equal([a.de, b.fr]);
      for (const e of [a, b]) expect([await status(e.en), await status(e.fr), await status(e.de)]).to.deep.equal(['not-deleted', 'not-deleted', 'not-deleted']);
    });

    it('delete and recover, single and bulk, refuse an unknown locale or any other query parameter (400), changing nothing', async () => {
      const e = await entry();
      const calls: [string, string, unknown][] = [
        ['del', '/api/article/bulk?locale=xx', [e.en]],
        ['del', '/api/article/bulk?foo=1', [e.de]],
        ['del', '/api/article/bulk?locale=all&foo=1', [e.de]],
        ['del', `/api/article/${e.de}?foo=1`, undefined],
        ['post', '/api/article/recover/bulk?locale=xx', [e.en]],
        ['post', `/api/article/recover/${e.en}?foo=1`, undefined],
        ['del', '/api/topic/bulk?locale=en', [1]],
        ['del', '/api/topic/bulk?foo=1', [1]],
      ];
      for (const [method, path, body] of calls) {
        const res = method === 'del' ? await app.http.del(path, body) : await app.http.post(path, body);
        expect(res.status, `${method} ${path}: ${res.text}`).to.equal(400);
        expect(res.body.error.name).to.equal('BadRequestError');
      }
      const unknownLocale = await app.http.del('/api/article/bulk?locale=xx', [e.en]);
      expect(unknownLocale.body.error.details).to.deep.equal({ parameter: 'locale', allowed: ['en', 'fr', 'de', 'all'] });
      const unknownParameter = await app.http.del('/api/article/bulk?foo=1', [e.en]);
      expect(unknownParameter.body.error).to.deep.include({ message: 'foo: unknown query parameter (known: locale)', details: { parameter: 'foo' } });
      expect((await app.http.del('/api/topic/bulk?foo=1', [1])).body.error.message).to.equal('foo: unknown query parameter (this call takes none)');
      expect([await status(e.en), await status(e.fr), await status(e.de)]).to.deep.equal(['not-deleted', 'not-deleted', 'not-deleted']);
    });
  });
}
