/**
 * Issue 14: draft & publish and locales together, on a model with both flags (tests/fixtures/content-models):
 * each locale row has its own published copy; `locale=` on publish / unpublish (a code or `all`); `status` and
 * `locale` together on Find / FindOne; localizations start as drafts; unique per locale in the published copies;
 * shared values and links published with any locale; delete / recover per locale mirrored to the copies.
 * DESIGN-NOTES.md, "Draft & publish with locales".
 */
import { join } from 'node:path';
import { expect } from 'chai';
import { DIALECTS } from '../../helpers/dialects';
import type { Client } from '../../helpers/http';
import { ROOT, startTestApp, type TestApp } from '../../helpers/test-app';

const MODELS = join(ROOT, 'tests', 'fixtures', 'content-models');

for (const dialect of DIALECTS) {
  describe(`draft & publish with locales [${dialect}]`, () => {
    let app: TestApp;
    before(async () => {
      app = await startTestApp(dialect, { contentTypesDir: MODELS, env: { LOCALES: 'en,fr,de', DEFAULT_LOCALE: 'en' } });
    });
    after(async () => app?.close());

    async function ok(res: Promise<{ status: number; text: string; body: any }>): Promise<any> {
      const r = await res;
      expect(r.status, r.text).to.equal(200);
      return r.body;
    }
    const titles = async (http: Client, path: string): Promise<string[]> => ((await ok(http.get(path))).records as { title: string }[]).map((r) => r.title).sort();

    /** An entry in en with a fr localization (both drafts). */
    async function entry(title: string, extra: Record<string, unknown> = {}): Promise<{ en: number; fr: number }> {
      const en = (await ok(app.http.post('/api/page', { title, ...extra }))).data.id as number;
      const fr = (await ok(app.http.post(`/api/page/${en}/localizations?locale=fr`, { title: `${title} (fr)` }))).data.id as number;
      return { en, fr };
    }

    it('an unknown query parameter: the 400 lists status and locale among the known ones (locale on i18n models only)', async () => {
      for (const path of ['/api/page?foo=1', '/api/page/1?foo=1']) {
        const res = await app.http.get(path);
        expect(res.status, res.text).to.equal(400);
        expect(res.body.error.message).to.match(/^foo: unknown query parameter \(known: .*fields.*, status, locale\)$/);
      }
      const plain = await app.http.get('/api/label?foo=1');
      expect(plain.status).to.equal(400);
      expect(plain.body.error.message).to.match(/, status\)$/);
    });

    it('a localization of a draft entry is a draft; readers see no locale until it is published', async () => {
      const en = (await ok(app.http.post('/api/page', { title: 'Draft entry' }))).data.id as number;
      const asked = await app.http.post(`/api/page/${en}/localizations?locale=fr&status=published`, { title: 'Brouillon' });
      expect(asked.status, asked.text).to.equal(400);
      expect(asked.body.error.details.parameter).to.equal('status');
      const fr = await app.http.post(`/api/page/${en}/localizations?locale=fr`, { title: 'Brouillon' });
      expect(fr.status, fr.text).to.equal(200);
      expect(fr.body.data).to.include({ localeName: 'fr', defaultEntityLocaleId: en, publishedAt: null, _status: 'draft', _hasUnpublishedChanges: true });
      expect(await titles(app.anon, '/api/page?locale=all&filters[title][$startsWith]=Br')).to.deep.equal([]);
      expect((await app.anon.get(`/api/page/${en}?locale=fr`)).status).to.equal(404);
      expect(await titles(app.http, '/api/page?locale=fr&status=draft&filters[title][$startsWith]=Br')).to.deep.equal(['Brouillon']);
      const one = await ok(app.http.get(`/api/page/${en}?locale=fr&status=draft`));
      expect(one).to.include({ id: fr.body.data.id, title: 'Brouillon', _status: 'draft' });
      expect(one.localizations).to.deep.equal([{ id: en, locale: 'en' }]);
    });

    it('publish ?locale=<code> publishes that locale row only; the entry\'s first row goes first (409 otherwise)', async () => {
      const { en, fr } = await entry('Locale publish');
      const early = await app.http.post(`/api/page/${en}/publish?locale=fr`);
      expect(early.status, early.text).to.equal(409);
      expect(early.body.error.message).to.match(/first row .* is not published/);
      expect((await app.anon.get(`/api/page/${fr}?locale=fr`)).status).to.equal(404);

      const pubEn = await ok(app.http.post(`/api/page/${fr}/publish?locale=en`));
      expect(pubEn.data).to.include({ id: en, localeName: 'en', _status: 'published', _hasUnpublishedChanges: false });
      expect(pubEn.data.localizations).to.deep.equal([]); // no other published locale yet
      expect(await titles(app.anon, '/api/page?filters[title][$startsWith]=Locale')).to.deep.equal(['Locale publish']);
      expect(await titles(app.anon, '/api/page?locale=fr&filters[title][$startsWith]=Locale')).to.deep.equal([]);

      const pubFr = await ok(app.http.post(`/api/page/${en}/publish?locale=fr`));
      expect(pubFr.data).to.include({ id: fr, localeName: 'fr', _status: 'published' });
      expect(pubFr.data.localizations).to.deep.equal([{ id: en, locale: 'en' }]);
      expect((await ok(app.anon.get(`/api/page/${en}?locale=fr`))).title).to.equal('Locale publish (fr)');
      expect(await titles(app.anon, '/api/page?locale=all&filters[title][$startsWith]=Locale')).to.deep.equal(['Locale publish', 'Locale publish (fr)']);

      // unpublishing the first row while fr is published: 409; fr first, then en
      const orphan = await app.http.post(`/api/page/${en}/unpublish`);
      expect(orphan.status, orphan.text).to.equal(409);
      expect(orphan.body.error.details.locales).to.deep.equal(['fr']);
      expect((await ok(app.http.post(`/api/page/${en}/unpublish?locale=fr`))).data).to.include({ id: fr, publishedAt: null, _status: 'draft' });
      expect(await titles(app.anon, '/api/page?locale=all&filters[title][$startsWith]=Locale')).to.deep.equal(['Locale publish']);
      await ok(app.http.post(`/api/page/${en}/unpublish`));
      expect(await titles(app.anon, '/api/page?locale=all&filters[title][$startsWith]=Locale')).to.deep.equal([]);
    });

    it('publish / unpublish ?locale=all act on every locale of the entry (and in bulk, one transaction)', async () => {
      const { en, fr } = await entry('All locales');
      const de = (await ok(app.http.post(`/api/page/${en}/localizations?locale=de`, { title: 'Alle' }))).data.id as number;
      const res = await ok(app.http.post(`/api/page/${fr}/publish?locale=all`));
      expect(res.data).to.include({ id: fr, _status: 'published' }); // the row the id names answers
      expect(await titles(app.anon, '/api/page?locale=all&filters[title][$startsWith]=All')).to.deep.equal(['All locales', 'All locales (fr)', 'Alle']);
      await ok(app.http.post(`/api/page/${de}/unpublish?locale=all`));
      expect(await titles(app.anon, '/api/page?locale=all&filters[title][$startsWith]=All')).to.deep.equal([]);
      // bulk with locale=all; one failing id (unknown) changes nothing
      const other = await entry('Allbulk');
      const bad = await app.http.post('/api/page/publish/bulk?locale=all', [en, other.en, 999999]);
      expect(bad.status, bad.text).to.equal(404);
      expect(await titles(app.anon, '/api/page?locale=all&filters[title][$startsWith]=All')).to.deep.equal([]);
      const bulk = await ok(app.http.post('/api/page/publish/bulk?locale=all', [en, other.en]));
      expect(bulk.data.map((r: { id: number }) => r.id)).to.deep.equal([en, other.en]);
      expect(await titles(app.anon, '/api/page?locale=all&filters[title][$startsWith]=All')).to.have.length(5);
      const unknown = await app.http.post(`/api/page/${en}/publish?locale=xx`);
      expect(unknown.status).to.equal(400);
      expect(unknown.body.error.message).to.include('en, fr, de, all');
    });

    it('status and locale together: an unpublished edit of one locale shows with status=draft only', async () => {
      const { en, fr } = await entry('Together');
      await ok(app.http.post(`/api/page/${en}/publish?locale=all`));
      await ok(app.http.patch(`/api/page/${en}?locale=fr`, { body: 'nouveau' }));
      const pub = await ok(app.anon.get(`/api/page/${en}?locale=fr`));
      expect(pub).to.include({ id: fr, body: null, _status: 'published', _hasUnpublishedChanges: true });
      const draft = await ok(app.http.get(`/api/page/${en}?locale=fr&status=draft`));
      expect(draft).to.include({ id: fr, body: 'nouveau', _status: 'draft', _hasUnpublishedChanges: true });
      expect((await ok(app.http.get(`/api/page/${en}?locale=en&status=draft`)))._hasUnpublishedChanges).to.equal(false);
      // a filter on the draft-only value finds nothing for readers, in any locale
      expect(await titles(app.anon, '/api/page?locale=all&filters[body][$eq]=nouveau')).to.deep.equal([]);
      expect(await titles(app.http, '/api/page?locale=fr&status=draft&filters[body][$eq]=nouveau')).to.deep.equal(['Together (fr)']);
      expect(await titles(app.http, '/api/page?locale=en&status=draft&filters[body][$eq]=nouveau')).to.deep.equal([]);
    });

    it('readers never see a draft-only locale: filters, locale=all, sort, grouping, status=draft', async () => {
      const { en } = await entry('Secretive', { price: 5 });
      await ok(app.http.post(`/api/page/${en}/publish`));
      await ok(app.http.patch(`/api/page/${en}?locale=fr`, { body: 'secret-fr' }));
      const q = (s: string): Promise<{ status: number; text: string; body: any }> => app.anon.get(`/api/page?${s}`);
      expect((await ok(q('locale=all&filters[body][$eq]=secret-fr'))).records).to.deep.equal([]);
      expect((await ok(q('locale=fr&filters[title][$startsWith]=Secretive'))).records).to.deep.equal([]);
      const all = await ok(q('locale=all&sort[0]=body:desc&filters[title][$startsWith]=Secretive'));
      expect(all.records.map((r: { localeName: string }) => r.localeName)).to.deep.equal(['en']);
      expect(JSON.stringify(all)).to.not.contain('secret-fr');
      const grouped = await ok(q('locale=all&groupBy[0]=body&aggregates[0]=id:count'));
      expect(JSON.stringify(grouped)).to.not.contain('secret-fr');
      const one = await ok(app.anon.get(`/api/page/${en}`));
      expect(one.localizations).to.deep.equal([]); // the fr row is not published: not listed to readers
      expect((await app.anon.get(`/api/page?locale=fr&status=draft`)).status).to.equal(401);
    });

    it('unique per locale in the published copies too: a draft may take a published value, publishing it may not', async () => {
      const a = (await ok(app.http.post('/api/page?status=published', { title: 'Uniq X' }))).data.id as number;
      await ok(app.http.patch(`/api/page/${a}`, { title: 'Uniq Y' })); // draft moves away; the published copy keeps Uniq X
      const b = (await ok(app.http.post('/api/page', { title: 'Uniq X' }))).data.id as number;
      const clash = await app.http.post(`/api/page/${b}/publish`);
      expect(clash.status, clash.text).to.equal(409);
      // the same value in another locale is no conflict, published or not
      const c = (await ok(app.http.post('/api/page?status=published', { title: 'Uniq Z' }))).data.id as number;
      await ok(app.http.post(`/api/page/${c}/localizations?locale=fr`, { title: 'Uniq X' }));
      await ok(app.http.post(`/api/page/${c}/publish?locale=fr`));
      expect(await titles(app.anon, '/api/page?locale=fr&filters[title][$eq]=Uniq X')).to.deep.equal(['Uniq X']);
      expect(await titles(app.anon, '/api/page?locale=en&filters[title][$eq]=Uniq X')).to.deep.equal(['Uniq X']);
    });

    it('shared values and links: edited in the drafts of every locale, published with any locale to every published copy', async () => {
      const l1 = (await ok(app.http.post('/api/label', { name: 'shared-l1' }))).data.id as number;
      const { en, fr } = await entry('Shared', { price: 10 });
      await ok(app.http.post(`/api/page/${en}/publish?locale=all`));
      await ok(app.http.patch(`/api/page/${en}`, { price: 20, labels: [l1] }));
      // readers: unchanged in both locales until a publish
      expect((await ok(app.anon.get(`/api/page/${en}?populate[0]=labels`)))).to.deep.include({ price: 10, labels: [] });
      expect((await ok(app.anon.get(`/api/page/${fr}`))).price).to.equal(10);
      // the fr draft has the shared value already
      expect((await ok(app.http.get(`/api/page/${fr}?status=draft`))).price).to.equal(20);
      // publishing fr publishes the entry's shared values: the en copy shows them too (its title is untouched)
      await ok(app.http.post(`/api/page/${fr}/publish`));
      const enCopy = await ok(app.anon.get(`/api/page/${en}?populate[0]=labels`));
      expect(enCopy).to.include({ price: 20, title: 'Shared' });
      expect(enCopy.labels.map((l: { id: number }) => l.id)).to.deep.equal([l1]);
      expect((await ok(app.anon.get(`/api/page/${fr}?populate[0]=labels`))).labels.map((l: { id: number }) => l.id)).to.deep.equal([l1]);
    });

    it('a shared write in one locale: every locale whose draft now differs from its published copy says _hasUnpublishedChanges', async () => {
      const l1 = (await ok(app.http.post('/api/label', { name: 'flag-l1' }))).data.id as number;
      const { en, fr } = await entry('Flagged', { labels: [l1] });
      const de = (await ok(app.http.post(`/api/page/${en}/localizations?locale=de`, { title: 'Markiert' }))).data.id as number;
      await ok(app.http.post(`/api/page/${en}/publish?locale=all`));
      const flags = async (): Promise<Record<string, boolean>> => {
        const out: Record<string, boolean> = {};
        for (const [l, id] of [['en', en], ['fr', fr], ['de', de]] as const) {
          const draft = await ok(app.http.get(`/api/page/${id}?status=draft`));
          const published = await ok(app.anon.get(`/api/page/${id}`));
          expect(published._hasUnpublishedChanges, `${l}: the published copy and the draft say the same`).to.equal(draft._hasUnpublishedChanges);
          out[l] = draft._hasUnpublishedChanges as boolean;
        }
        return out;
      };
      expect(await flags()).to.deep.equal({ en: false, fr: false, de: false });
      // a shared value through the default locale: the fr and de drafts hold it, their copies do not
      const patched = await ok(app.http.patch(`/api/page/${en}`, { price: 42 }));
      expect(patched.data._hasUnpublishedChanges).to.equal(true);
      expect((await ok(app.http.get(`/api/page/${fr}?status=draft`))).price).to.equal(42);
      expect((await ok(app.anon.get(`/api/page/${fr}`))).price).to.equal(null);
      expect(await flags()).to.deep.equal({ en: true, fr: true, de: true });
      await ok(app.http.post(`/api/page/${en}/publish?locale=all`));
      expect(await flags()).to.deep.equal({ en: false, fr: false, de: false });
      // through another locale: the default locale's draft changes too
      await ok(app.http.patch(`/api/page/${en}?locale=de`, { price: 99 }));
      expect(await flags()).to.deep.equal({ en: true, fr: true, de: true });
      await ok(app.http.post(`/api/page/${en}/publish?locale=all`));
      // a PUT of one locale with its title only clears the shared price and the links of every locale's draft
      const put = await ok(app.http.put(`/api/page/${fr}`, { title: 'Flagged (fr) bis' }));
      expect(put.data).to.include({ price: null, _hasUnpublishedChanges: true });
      const enDraft = await ok(app.http.get(`/api/page/${en}?status=draft&populate[0]=labels`));
      expect(enDraft).to.deep.include({ price: null, labels: [] });
      expect((await ok(app.anon.get(`/api/page/${en}?populate[0]=labels`)))).to.deep.include({ price: 99 });
      expect(await flags()).to.deep.equal({ en: true, fr: true, de: true });
      // a localized write stays the row's own: only that locale differs
      await ok(app.http.post(`/api/page/${en}/publish?locale=all`));
      await ok(app.http.patch(`/api/page/${en}?locale=de`, { body: 'nur Deutsch' }));
      expect(await flags()).to.deep.equal({ en: false, fr: false, de: true });
    });

    it('delete and recover per locale reach the published copies', async () => {
      const { en, fr } = await entry('Archive me');
      await ok(app.http.post(`/api/page/${en}/publish?locale=all`));
      await ok(app.http.del(`/api/page/${en}?locale=fr`));
      expect((await app.anon.get(`/api/page/${fr}`)).status).to.equal(404);
      expect(await titles(app.anon, '/api/page?locale=all&filters[title][$startsWith]=Archive')).to.deep.equal(['Archive me']);
      await ok(app.http.post(`/api/page/recover/${en}?locale=fr`));
      expect(await titles(app.anon, '/api/page?locale=all&filters[title][$startsWith]=Archive')).to.deep.equal(['Archive me', 'Archive me (fr)']);
      expect((await ok(app.anon.get(`/api/page/${fr}`)))._hasUnpublishedChanges).to.equal(false);
      await ok(app.http.del(`/api/page/${fr}?locale=all`));
      expect(await titles(app.anon, '/api/page?locale=all&filters[title][$startsWith]=Archive')).to.deep.equal([]);
      expect(await titles(app.http, '/api/page?locale=all&showSoftDeleted=exclusive&filters[title][$startsWith]=Archive')).to.deep.equal(['Archive me', 'Archive me (fr)']);
      await ok(app.http.post(`/api/page/recover/${en}?locale=all`));
      expect(await titles(app.anon, '/api/page?locale=all&filters[title][$startsWith]=Archive')).to.deep.equal(['Archive me', 'Archive me (fr)']);
      // an archived published locale does not block unpublishing the first row; recovered, it comes back unpublished
      await ok(app.http.del(`/api/page/${en}?locale=fr`));
      await ok(app.http.post(`/api/page/${en}/unpublish`));
      await ok(app.http.post(`/api/page/recover/${en}?locale=fr`));
      expect(await titles(app.anon, '/api/page?locale=all&filters[title][$startsWith]=Archive')).to.deep.equal([]);
      expect((await ok(app.http.get(`/api/page/${fr}?status=draft`)))).to.include({ publishedAt: null, _hasUnpublishedChanges: true });
    });
  });
}
