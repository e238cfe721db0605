/**
 * Issue 16 × issue 14: row-level rules and field lists on a model with draft & publish and locales
 * (tests/fixtures/ruled-content), over HTTP on every database:
 * - publish / unpublish (single, bulk, every `locale=` form) and a create with `status=published` reach only
 *   the rows the caller's `<model>.publish` rule matches (README: the permission of all four endpoints);
 * - their answers leave out what the caller may not read, as every other write answer does;
 * - a `findDrafts` rule narrows `status=draft` reads (Find, FindOne, grouping, populate, relation filters), AND-ed
 *   with the `find` / `findOne` rule; published reads are not narrowed by it; the response cache keeps them apart;
 * - `POST …/localizations` (permission `create`) reaches only entries inside the create rule, and the new
 *   locale row must be inside it too;
 * - `_status` does not depend on the fields the caller may read.
 */
import { expect } from 'chai';
import { join } from 'node:path';
import qs from 'qs';
import { DIALECTS } from '../../helpers/dialects';
import type { Client, Reply } from '../../helpers/http';
import { ROOT, startTestApp, type TestApp, type TestUser } from '../../helpers/test-app';

const MODELS = join(ROOT, 'tests', 'fixtures', 'ruled-content');
const LOCALES = { LOCALES: 'en,fr,de', DEFAULT_LOCALE: 'en' };
const q = (o: Record<string, unknown>): string => qs.stringify(o, { encodeValuesOnly: true });
const OWN = { createdById: { $eq: '$actor.id' } };
const OK = { title: { $startsWith: 'OK' } };

