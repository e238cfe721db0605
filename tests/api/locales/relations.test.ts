/**
 * Issue 14: relations link entries. A link stores the entry id (its default-locale row), whichever locale
 * row a write names; populate and filters through a relation see the linked entry as that row.
 */
import { expect } from 'chai';
import { DIALECTS } from '../../helpers/dialects';
import type { TestApp } from '../../helpers/test-app';
import { startLocaleApp } from './app';

for (const dialect of DIALECTS) {
  describe(`locales: relations link entries [${dialect}]`, () => {
    let app: TestApp;
    let writerEn: number;
    let writerFr: number;
    let article: { en: number; fr: number };

    before(async () => {
      app = await startLocaleApp(dialect);
      writerEn = (await app.http.post('/api/writer', { name: 'Ann', bio: 'English bio' })).body.data.id;
      writerFr = (await app.http.post(`/api/writer/${writerEn}/localizations?locale=fr`, { name: 'Anne', bio: 'Bio française' })).body.data.id;
      // the write names the writer's fr row: the link names the entry
      const en = await app.http.post('/api/article', { title: 'Linked', writerId: writerFr });
      expect(en.status, en.text).to.equal(200);
      const fr = await app.http.post(`/api/article/${en.body.data.id}/localizations?locale=fr`, { title: 'Lié' });
      article = { en: en.body.data.id, fr: fr.body.data.id };
    });
    after(async () => app?.close());

    it('a link stores the entry id, from whichever locale row it was given', async () => {
      expect((await app.http.get(`/api/article/${article.en}`)).body.writerId).to.equal(writerEn);
      expect((await app.http.get(`/api/article/${article.fr}`)).body.writerId).to.equal(writerEn);
    });

    it('populate shows the linked entry as its default-locale row, from every locale of the linking entry', async () => {
      for (const id of [article.en, article.fr]) {
        const res = await app.http.get(`/api/article/${id}?populate[0]=writer`);
        expect(res.body.writer).to.include({ id: writerEn, name: 'Ann', localeName: 'en' });
      }
    });

    it('an inverse side lists each linking entry once (its default-locale row), from every locale row of the linked entry', async () => {
      for (const id of [writerEn, writerFr]) {
        const res = await app.http.get(`/api/writer/${id}?populate[0]=articles`);
        expect(res.status, res.text).to.equal(200);
        expect(res.body.articles.map((a: { id: number }) => a.id)).to.deep.equal([article.en]);
      }
    });

    it('filters through a relation agree with populate: they test the entry row', async () => {
      const ids = async (q: string) => (await app.http.get(`/api/article?locale=all&sort[0]=id&${q}`)).body.records.map((r: { id: number }) => r.id);
      expect(await ids('filters[writer][name][$eq]=Ann')).to.deep.equal([article.en, article.fr]);
      expect(await ids('filters[writer][name][$eq]=Anne')).to.deep.equal([]);
      // from the other side: every locale row of the writer has the entry's articles
      const writers = await app.http.get('/api/writer?locale=all&sort[0]=id&filters[articles][title][$eq]=Linked');
      expect(writers.body.records.map((r: { id: number }) => r.id)).to.deep.equal([writerEn, writerFr]);
      const none = await app.http.get('/api/writer?locale=all&filters[articles][title][$eq]=Lié');
      expect(none.body.records).to.deep.equal([]);
    });

    it('many-to-many links hang off the entry: set from one locale, seen from all, filtered alike', async () => {
      const t = (await app.http.post('/api/topic', { name: 'history' })).body.data.id;
      expect((await app.http.patch(`/api/article/${article.fr}`, { topics: [t] })).status).to.equal(200);
      for (const id of [article.en, article.fr]) {
        expect((await app.http.get(`/api/article/${id}?populate[0]=topics`)).body.topics.map((x: { id: number }) => x.id)).to.deep.equal([t]);
      }
      const res = await app.http.get('/api/article?locale=all&sort[0]=id&filters[topics][name][$eq]=history');
      expect(res.body.records.map((r: { id: number }) => r.id)).to.deep.equal([article.en, article.fr]);
    });
  });
}
