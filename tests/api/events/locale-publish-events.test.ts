/**
 * Issues 14 and 15 together, every database: publishing one locale of an entry also publishes the entry's
 * shared values (localized: false) and links to its other published locales (core/drafts/localized.ts).
 * Those published copies changed, so each gets its own `record.publish` with its copy as FindOne answers
 * it; a publish that changes no other copy announces only the rows it publishes, and `locale=all` one
 * event per locale row.
 */
import { join } from 'node:path';
import { expect } from 'chai';
import type { StoredEvent } from '../../../core/events/types';
import { DIALECTS } from '../../helpers/dialects';
import { freshEvents } from '../../helpers/fresh-events';
import { ROOT, startTestApp, type TestApp } from '../../helpers/test-app';

const MODELS = join(ROOT, 'tests', 'fixtures', 'content-models');

for (const dialect of DIALECTS) {
  describe(`events of a locale's publish that reaches the other locales [${dialect}]`, () => {
    let app: TestApp;
    const events = freshEvents(() => app, 'page');
    const fresh = async (): Promise<[string, number][]> => (await events.fresh()).map((e: StoredEvent) => [e.type, e.recordId as number]);

    before(async () => {
      app = await startTestApp(dialect, { contentTypesDir: MODELS, env: { LOCALES: 'en,fr,de', DEFAULT_LOCALE: 'en' } });
      await events.skipAll();
    });
    after(async () => app?.close());

    async function ok(res: Promise<{ status: number; text: string; body: any }>): Promise<any> {
      const r = await res;
      expect(r.status, r.text).to.equal(200);
      return r.body;
    }

    /** An entry in en, fr and de, every locale published. */
    async function publishedEntry(title: string, price: number): Promise<{ en: number; fr: number; de: number }> {
      const en = (await ok(app.http.post('/api/page', { title, price }))).data.id as number;
      const fr = (await ok(app.http.post(`/api/page/${en}/localizations?locale=fr`, { title: `${title} (fr)` }))).data.id as number;
      const de = (await ok(app.http.post(`/api/page/${en}/localizations?locale=de`, { title: `${title} (de)` }))).data.id as number;
      await ok(app.http.post(`/api/page/${en}/publish?locale=all`));
      return { en, fr, de };
    }

    it('a shared value published with fr: record.publish of fr, then of every other published locale, each with its copy', async () => {
      const { en, fr, de } = await publishedEntry(`Shared ${dialect}`, 10);
      await events.skipAll();
      await ok(app.http.patch(`/api/page/${en}`, { price: 20 }));
      expect(await fresh(), 'a draft edit: record.update of every locale row').to.deep.equal([
        ['record.update', en],
        ['record.update', fr],
        ['record.update', de],
      ]);
      await ok(app.http.post(`/api/page/${fr}/publish`));
      const list = await events.fresh();
      expect(list.map((e) => [e.type, e.recordId])).to.deep.equal([
        ['record.publish', fr],
        ['record.publish', en],
        ['record.publish', de],
      ]);
      for (const e of list) {
        const readers = await ok(app.anon.get(`/api/page/${e.recordId}`));
        expect(readers.price, 'the published copy took the shared value').to.equal(20);
        expect([readers.localizations, readers._status]).to.deep.equal([[en, fr, de].filter((id) => id !== e.recordId).map((id) => ({ id, locale: id === en ? 'en' : id === fr ? 'fr' : 'de' })), 'published']);
        expect(e.record, `record ${e.recordId} as FindOne answers its published copy`).to.deep.equal(readers);
      }
      expect(list[1].actor).to.deep.equal({ userId: app.admin!.id, apiTokenId: null });
    });

    it('links changed in the drafts and published with de: en and fr announce their copies (the links are shared)', async () => {
      const { en, fr, de } = await publishedEntry(`Linked ${dialect}`, 3);
      const label = (await ok(app.http.post('/api/label', { name: `label ${dialect}` }))).data.id as number;
      await ok(app.http.patch(`/api/page/${en}`, { labels: [label] }));
      await events.skipAll();
      await ok(app.http.post(`/api/page/${de}/publish`));
      expect(await fresh()).to.deep.equal([
        ['record.publish', de],
        ['record.publish', en],
        ['record.publish', fr],
      ]);
      const populated = await ok(app.anon.get(`/api/page/${fr}?populate[0]=labels`));
      expect(populated.labels.map((l: { id: number }) => l.id)).to.deep.equal([label]);
      // published again with the same links and values: nothing else changed
      await ok(app.http.post(`/api/page/${de}/publish`));
      expect(await fresh()).to.deep.equal([['record.publish', de]]);
    });

    it('a publish that changes no other copy announces its own row only; locale=all one event per row', async () => {
      const { en, fr, de } = await publishedEntry(`Own ${dialect}`, 5);
      await events.skipAll();
      // a localized value: only de's draft differs from its copy
      await ok(app.http.patch(`/api/page/${de}`, { body: 'nur Deutsch' }));
      expect(await fresh()).to.deep.equal([['record.update', de]]);
      await ok(app.http.post(`/api/page/${de}/publish`));
      expect(await fresh()).to.deep.equal([['record.publish', de]]);
      // every locale at once: its own record.publish each, no second one for the copies shared to
      await ok(app.http.patch(`/api/page/${en}`, { price: 6 }));
      await events.skipAll();
      await ok(app.http.post(`/api/page/${en}/publish?locale=all`));
      expect(await fresh()).to.deep.equal([
        ['record.publish', en],
        ['record.publish', fr],
        ['record.publish', de],
      ]);
    });

    it('an unpublished locale takes no event: its draft holds the shared value, it has no copy to change', async () => {
      const { en, fr, de } = await publishedEntry(`Partly ${dialect}`, 1);
      await ok(app.http.post(`/api/page/${de}/unpublish`));
      await ok(app.http.patch(`/api/page/${en}`, { price: 2 }));
      await events.skipAll();
      await ok(app.http.post(`/api/page/${fr}/publish`));
      expect(await fresh()).to.deep.equal([
        ['record.publish', fr],
        ['record.publish', en],
      ]);
      expect((await app.anon.get(`/api/page/${de}`)).status).to.equal(404);
    });

    it('a publish refused (409: the entry\'s first row is not published) changes nothing and announces nothing', async () => {
      const en = (await ok(app.http.post('/api/page', { title: `Refused ${dialect}`, price: 1 }))).data.id as number;
      const fr = (await ok(app.http.post(`/api/page/${en}/localizations?locale=fr`, { title: `Refused ${dialect} (fr)` }))).data.id as number;
      await events.skipAll();
      const res = await app.http.post(`/api/page/${fr}/publish`);
      expect(res.status, res.text).to.equal(409);
      expect(await fresh()).to.deep.equal([]);
    });
  });
}
