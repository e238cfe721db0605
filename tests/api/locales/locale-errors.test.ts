/** Issue 14: an unknown or unconfigured locale answers 400 naming the allowed ones; models without i18n take none. */
import { expect } from 'chai';
import { DIALECTS } from '../../helpers/dialects';
import type { TestApp } from '../../helpers/test-app';
import { startLocaleApp } from './app';

for (const dialect of DIALECTS) {
  describe(`locales: unknown locale → 400 [${dialect}]`, () => {
    let app: TestApp;
    let id: number;
    before(async () => {
      // `it` is a real code, but not configured here
      app = await startLocaleApp(dialect);
      id = (await app.http.post('/api/article', { title: 'Errors' })).body.data.id;
    });
    after(async () => app?.close());

    const expect400 = (res: { status: number; body: { error: { message: string; details: Record<string, unknown> } } }, allowed: string[]) => {
      expect(res.status).to.equal(400);
      expect(res.body.error.message).to.contain(`allowed: ${allowed.join(', ')}`);
      expect(res.body.error.details).to.deep.equal({ parameter: 'locale', allowed });
    };

    it('on Find (all allowed there), FindOne, create, update, delete, recover, localizations', async () => {
      expect400(await app.http.get('/api/article?locale=it'), ['en', 'fr', 'de', 'all']);
      expect400(await app.http.get('/api/article?locale=EN'), ['en', 'fr', 'de', 'all']);
      expect400(await app.http.get(`/api/article/${id}?locale=it`), ['en', 'fr', 'de']);
      expect400(await app.http.get(`/api/article/${id}?locale=all`), ['en', 'fr', 'de']);
      expect400(await app.http.post('/api/article?locale=xx', { title: 'x' }), ['en', 'fr', 'de']);
      expect400(await app.http.post('/api/article?locale=all', { title: 'x' }), ['en', 'fr', 'de']);
      expect400(await app.http.patch(`/api/article/${id}?locale=it`, { body: 'x' }), ['en', 'fr', 'de']);
      expect400(await app.http.del(`/api/article/${id}?locale=it`), ['en', 'fr', 'de', 'all']);
      expect400(await app.http.post(`/api/article/recover/${id}?locale=it`), ['en', 'fr', 'de', 'all']);
      expect400(await app.http.post(`/api/article/${id}/localizations?locale=all`, { title: 'x' }), ['en', 'fr', 'de']);
      expect((await app.http.get(`/api/article/${id}`)).body).to.include({ title: 'Errors', deletedTracker: 'not-deleted' });
    });

    it('a locale given twice or as an object is refused the same way', async () => {
      expect400(await app.http.get('/api/article?locale[0]=en&locale[1]=fr'), ['en', 'fr', 'de', 'all']);
      expect400(await app.http.get('/api/article?locale[x]=en'), ['en', 'fr', 'de', 'all']);
    });

    it('a model without i18n refuses locale= (400), and is otherwise unchanged', async () => {
      const res = await app.http.get('/api/topic?locale=en');
      expect(res.status).to.equal(400);
      expect(res.body.error.message).to.contain('has no locales');
      expect((await app.http.get('/api/topic')).status).to.equal(200);
    });

    it('with other settings the allowed list follows LOCALES', async () => {
      const other = await startLocaleApp(dialect, { LOCALES: 'fr,it', DEFAULT_LOCALE: 'it' });
      try {
        const created = await other.http.post('/api/article', { title: 'Ciao' });
        expect(created.body.data.localeName).to.equal('it');
        expect400(await other.http.get('/api/article?locale=en'), ['fr', 'it', 'all']);
      } finally {
        await other.close();
      }
    });
  });
}
