/** Issue 14: unique attributes are unique per locale; the soft-delete tracker still frees an archived value. */
import { expect } from 'chai';
import { DIALECTS } from '../../helpers/dialects';
import type { TestApp } from '../../helpers/test-app';
import { startLocaleApp } from './app';

for (const dialect of DIALECTS) {
  describe(`locales: unique per locale [${dialect}]`, () => {
    let app: TestApp;
    before(async () => {
      app = await startLocaleApp(dialect);
    });
    after(async () => app?.close());

    it('two entries may not share a unique value in one locale (409 naming the field)', async () => {
      expect((await app.http.post('/api/article', { title: 'Twice' })).status).to.equal(200);
      const again = await app.http.post('/api/article', { title: 'Twice' });
      expect(again.status).to.equal(409);
      expect(again.body.error.details.fields).to.have.property('title');
      expect(again.body.error.message).to.contain('in this locale');
      expect((await app.http.post('/api/article?locale=fr', { title: 'Deux fois' })).status).to.equal(200);
      const inFr = await app.http.post('/api/article?locale=fr', { title: 'Deux fois' });
      expect(inFr.status).to.equal(409);
    });

    it('the same value in two locales is fine, within one entry or across entries', async () => {
      const en = (await app.http.post('/api/article', { title: 'Menu' })).body.data.id;
      expect((await app.http.post(`/api/article/${en}/localizations?locale=fr`, { title: 'Menu' })).status).to.equal(200);
      expect((await app.http.post('/api/article?locale=de', { title: 'Menu' })).status).to.equal(200);
      const clash = await app.http.post(`/api/article/${en}/localizations?locale=de`, { title: 'Menu' });
      expect(clash.status).to.equal(409);
    });

    it('a user key is unique per locale too; writerUserKey finds the entry through any locale', async () => {
      const w = (await app.http.post('/api/writer', { name: 'Victor' })).body.data.id;
      expect((await app.http.post(`/api/writer/${w}/localizations?locale=fr`, { name: 'Victor' })).status).to.equal(200);
      expect((await app.http.post('/api/writer', { name: 'Victor' })).status).to.equal(409);
      const a = await app.http.post('/api/article', { title: 'By key', writerUserKey: 'Victor' });
      expect(a.status, a.text).to.equal(200);
      expect(a.body.data.writerId).to.equal(w);
    });

    it('a user key held by several entries in different locales names the default locale\'s; with none there it is ambiguous (422)', async () => {
      const enEntry = (await app.http.post('/api/writer', { name: 'Jean' })).body.data.id;
      const frEntry = (await app.http.post('/api/writer?locale=fr', { name: 'Jean' })).body.data.id;
      expect(frEntry).not.to.equal(enEntry);
      const a = await app.http.post('/api/article', { title: 'By Jean', writerUserKey: 'Jean' });
      expect(a.status, a.text).to.equal(200);
      expect(a.body.data.writerId).to.equal(enEntry);
      await app.http.post('/api/writer?locale=fr', { name: 'Paul' });
      await app.http.post('/api/writer?locale=de', { name: 'Paul' });
      const ambiguous = await app.http.post('/api/article', { title: 'By Paul', writerUserKey: 'Paul' });
      expect(ambiguous.status).to.equal(422);
      expect(ambiguous.body.error.details.fields.writerUserKey[0]).to.contain('several writer entries');
    });

    it('an archived row frees its value in its locale; recovering it into a taken value answers 409', async () => {
      const old = (await app.http.post('/api/article', { title: 'Reused' })).body.data.id;
      expect((await app.http.del(`/api/article/${old}`)).status).to.equal(200);
      const fresh = await app.http.post('/api/article', { title: 'Reused' });
      expect(fresh.status).to.equal(200);
      const back = await app.http.post(`/api/article/recover/${old}`);
      expect(back.status).to.equal(409);
    });
  });
}
