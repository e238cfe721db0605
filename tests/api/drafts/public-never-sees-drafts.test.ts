/**
 * Issue 14: a public client (no token; the public role may even be granted recover here) never sees a
 * draft, whatever the query string says: status=draft is refused, and filters on draft-only values,
 * sorting by a draft value, populate from both sides, grouping and aggregates, populateGroup, paging
 * meta and showSoftDeleted all run on published copies only.
 */
import { expect } from 'chai';
import qs from 'qs';
import { DIALECTS } from '../../helpers/dialects';
import { DRAFT_MODELS, created, listed } from '../../helpers/drafts';
import { startTestApp, type TestApp } from '../../helpers/test-app';

const q = (o: Record<string, unknown>): string => qs.stringify(o, { encodeValuesOnly: true });
/** Every value only a draft holds; a published answer containing one of them leaked a draft. */
const DRAFT_ONLY = ['DRAFT-ONLY', 'draft-category', '777', '888'];

for (const dialect of DIALECTS) {
  describe(`draft & publish: the public never sees a draft [${dialect}]`, () => {
    let app: TestApp;
    let pub: number;
    let draftOnly: number;
    let tag: number;
    let draftCategory: number;

    /** The answer's text never names a draft-only value nor the draft-only entry. */
    const clean = (text: string): void => {
      for (const v of DRAFT_ONLY) {
        // a number as a JSON value, not as digits of a timestamp ("…:12.777Z" is not a leak)
        if (/^\d+$/.test(v)) expect(text, `leaked ${v}`).to.not.match(new RegExp(`[:\\[,]${v}[,\\]}]`));
        else expect(text, `leaked ${v}`).to.not.contain(v);
      }
    };
    const ok = async (path: string): Promise<Record<string, any>> => {
      const res = await app.anon.get(path);
      expect(res.status, `${path}\n${res.text}`).to.equal(200);
      clean(res.text);
      return res.body;
    };
    const ids = (body: Record<string, any>): number[] => body.records.map((r: { id: number }) => r.id);

    before(async () => {
      app = await startTestApp(dialect, { contentTypesDir: DRAFT_MODELS });
      // Give public find + findOne on everything (YAML) and recover on article (through the admin API).
      const role = (await app.http.get('/api/role?filters[name][$eq]=public')).body.records[0].id as number;
      const perms = await listed(app.http, `/api/permission?${q({ filters: { action: { $in: ['article.find', 'article.findOne', 'article.recover', 'category.find', 'category.findOne', 'tag.find', 'tag.findOne'] } }, limit: 100 })}`);
      expect((await app.http.patch(`/api/role/${role}`, { permissions: perms.map((p) => p.id) })).status).to.equal(200);
      tag = await created(app.http, 'tag', { name: 'shared' });
      const cat = await created(app.http, 'category', { name: 'Public cat' }, 'published');
      draftCategory = await created(app.http, 'category', { name: 'draft-category' });
      pub = await created(app.http, 'article', { title: 'Public title', views: 1, categoryId: cat, tags: [tag] }, 'published');
      await created(app.http, 'article', { title: 'Second public', views: 2, categoryId: cat }, 'published');
      // the published entry's working copy holds draft-only values
      const edit = await app.http.patch(`/api/article/${pub}`, { title: 'DRAFT-ONLY title', body: 'DRAFT-ONLY body', views: 777, categoryId: draftCategory, tags: [] });
      expect(edit.status, edit.text).to.equal(200);
      // an entry that exists only as a draft, linked to the shared tag and the draft category
      draftOnly = await created(app.http, 'article', { title: 'DRAFT-ONLY entry', views: 888, categoryId: draftCategory, tags: [tag] });
      // an archived draft-only entry
      const archived = await created(app.http, 'article', { title: 'DRAFT-ONLY archived', views: 888 });
      expect((await app.http.del(`/api/article/${archived}`)).status).to.equal(200);
    });
    after(async () => app?.close());

    it('status=draft is refused to the public, on Find, FindOne and grouping', async () => {
      for (const path of ['/api/article?status=draft', `/api/article/${draftOnly}?status=draft`, '/api/article?status=draft&groupBy[0]=views', '/api/tag?status=draft&populate[0]=articles', '/api/category?status=draft']) {
        const res = await app.anon.get(path);
        expect(res.status, path).to.equal(401);
        clean(res.text);
      }
    });

    it('a draft-only entry is not found by id, by list or by count', async () => {
      expect((await app.anon.get(`/api/article/${draftOnly}`)).status).to.equal(404);
      const all = await ok('/api/article?limit=100');
      expect(ids(all)).to.not.include(draftOnly);
      expect(all.meta.totalRecords).to.equal(2);
      expect((await ok('/api/category?limit=100')).records.map((c: { id: number }) => c.id)).to.not.include(draftCategory);
      expect((await app.anon.get(`/api/category/${draftCategory}`)).status).to.equal(404);
    });

    it('filters on draft-only values match nothing', async () => {
      const filters = [
        { title: { $eq: 'DRAFT-ONLY title' } },
        { title: { $containsi: 'draft-only' } },
        { body: { $notNull: true } },
        { views: { $in: [777, 888] } },
        { views: { $gt: 100 } },
        { id: { $eq: draftOnly } },
        { categoryId: { $eq: draftCategory } },
        { category: { name: { $eq: 'draft-category' } } },
        { category: { id: { $eq: draftCategory } } },
        { publishedAt: { $null: true } },
        { $or: [{ title: { $startsWith: 'DRAFT' } }, { views: { $eq: 777 } }] },
        { $not: { title: { $notContains: 'DRAFT' } } },
      ];
      for (const f of filters) expect(ids(await ok(`/api/article?${q({ filters: f })}`)), JSON.stringify(f)).to.deep.equal([]);
      // a filter of a model without drafts through a relation into article sees published articles only
      expect(ids(await ok(`/api/tag?${q({ filters: { articles: { views: { $eq: 888 } } } })}`))).to.deep.equal([]);
      expect(ids(await ok(`/api/tag?${q({ filters: { articles: { title: { $eq: 'Public title' } } } })}`))).to.deep.equal([tag]);
      expect(ids(await ok(`/api/category?${q({ filters: { articles: { views: { $eq: 777 } } } })}`))).to.deep.equal([]);
    });

    it('sorting by a value the draft changed orders by the published value', async () => {
      expect(ids(await ok(`/api/article?${q({ sort: ['-views'] })}`))).to.deep.equal([pub + 1, pub]);
      expect(ids(await ok(`/api/article?${q({ sort: ['title'] })}`))).to.deep.equal([pub, pub + 1]);
      expect(ids(await ok(`/api/article?${q({ sort: ['category.name', '-id'] })}`))).to.deep.equal([pub + 1, pub]);
    });

    it('populate, both ways, shows published copies only', async () => {
      const a = await ok(`/api/article/${pub}?${q({ populate: ['category', 'tags'] })}`);
      expect(a.category.name).to.equal('Public cat');
      expect(a.tags.map((t: { id: number }) => t.id)).to.deep.equal([tag]);
      const t = await ok(`/api/tag/${tag}?${q({ populate: { articles: { fields: ['title', 'views', 'body'] } } })}`);
      expect(t.articles.map((x: { id: number }) => x.id)).to.deep.equal([pub]);
      await ok(`/api/category?${q({ populate: { articles: { populate: ['tags', 'category'] } } })}`);
      await ok(`/api/tag?${q({ populate: { articles: { populate: { category: { populate: ['articles'] } } } } })}`);
    });

    it('grouping, aggregates and populateGroup count published copies only', async () => {
      const g = await ok(`/api/article?${q({ groupBy: ['views'], aggregates: ['id:count', 'views:max'] })}`);
      expect(g.records.map((r: { views: number }) => r.views)).to.deep.equal([1, 2]);
      await ok(`/api/article?${q({ groupBy: ['categoryId'], aggregates: ['views:sum', 'views:avg', 'title:max'] })}`);
      await ok(`/api/article?${q({ groupBy: ['category.name'], aggregates: ['views:max'] })}`);
      await ok(`/api/article?${q({ groupBy: ['views'], populateGroup: true, populate: ['category', 'tags'] })}`);
      await ok(`/api/tag?${q({ groupBy: ['name'], aggregates: ['id:count'], filters: { articles: { views: { $gte: 0 } } } })}`);
    });

    it('showSoftDeleted (the public may recover here) shows archived published copies, never archived drafts', async () => {
      const archivedPub = await created(app.http, 'article', { title: 'Archived public', views: 5 }, 'published');
      await app.http.patch(`/api/article/${archivedPub}`, { views: 777 });
      expect((await app.http.del(`/api/article/${archivedPub}`)).status).to.equal(200);
      for (const scope of ['inclusive', 'exclusive']) {
        const body = await ok(`/api/article?${q({ showSoftDeleted: scope, limit: 100, populate: ['category'] })}`);
        expect(ids(body)).to.include(archivedPub);
        expect(ids(body)).to.not.include(draftOnly);
        expect(body.records.find((r: { id: number }) => r.id === archivedPub).views).to.equal(5);
        await ok(`/api/article?${q({ showSoftDeleted: scope, groupBy: ['views'], aggregates: ['id:count'] })}`);
      }
      await ok(`/api/article/${archivedPub}?showSoftDeleted=inclusive`);
    });
  });
}
