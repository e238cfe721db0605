/** Issue 14, locales: create, Find, FindOne, update and POST …/localizations in one or every locale, over HTTP. */
import { expect } from 'chai';
import { DIALECTS } from '../../helpers/dialects';
import type { TestApp } from '../../helpers/test-app';
import { byLocale, startLocaleApp } from './app';

for (const dialect of DIALECTS) {
  describe(`locales: reads and writes per locale [${dialect}]`, () => {
    let app: TestApp;
    let en: number;
    let fr: number;

    before(async () => {
      app = await startLocaleApp(dialect);
      const created = await app.http.post('/api/article', { title: 'Hello', body: 'English text', price: 10 });
      expect(created.status, created.text).to.equal(200);
      en = created.body.data.id;
      const loc = await app.http.post(`/api/article/${en}/localizations?locale=fr`, { title: 'Bonjour', body: 'Texte français' });
      expect(loc.status, loc.text).to.equal(200);
      fr = loc.body.data.id;
    });
    after(async () => app?.close());

    it('creates an entry in DEFAULT_LOCALE: its row points at itself and lists no other locale', async () => {
      const res = await app.http.post('/api/article', { title: 'Alone', price: 3 });
      expect(res.status).to.equal(200);
      expect(res.body.data).to.include({ localeName: 'en', defaultEntityLocaleId: res.body.data.id, title: 'Alone' });
      expect(res.body.data.localizations).to.deep.equal([]);
    });

    it('creates an entry in the locale locale= names', async () => {
      const res = await app.http.post('/api/article?locale=de', { title: 'Hallo allein' });
      expect(res.status).to.equal(200);
      expect(res.body.data).to.include({ localeName: 'de', defaultEntityLocaleId: res.body.data.id });
      const inDe = await app.http.get(`/api/article?locale=de&filters[title][$eq]=Hallo%20allein`);
      expect(inDe.body.records.map((r: { id: number }) => r.id)).to.deep.equal([res.body.data.id]);
      const inEn = await app.http.get(`/api/article?filters[title][$eq]=Hallo%20allein`);
      expect(inEn.body.records).to.deep.equal([]);
    });

    it('POST …/localizations makes a row of its own, linked to the entry, the shared values copied; answers list the other locales', async () => {
      const row = await app.http.get(`/api/article/${fr}`);
      expect(row.status).to.equal(200);
      expect(row.body).to.include({ id: fr, localeName: 'fr', defaultEntityLocaleId: en, title: 'Bonjour', body: 'Texte français', price: 10 });
      expect(row.body.localizations).to.deep.equal([{ id: en, locale: 'en' }]);
      const base = await app.http.get(`/api/article/${en}`);
      expect(base.body.localizations).to.deep.equal([{ id: fr, locale: 'fr' }]);
    });

    it('Find lists DEFAULT_LOCALE by default, one locale with locale=<code>, every locale with locale=all', async () => {
      const ids = (r: { body: { records: { id: number }[] } }) => r.body.records.map((x) => x.id);
      const def = await app.http.get('/api/article?filters[price][$eq]=10');
      expect(ids(def)).to.deep.equal([en]);
      const inFr = await app.http.get('/api/article?locale=fr&filters[price][$eq]=10');
      expect(ids(inFr)).to.deep.equal([fr]);
      expect(inFr.body.records[0].localizations).to.deep.equal([{ id: en, locale: 'en' }]);
      const all = await app.http.get('/api/article?locale=all&filters[price][$eq]=10&sort[0]=id');
      expect(ids(all)).to.deep.equal([en, fr]);
      expect(all.body.meta.totalRecords).to.equal(2);
    });

    it('grouping counts one locale too (default DEFAULT_LOCALE; all: every row)', async () => {
      const g = await app.http.get('/api/article?filters[price][$eq]=10&groupBy[0]=localeName&aggregates[0]=id:count');
      expect(g.status, g.text).to.equal(200);
      expect(g.body.groupMeta.map((m: { groupKey: Record<string, unknown> }) => m.groupKey.localeName)).to.deep.equal(['en']);
      const all = await app.http.get('/api/article?locale=all&filters[price][$eq]=10&groupBy[0]=localeName&aggregates[0]=id:count&sort[0]=localeName');
      expect(all.body.groupMeta.map((m: { groupKey: Record<string, unknown> }) => m.groupKey.localeName)).to.deep.equal(['en', 'fr']);
    });

    it('FindOne with locale= answers that locale of the entry, whichever of its rows {id} names; 404 without it', async () => {
      expect((await app.http.get(`/api/article/${en}?locale=fr`)).body.id).to.equal(fr);
      expect((await app.http.get(`/api/article/${fr}?locale=en`)).body.id).to.equal(en);
      expect((await app.http.get(`/api/article/${fr}?locale=fr`)).body.id).to.equal(fr);
      const none = await app.http.get(`/api/article/${en}?locale=de`);
      expect(none.status).to.equal(404);
      expect(none.body.error.message).to.contain('de');
    });

    it('update with locale= changes that locale of the entry only (localized fields)', async () => {
      const res = await app.http.patch(`/api/article/${en}?locale=fr`, { body: 'Texte corrigé' });
      expect(res.status, res.text).to.equal(200);
      expect(res.body.data).to.include({ id: fr, body: 'Texte corrigé' });
      expect(res.body.data.localizations).to.deep.equal([{ id: en, locale: 'en' }]);
      expect((await app.http.get(`/api/article/${en}`)).body.body).to.equal('English text');
      const put = await app.http.put(`/api/article/${fr}`, { title: 'Bonjour!', body: 'PUT', price: 10 });
      expect(put.status, put.text).to.equal(200);
      expect((await app.http.get(`/api/article/${en}`)).body).to.include({ title: 'Hello', body: 'English text' });
    });

    it('a second localization in the same locale answers 409; a missing entry 404; locale= is required', async () => {
      const again = await app.http.post(`/api/article/${en}/localizations?locale=fr`, { title: 'Encore' });
      expect(again.status).to.equal(409);
      expect(again.body.error.details).to.include({ locale: 'fr', id: fr });
      expect((await app.http.post('/api/article/999999/localizations?locale=de', { title: 'x' })).status).to.equal(404);
      const none = await app.http.post(`/api/article/${en}/localizations`, { title: 'x' });
      expect(none.status).to.equal(400);
      expect(none.body.error.message).to.contain('en, fr, de');
    });

    it('a localization body names localized fields only (422 for shared ones) and needs the required ones', async () => {
      const shared = await app.http.post(`/api/article/${en}/localizations?locale=de`, { title: 'Hallo', price: 99 });
      expect(shared.status).to.equal(422);
      expect(shared.body.error.details.fields).to.have.property('price');
      const missing = await app.http.post(`/api/article/${en}/localizations?locale=de`, { body: 'ohne Titel' });
      expect(missing.status).to.equal(422);
      expect(missing.body.error.details.fields).to.have.property('title');
      const ok = await app.http.post(`/api/article/${fr}/localizations?locale=de`, { title: 'Hallo' });
      expect(ok.status, ok.text).to.equal(200);
      expect(ok.body.data).to.include({ localeName: 'de', defaultEntityLocaleId: en, price: 10 });
      expect(byLocale(ok.body.data.localizations)).to.deep.equal([{ id: en, locale: 'en' }, { id: fr, locale: 'fr' }]);
    });

    it('POST …/localizations needs <model>.create: 401 without a token, 403 without the permission', async () => {
      expect((await app.anon.post(`/api/article/${en}/localizations?locale=de`, { title: 'Anonym' })).status).to.equal(401);
      const user = await app.createUser();
      expect((await user.http.post(`/api/article/${en}/localizations?locale=de`, { title: 'Verboten' })).status).to.equal(403);
    });

    it('bulk create takes locale= as create does', async () => {
      const res = await app.http.post('/api/article/bulk?locale=fr', [{ title: 'Un' }, { title: 'Deux' }]);
      expect(res.status, res.text).to.equal(200);
      for (const r of res.body.data) expect(r).to.include({ localeName: 'fr', defaultEntityLocaleId: r.id });
    });

    it('a model without i18n is unchanged: null locale columns, no localizations, no such endpoint', async () => {
      const t = await app.http.post('/api/topic', { name: 'science' });
      expect(t.status).to.equal(200);
      expect(t.body.data).to.include({ localeName: null, defaultEntityLocaleId: null });
      expect(t.body.data).not.to.have.property('localizations');
      expect((await app.http.post(`/api/topic/${t.body.data.id}/localizations?locale=fr`, { name: 'sciences' })).status).to.equal(404);
    });
  });
}