for (const dialect of DIALECTS) {
  describe(`identity: row rules and field lists on drafts and locales [${dialect}]`, () => {
    let app: TestApp;
    let ed: TestUser;
    let roleId: number;
    const ruleIds: Record<string, number> = {};
    const tag = Date.now().toString(36);
    let n = 0;

    const rule = async (action: string, where: unknown, fields: unknown = null): Promise<number> => {
      const res = await app.http.post('/api/access-rule', { roleId, action, where, fields });
      expect(res.status, res.text).to.equal(200);
      return res.body.data.id;
    };
    /** A new entry (its en row) written by `http`; the title gets a unique suffix. */
    const page = async (http: Client, title: string, extra: Record<string, unknown> = {}): Promise<number> => {
      const res = await http.post('/api/page', { title: `${title}-${tag}-${++n}`, ...extra });
      expect(res.status, res.text).to.equal(200);
      return res.body.data.id;
    };
    const localize = async (http: Client, id: number, locale: string, title: string): Promise<number> => {
      const res = await http.post(`/api/page/${id}/localizations?locale=${locale}`, { title: `${title}-${tag}-${++n}` });
      expect(res.status, res.text).to.equal(200);
      return res.body.data.id;
    };
    const ok = async (r: Promise<Reply>): Promise<Reply> => {
      const res = await r;
      expect(res.status, res.text).to.equal(200);
      return res;
    };
    /** Whether readers see row `id` (the published view). */
    const published = async (id: number): Promise<boolean> => {
      const res = await app.anon.get(`/api/page?${q({ locale: 'all', filters: { id: { $eq: String(id) } } })}`);
      expect(res.status, res.text).to.equal(200);
      return res.body.meta.totalRecords === 1;
    };
    const notFound = (res: Reply, message: string): void => {
      expect(res.status, res.text).to.equal(404);
      expect(res.body.error.message).to.equal(message);
      expect(res.body).to.not.have.property('data');
    };

    before(async () => {
      app = await startTestApp(dialect, { contentTypesDir: MODELS, env: LOCALES });
      const role = await app.http.post('/api/role', { name: `pub-${tag}` });
      expect(role.status, role.text).to.equal(200);
      roleId = role.body.data.id;
      ed = await app.createUser({ roles: [`pub-${tag}`, 'authenticated'] });
      // Publishers: read and publish pages titled OK…, create pages titled O…, read their own drafts only;
      // read writers named Public… only.
      ruleIds.find = await rule('page.find', OK, ['title', 'writer']);
      ruleIds.findOne = await rule('page.findOne', OK, ['title', 'writer']);
      await rule('page.publish', OK);
      await rule('page.create', { title: { $startsWith: 'O' } });
      await rule('page.findDrafts', OWN);
      await rule('writer.find', { name: { $startsWith: 'Public' } });
    });
    after(async () => app?.close());

    describe('publish and unpublish reach only the rows the publish rule matches', () => {
      it('one id outside the rule: 404 as for a missing one, nothing published or unpublished', async () => {
        const bad = await page(app.http, 'Bad');
        notFound(await ed.http.post(`/api/page/${bad}/publish`), `no page with id ${bad}`);
        expect(await published(bad)).to.equal(false);
        await ok(app.http.post(`/api/page/${bad}/publish`));
        notFound(await ed.http.post(`/api/page/${bad}/unpublish`), `no page with id ${bad}`);
        expect(await published(bad), 'still published').to.equal(true);
        const good = await page(app.http, 'OK');
        await ok(ed.http.post(`/api/page/${good}/publish`));
        expect(await published(good)).to.equal(true);
        await ok(ed.http.post(`/api/page/${good}/unpublish`));
        expect(await published(good)).to.equal(false);
      });

      it('bulk: one id outside the rule → 404 naming it, and the call changes nothing', async () => {
        const good = await page(app.http, 'OK');
        const bad = await page(app.http, 'Bad');
        const res = await ed.http.post('/api/page/publish/bulk', [good, bad]);
        expect(res.status, res.text).to.equal(404);
        expect(res.body.error.details.missingIds).to.deep.equal([bad]);
        expect(await published(good), 'one transaction').to.equal(false);
        expect(await published(bad)).to.equal(false);
        await ok(app.http.post('/api/page/publish/bulk', [good, bad]));
        const un = await ed.http.post('/api/page/unpublish/bulk', [good, bad]);
        expect(un.status, un.text).to.equal(404);
        expect(un.body.error.details.missingIds).to.deep.equal([bad]);
        expect(await published(good), 'one transaction').to.equal(true);
        expect(await published(bad)).to.equal(true);
        await ok(ed.http.post('/api/page/unpublish/bulk', [good]));
        expect(await published(good)).to.equal(false);
      });

      it('every locale form: a locale row outside the rule is out of reach, and with locale=all nothing changes', async () => {
        const en = await page(app.http, 'OK');
        const fr = await localize(app.http, en, 'fr', 'Bad');
        notFound(await ed.http.post(`/api/page/${en}/publish?locale=fr`), `no page with id ${en}`);
        notFound(await ed.http.post(`/api/page/${fr}/publish`), `no page with id ${fr}`);
        notFound(await ed.http.post(`/api/page/${en}/publish?locale=all`), `no page with id ${en}`);
        const bulk = await ed.http.post('/api/page/publish/bulk?locale=all', [en]);
        expect(bulk.status, bulk.text).to.equal(404);
        expect(bulk.body.error.details.missingIds).to.deep.equal([en]);
        // the probe's case: a bulk call naming another locale row of an entry
        const byRow = await ed.http.post('/api/page/publish/bulk?locale=all', [fr]);
        expect(byRow.status, byRow.text).to.equal(404);
        expect(byRow.body.error.details.missingIds).to.deep.equal([fr]);
        expect([await published(en), await published(fr)], 'nothing published').to.deep.equal([false, false]);
        await ok(ed.http.post(`/api/page/${fr}/publish?locale=en`));
        expect([await published(en), await published(fr)]).to.deep.equal([true, false]);
        await ok(app.http.post(`/api/page/${en}/publish?locale=all`));
        notFound(await ed.http.post(`/api/page/${en}/unpublish?locale=fr`), `no page with id ${en}`);
        notFound(await ed.http.post(`/api/page/${en}/unpublish?locale=all`), `no page with id ${en}`);
        const unBulk = await ed.http.post('/api/page/unpublish/bulk?locale=fr', [en]);
        expect(unBulk.status, unBulk.text).to.equal(404);
        expect(unBulk.body.error.details.missingIds).to.deep.equal([en]);
        expect([await published(en), await published(fr)], 'nothing unpublished').to.deep.equal([true, true]);
        // both rows inside the rule: every form works
        const en2 = await page(app.http, 'OK');
        const fr2 = await localize(app.http, en2, 'fr', 'OK');
        await ok(ed.http.post('/api/page/publish/bulk?locale=all', [en2]));
        expect([await published(en2), await published(fr2)]).to.deep.equal([true, true]);
        await ok(ed.http.post(`/api/page/${en2}/unpublish?locale=all`));
        expect([await published(en2), await published(fr2)]).to.deep.equal([false, false]);
      });

      it('a create with status=published must land inside the publish rule (403, nothing written)', async () => {
        const title = `Odd-${tag}`;
        const res = await ed.http.post('/api/page?status=published', { title });
        expect(res.status, res.text).to.equal(403);
        expect(res.body.error.message).to.contain('outside your rule for page.publish');
        const bulk = await ed.http.post('/api/page/bulk?status=published', [{ title: `OK-${tag}-b1` }, { title: `${title}-b2` }]);
        expect(bulk.status, bulk.text).to.equal(403);
        const written = await app.http.get(`/api/page?${q({ status: 'draft', locale: 'all', filters: { title: { $in: [title, `OK-${tag}-b1`, `${title}-b2`] } } })}`);
        expect(written.body.meta.totalRecords, 'nothing written').to.equal(0);
        const now = await ok(ed.http.post('/api/page?status=published', { title: `OK-${tag}-now` }));
        expect(await published(now.body.data.id)).to.equal(true);
      });
    });

    describe('publish and unpublish answers show no more than a read', () => {
      it('fields outside the find / findOne lists are absent; a related record under a rule shows as { id }', async () => {
        const writer = (await ok(app.http.post('/api/writer', { name: `Secret-${tag}` }))).body.data.id;
        const label = (await ok(app.http.post('/api/label', { name: `L-${tag}-answers` }))).body.data.id;
        const id = await page(app.http, 'OK', { body: 'text', price: 3, meta: { x: 1 }, secretNote: 's', writerId: writer, labels: [label] });
        const full = (await ok(app.http.post(`/api/page/${id}/publish`))).body.data;
        expect(full).to.include.keys('body', 'price', 'meta', 'writerId', 'writer');
        for (const path of [`/api/page/${id}/publish`, `/api/page/${id}/unpublish`]) {
          const data = (await ok(ed.http.post(path))).body.data;
          expect(data, path).to.include({ id, title: full.title });
          expect(data, path).to.not.have.any.keys('body', 'price', 'meta', 'secretNote');
          expect(data.writer, path).to.deep.equal({ id: writer });
        }
        const [bulk] = (await ok(ed.http.post('/api/page/publish/bulk', [id]))).body.data;
        expect(bulk).to.not.have.any.keys('body', 'price', 'meta', 'secretNote');
        // a field outside the findOne list is left out too, from every write answer
        await ok(app.http.patch(`/api/access-rule/${ruleIds.findOne}`, { fields: ['title'] }));
        try {
          for (const path of [`/api/page/${id}/publish`, `/api/page/${id}/unpublish`]) {
            const data = (await ok(ed.http.post(path))).body.data;
            expect(data, path).to.not.have.any.keys('body', 'price', 'meta', 'secretNote', 'writer', 'writerId');
          }
          const created = (await ok(ed.http.post('/api/page', { title: `OK-${tag}-c`, writerId: writer }))).body.data;
          expect(created).to.include.keys('title');
          expect(created).to.not.have.any.keys('writer', 'writerId');
        } finally {
          await ok(app.http.patch(`/api/access-rule/${ruleIds.findOne}`, { fields: ['title', 'writer'] }));
        }
      });

      it('a record the caller may not read never comes back from publish or unpublish', async () => {
        const hidden = await page(app.http, 'Hidden', { body: 'secret body' });
        await ok(app.http.post(`/api/page/${hidden}/publish`));
        notFound(await ed.http.get(`/api/page/${hidden}`), `no page with id ${hidden}`);
        notFound(await ed.http.post(`/api/page/${hidden}/unpublish`), `no page with id ${hidden}`);
        notFound(await ed.http.post(`/api/page/${hidden}/publish`), `no page with id ${hidden}`);
      });
    });

    describe('findDrafts rules', () => {
      const titles = (res: Reply): string[] => (res.body.records as { title: string }[]).map((r) => r.title).sort();
      let mine: number;
      let his: number;
      let admins: number;
      let label: number;
      let ed2: TestUser;

      before(async () => {
        ed2 = await app.createUser({ roles: [`pub-${tag}`, 'authenticated'] });
        label = (await ok(app.http.post('/api/label', { name: `L-${tag}-drafts` }))).body.data.id;
        admins = await page(app.http, 'OK-D', { labels: [label] });
        mine = await page(ed.http, 'OK-D', { labels: [label] });
        his = await page(ed2.http, 'OK-D', { labels: [label] });
        await page(ed.http, 'Other-D'); // his own, but outside the find rule
      });
      const drafts = { status: 'draft', locale: 'all', filters: { title: { $contains: '-D-' } } };

      it('status=draft lists and counts only the drafts the rule matches, AND-ed with the find rule', async () => {
        const a = await ok(ed.http.get(`/api/page?${q(drafts)}`));
        expect(a.body.records.map((r: { id: number }) => r.id)).to.deep.equal([mine]);
        expect(a.body.meta.totalRecords).to.equal(1);
        const b = await ok(ed2.http.get(`/api/page?${q(drafts)}`));
        expect(b.body.records.map((r: { id: number }) => r.id)).to.deep.equal([his]);
        expect((await ok(app.http.get(`/api/page?${q(drafts)}`))).body.meta.totalRecords).to.equal(4);
        const grouped = await ok(ed.http.get(`/api/page?${q({ ...drafts, groupBy: ['createdById'], aggregates: ['id:count'] })}`));
        expect(grouped.body.records.map((r: { createdById: number; id_count: number }) => [r.createdById, r.id_count])).to.deep.equal([[ed.id, 1]]);
        expect(grouped.body.meta.totalRecords).to.equal(1);
      });

      it('FindOne with status=draft: another user\'s draft answers 404, as a missing one does', async () => {
        await ok(ed.http.get(`/api/page/${mine}?status=draft`));
        notFound(await ed.http.get(`/api/page/${admins}?status=draft`), `no page with id ${admins}`);
        notFound(await ed.http.get(`/api/page/${his}?status=draft`), `no page with id ${his}`);
        await ok(ed2.http.get(`/api/page/${his}?status=draft`));
      });

      it('through populate and relation filters a draft read reaches only the drafts the rule matches', async () => {
        const populated = await ok(ed.http.get(`/api/label/${label}?${q({ status: 'draft', populate: { pages: { fields: ['title'] } } })}`));
        expect((populated.body.pages as { id: number }[]).map((p) => p.id)).to.deep.equal([mine]);
        const adminTitle = (await ok(app.http.get(`/api/page/${admins}?status=draft`))).body.title;
        const probe = await ok(ed.http.get(`/api/label?${q({ status: 'draft', filters: { pages: { title: { $eq: adminTitle } } } })}`));
        expect(probe.body.meta.totalRecords, 'a relation filter cannot probe drafts outside the rule').to.equal(0);
        const mineTitle = (await ok(ed.http.get(`/api/page/${mine}?status=draft`))).body.title;
        const own = await ok(ed.http.get(`/api/label?${q({ status: 'draft', filters: { pages: { title: { $eq: mineTitle } } } })}`));
        expect(own.body.records.map((r: { id: number }) => r.id)).to.deep.equal([label]);
      });

      it('published reads are not narrowed by the findDrafts rule', async () => {
        await ok(app.http.post('/api/page/publish/bulk', [admins, mine, his]));
        const list = await ok(ed.http.get(`/api/page?${q({ locale: 'all', filters: { title: { $contains: '-D-' } } })}`));
        expect(titles(list)).to.have.length(3);
        await ok(ed.http.get(`/api/page/${admins}`));
        const populated = await ok(ed.http.get(`/api/label/${label}?${q({ populate: { pages: { fields: ['title'] } } })}`));
        expect((populated.body.pages as { id: number }[]).map((p) => p.id).sort((x, y) => x - y)).to.deep.equal([admins, mine, his].sort((x, y) => x - y));
      });
    });

    describe('localizations', () => {
      it('the new locale row must be inside the create rule (403, nothing written)', async () => {
        const entry = await page(ed.http, 'OK-E');
        const title = `BAD-${tag}-fr`;
        const res = await ed.http.post(`/api/page/${entry}/localizations?locale=fr`, { title });
        expect(res.status, res.text).to.equal(403);
        expect(res.body.error.message).to.contain('outside your rule for page.create');
        const written = await app.http.get(`/api/page?${q({ status: 'draft', locale: 'all', filters: { title: { $eq: title } } })}`);
        expect(written.body.meta.totalRecords, 'nothing written').to.equal(0);
        await localize(ed.http, entry, 'fr', 'OK-fr');
      });

      it('an entry outside the create rule cannot be localized: 404, as a missing one', async () => {
        const entry = await page(app.http, 'Bad-E');
        const title = `OK-${tag}-on-bad`;
        notFound(await ed.http.post(`/api/page/${entry}/localizations?locale=de`, { title }), `no page with id ${entry}`);
        const written = await app.http.get(`/api/page?${q({ status: 'draft', locale: 'all', filters: { title: { $eq: title } } })}`);
        expect(written.body.meta.totalRecords, 'nothing written').to.equal(0);
        // naming another locale row of an entry inside the rule: that row is what the call names
        const inside = await page(app.http, 'OK-E');
        const badRow = await localize(app.http, inside, 'fr', 'Bad-fr');
        notFound(await ed.http.post(`/api/page/${badRow}/localizations?locale=de`, { title }), `no page with id ${badRow}`);
        await localize(ed.http, inside, 'de', 'OK-de');
      });
    });

    describe('_status under field lists', () => {
      it('the version shown does not depend on the fields the caller may read', async () => {
        const label = (await ok(app.http.post('/api/label', { name: `L-${tag}-status` }))).body.data.id;
        const id = await page(app.http, 'OK-S', { labels: [label] });
        await ok(app.http.post(`/api/page/${id}/publish`));
        await ok(app.http.patch(`/api/page/${id}`, { body: 'changed' }));
        const path = `/api/page?${q({ filters: { id: { $eq: String(id) } } })}`;
        const admin = (await ok(app.http.get(path))).body.records[0];
        expect(admin).to.include({ _status: 'published', _hasUnpublishedChanges: true });
        const mine = (await ok(ed.http.get(path))).body.records[0];
        expect(mine).to.include({ _status: 'published', _hasUnpublishedChanges: true });
        expect(mine).to.not.have.property('body');
        expect((await ok(ed.http.get(`/api/page/${id}`))).body).to.include({ _status: 'published', _hasUnpublishedChanges: true });
        const populated = await ok(ed.http.get(`/api/label/${label}?${q({ populate: { pages: { fields: ['title'] } } })}`));
        expect(populated.body.pages[0]).to.include({ id, _status: 'published', _hasUnpublishedChanges: true });
        const answer = (await ok(ed.http.post(`/api/page/${id}/publish`))).body.data;
        expect(answer).to.include({ _status: 'published', _hasUnpublishedChanges: false });
        const draft = await page(ed.http, 'OK-S');
        expect((await ok(ed.http.get(`/api/page/${draft}?status=draft`))).body).to.include({ _status: 'draft', _hasUnpublishedChanges: true });
      });
    });

    describe('the response cache', () => {
      it('a findDrafts rule naming $actor.id keeps each user\'s drafts his own in the cache', async () => {
        const cached = await startTestApp(dialect, { contentTypesDir: MODELS, env: { ...LOCALES, CACHE: 'memory' } });
        try {
          const role = await ok(cached.http.post('/api/role', { name: `cached-${tag}` }));
          for (const [action, where] of [['page.find', null], ['page.create', null], ['page.findDrafts', OWN]] as const) {
            await ok(cached.http.post('/api/access-rule', { roleId: role.body.data.id, action, where }));
          }
          const u1 = await cached.createUser({ roles: [`cached-${tag}`] });
          const u2 = await cached.createUser({ roles: [`cached-${tag}`] });
          const d1 = (await ok(u1.http.post('/api/page', { title: `C1-${tag}` }))).body.data.id;
          const d2 = (await ok(u2.http.post('/api/page', { title: `C2-${tag}` }))).body.data.id;
          for (let i = 0; i < 3; i++) {
            expect((await ok(u1.http.get('/api/page?status=draft'))).body.records.map((r: { id: number }) => r.id)).to.deep.equal([d1]);
            expect((await ok(u2.http.get('/api/page?status=draft'))).body.records.map((r: { id: number }) => r.id)).to.deep.equal([d2]);
          }
        } finally {
          await cached.close();
        }
      });
    });
  });
}
