/** Issue 14: a `localized: false` value (and a relation) is shared by every locale of the entry, written in one transaction. */
import { expect } from 'chai';
import { DIALECTS } from '../../helpers/dialects';
import type { TestApp } from '../../helpers/test-app';
import { startLocaleApp } from './app';

for (const dialect of DIALECTS) {
  describe(`locales: shared (localized: false) values [${dialect}]`, () => {
    let app: TestApp;
    before(async () => {
      app = await startLocaleApp(dialect);
    });
    after(async () => app?.close());

    async function entry(title: string, extra: Record<string, unknown> = {}): Promise<{ en: number; fr: number }> {
      const en = (await app.http.post('/api/article', { title, ...extra })).body.data.id as number;
      const fr = (await app.http.post(`/api/article/${en}/localizations?locale=fr`, { title: `${title} (fr)` })).body.data.id as number;
      return { en, fr };
    }

    it('a write to a shared value, in any locale, reaches every locale row; localized values stay per row', async () => {
      const { en, fr } = await entry('Priced', { price: 10, sku: 'P-1' });
      expect((await app.http.get(`/api/article/${fr}`)).body).to.include({ price: 10, sku: 'P-1' });
      expect((await app.http.patch(`/api/article/${en}`, { price: 12, body: 'en body' })).status).to.equal(200);
      expect((await app.http.get(`/api/article/${fr}`)).body).to.include({ price: 12, body: null });
      expect((await app.http.patch(`/api/article/${en}?locale=fr`, { price: 15 })).status).to.equal(200);
      expect((await app.http.get(`/api/article/${en}`)).body).to.include({ price: 15, body: 'en body' });
    });

    it('a PUT leaving a shared value out clears it in every locale', async () => {
      const { en, fr } = await entry('Put', { price: 7, sku: 'PUT-1' });
      expect((await app.http.put(`/api/article/${fr}`, { title: 'Put (fr)' })).status).to.equal(200);
      expect((await app.http.get(`/api/article/${en}`)).body).to.include({ price: null, sku: null, title: 'Put' });
    });

    it('relations are shared: the writer set on one locale is the writer of every locale', async () => {
      const writer = (await app.http.post('/api/writer', { name: 'Shared Writer' })).body.data.id;
      const topic = (await app.http.post('/api/topic', { name: 'shared-topic' })).body.data.id;
      const { en, fr } = await entry('Related');
      const res = await app.http.patch(`/api/article/${fr}`, { writerId: writer, topics: [topic] });
      expect(res.status, res.text).to.equal(200);
      const base = await app.http.get(`/api/article/${en}?populate[0]=topics`);
      expect(base.body.writerId).to.equal(writer);
      expect(base.body.topics.map((t: { id: number }) => t.id)).to.deep.equal([topic]);
    });

    it('a shared write that fails in another locale row changes nothing (one transaction)', async () => {
      const a = await entry('Atomic A', { sku: 'ATOM-A', price: 1 });
      // another entry holds ATOM-B in fr only: A's en row could take it, A's fr row cannot (unique per locale)
      const b = (await app.http.post('/api/article?locale=fr', { title: 'Atomic B', sku: 'ATOM-B' })).body.data.id;
      expect(b).to.be.a('number');
      const res = await app.http.patch(`/api/article/${a.en}`, { sku: 'ATOM-B', price: 2, body: 'changed' });
      expect(res.status).to.equal(409);
      expect(res.body.error.details.fields).to.have.property('sku');
      expect((await app.http.get(`/api/article/${a.en}`)).body).to.include({ sku: 'ATOM-A', price: 1, body: null });
      expect((await app.http.get(`/api/article/${a.fr}`)).body).to.include({ sku: 'ATOM-A', price: 1 });
    });
  });
}
