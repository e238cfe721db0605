/**
 * Issue 14: every Find feature on both versions. Readers (status=published) see the published copies:
 * filters, sort, fields, populate (a published entry populates the published version of its relations;
 * a relation target without one is absent), grouping, soft delete and recover, media and unique values
 * all work on them; status=draft runs the same features on the working copies.
 */
import { expect } from 'chai';
import qs from 'qs';
import { DIALECTS } from '../../helpers/dialects';
import { DRAFT_MODELS, created, listed, publish, unpublish } from '../../helpers/drafts';
import { sendForm, text } from '../../helpers/multipart';
import { startTestApp, type TestApp } from '../../helpers/test-app';

const q = (o: Record<string, unknown>): string => qs.stringify(o, { encodeValuesOnly: true });

for (const dialect of DIALECTS) {
  describe(`draft & publish: Find features on both versions [${dialect}]`, () => {
    let app: TestApp;
    let news: number;
    let hidden: number;
    let t1: number;
    let t2: number;
    let a1: number;
    let a2: number;

    before(async () => {
      app = await startTestApp(dialect, { contentTypesDir: DRAFT_MODELS, env: { PUBLIC_URL: 'https://cdn.example.test/' } });
      news = await created(app.http, 'category', { name: 'News' }, 'published');
      hidden = await created(app.http, 'category', { name: 'Hidden' }); // never published
      t1 = await created(app.http, 'tag', { name: 't1' });
      t2 = await created(app.http, 'tag', { name: 't2' });
      a1 = await created(app.http, 'article', { title: 'Alpha', views: 10, categoryId: news, tags: [t1] }, 'published');
      a2 = await created(app.http, 'article', { title: 'Beta', views: 20, categoryId: hidden, tags: [t1, t2] }, 'published');
      await created(app.http, 'article', { title: 'Gamma', views: 30, categoryId: news }); // a draft only
      // Working copies that differ from what is published:
      await app.http.patch(`/api/article/${a1}`, { title: 'Alpha v2', views: 99, categoryId: hidden, tags: [t2] });
    });
    after(async () => app?.close());

    it('filters compare published values for readers and working values with status=draft', async () => {
      expect((await listed(app.anon, `/api/article?${q({ filters: { views: { $gte: 50 } } })}`)).map((r) => r.id)).to.deep.equal([]);
      expect((await listed(app.anon, `/api/article?${q({ filters: { title: { $eq: 'Alpha' } } })}`)).map((r) => r.id)).to.deep.equal([a1]);
      expect((await listed(app.http, `/api/article?${q({ status: 'draft', filters: { views: { $gte: 50 } } })}`)).map((r) => r.id)).to.deep.equal([a1]);
      expect((await listed(app.http, `/api/article?${q({ status: 'draft', filters: { title: { $eq: 'Alpha' } } })}`))).to.deep.equal([]);
      // a relation filter reaches the published copy of the target: Hidden has none
      expect((await listed(app.anon, `/api/article?${q({ filters: { category: { name: { $eq: 'Hidden' } } } })}`))).to.deep.equal([]);
      expect((await listed(app.anon, `/api/article?${q({ filters: { category: { name: { $eq: 'News' } } } })}`)).map((r) => r.id)).to.deep.equal([a1]);
      expect((await listed(app.http, `/api/article?${q({ status: 'draft', filters: { category: { name: { $eq: 'Hidden' } } }, sort: ['id'] })}`)).map((r) => r.id)).to.deep.equal([a1, a2]);
      // many-to-many links: published a1 links t1 only; its draft links t2 only
      expect((await listed(app.anon, `/api/article?${q({ filters: { tags: { name: { $eq: 't2' } } } })}`)).map((r) => r.id)).to.deep.equal([a2]);
      expect((await listed(app.http, `/api/article?${q({ status: 'draft', filters: { tags: { name: { $eq: 't2' } } }, sort: ['id'] })}`)).map((r) => r.id)).to.deep.equal([a1, a2]);
    });

    it('sort, fields and paging meta run on the version read', async () => {
      const pub = await app.anon.get(`/api/article?${q({ sort: ['-views'], fields: ['title', 'views'] })}`);
      expect(pub.body.records.map((r: Record<string, unknown>) => r.title)).to.deep.equal(['Beta', 'Alpha']);
      expect(pub.body.records[0]).to.have.all.keys('id', 'title', 'views', '_status', '_hasUnpublishedChanges');
      expect(pub.body.meta.totalRecords).to.equal(2);
      const draft = await app.http.get(`/api/article?${q({ status: 'draft', sort: ['-views'], fields: ['title'] })}`);
      expect(draft.body.records.map((r: Record<string, unknown>) => r.title)).to.deep.equal(['Alpha v2', 'Gamma', 'Beta']);
      expect(draft.body.meta.totalRecords).to.equal(3);
      // sort across a relation
      expect((await listed(app.anon, `/api/article?${q({ sort: ['category.name', 'id'] })}`)).map((r) => r.id)).to.deep.equal([a2, a1]);
    });

    it('populate: a published entry shows published relations; a target never published is absent', async () => {
      const one = await app.anon.get(`/api/article/${a1}?${q({ populate: ['category', 'tags'] })}`);
      expect(one.status, one.text).to.equal(200);
      expect(one.body.category).to.include({ id: news, name: 'News' });
      expect(one.body.tags.map((t: { id: number }) => t.id)).to.deep.equal([t1]);
      const two = await app.anon.get(`/api/article/${a2}?${q({ populate: ['category'] })}`);
      expect(two.body.categoryId).to.equal(hidden); // the stored link…
      expect(two.body.category).to.equal(null); // …names no published category
      // the inverse sides: category → articles, tag (no drafts) → articles
      const cat = await app.anon.get(`/api/category/${news}?${q({ populate: ['articles'] })}`);
      expect(cat.body.articles.map((a: { id: number }) => a.id)).to.deep.equal([a1]);
      const tag = await app.anon.get(`/api/tag/${t1}?${q({ populate: ['articles'] })}`);
      expect(tag.body.articles.map((a: { title: string }) => a.title)).to.deep.equal(['Alpha', 'Beta']);
      const tagDraft = await app.http.get(`/api/tag/${t1}?${q({ status: 'draft', populate: ['articles'] })}`);
      expect(tagDraft.body.articles.map((a: { title: string }) => a.title)).to.deep.equal(['Beta']);
      // status=draft populates working copies
      const d = await app.http.get(`/api/article/${a1}?${q({ status: 'draft', populate: ['category', 'tags'] })}`);
      expect(d.body.category).to.include({ id: hidden, name: 'Hidden' });
      expect(d.body.tags.map((t: { id: number }) => t.id)).to.deep.equal([t2]);
      // editing a published category's working copy does not reach readers through populate
      await app.http.patch(`/api/category/${news}`, { name: 'News (renamed)' });
      expect((await app.anon.get(`/api/article/${a1}?${q({ populate: ['category'] })}`)).body.category.name).to.equal('News');
      await publish(app.http, 'category', news);
      expect((await app.anon.get(`/api/article/${a1}?${q({ populate: ['category'] })}`)).body.category.name).to.equal('News (renamed)');
    });

    it('populated records of draft-enabled models say their version too (_status, _hasUnpublishedChanges); others do not', async () => {
      const pub = await app.anon.get(`/api/tag/${t1}?${q({ populate: { articles: { populate: ['category'] } } })}`);
      expect(pub.status, pub.text).to.equal(200);
      expect(pub.body).to.not.have.property('_status'); // tag has no drafts
      const alpha = pub.body.articles.find((a: { id: number }) => a.id === a1);
      expect(alpha).to.include({ _status: 'published', _hasUnpublishedChanges: true }); // its working copy was edited
      expect(alpha.category).to.include({ id: news, _status: 'published' });
      const list = await app.anon.get(`/api/article?${q({ populate: ['tags', 'category'], sort: ['id'] })}`);
      expect(list.body.records[0].category).to.include({ _status: 'published' });
      for (const t of list.body.records[0].tags) expect(t).to.not.have.property('_status');
      const draft = await app.http.get(`/api/tag/${t2}?${q({ status: 'draft', populate: ['articles'] })}`);
      for (const a of draft.body.articles) expect(a).to.include({ _status: 'draft' });
      expect(draft.body.articles.find((a: { id: number }) => a.id === a1)._hasUnpublishedChanges).to.equal(true);
    });

    it('grouping and aggregates count the published copies only', async () => {
      const g = await app.anon.get(`/api/article?${q({ groupBy: ['categoryId'], aggregates: ['views:sum', 'id:count'], sort: ['categoryId'] })}`);
      expect(g.status, g.text).to.equal(200);
      expect(g.body.records).to.deep.equal([
        { categoryId: news, views_sum: 10, id_count: 1 },
        { categoryId: hidden, views_sum: 20, id_count: 1 },
      ].sort((x, y) => x.categoryId - y.categoryId));
      const d = await app.http.get(`/api/article?${q({ status: 'draft', groupBy: ['categoryId'], aggregates: ['views:sum'], sort: ['categoryId'] })}`);
      expect(d.body.records).to.deep.equal([
        { categoryId: news, views_sum: 30 },
        { categoryId: hidden, views_sum: 119 },
      ].sort((x, y) => x.categoryId - y.categoryId));
      // a key through a relation reads the published copy of the target: Hidden has none
      const byName = await app.anon.get(`/api/article?${q({ groupBy: ['category.name'], aggregates: ['id:count'], sort: ['category.name'] })}`);
      expect(byName.status, byName.text).to.equal(200);
      expect(byName.body.records).to.deep.equal([
        { 'category.name': null, id_count: 1 },
        { 'category.name': 'News (renamed)', id_count: 1 },
      ]);
      const rec = await app.anon.get(`/api/article?${q({ groupBy: ['views'], populateGroup: true, sort: ['views'] })}`);
      expect(rec.status, rec.text).to.equal(200);
      expect(rec.body.groupRecords.map((x: { records: { title: string }[] }) => x.records.map((r) => r.title))).to.deep.equal([['Alpha'], ['Beta']]);
      expect(rec.body.groupRecords[0].records[0]).to.include({ _status: 'published', _hasUnpublishedChanges: true });
    });

    it('soft delete archives both copies; recover brings both back', async () => {
      const id = await created(app.http, 'article', { title: 'Archivable' }, 'published');
      const del = await app.http.del(`/api/article/${id}`);
      expect(del.status, del.text).to.equal(200);
      expect((await app.anon.get(`/api/article/${id}`)).status).to.equal(404);
      expect((await app.http.get(`/api/article/${id}?status=draft`)).status).to.equal(404);
      const archived = await app.http.get(`/api/article?${q({ showSoftDeleted: 'exclusive', filters: { id: { $eq: id } } })}`);
      expect(archived.body.records.map((r: { id: number }) => r.id)).to.deep.equal([id]);
      expect(archived.body.records[0].deletedTracker).to.equal('deleted');
      // a new entry may take the archived one's title, and publish it
      const taker = await created(app.http, 'article', { title: 'Archivable' }, 'published');
      expect((await app.http.post(`/api/article/recover/${id}`)).status).to.equal(409);
      await app.http.del(`/api/article/${taker}`);
      const rec = await app.http.post(`/api/article/recover/${id}`);
      expect(rec.status, rec.text).to.equal(200);
      expect(rec.body.data.data).to.include({ _status: 'draft', _hasUnpublishedChanges: false });
      const back = await app.anon.get(`/api/article/${id}`);
      expect(back.status).to.equal(200);
      expect(back.body._hasUnpublishedChanges).to.equal(false);
      // publishing an archived entry: 404
      expect((await app.http.post(`/api/article/${taker}/publish`)).status).to.equal(404);
    });

    it('unique values: a draft never conflicts with its own published copy; two entries do', async () => {
      const id = await created(app.http, 'article', { title: 'Solo' }, 'published');
      const same = await app.http.patch(`/api/article/${id}`, { title: 'Solo', body: 'edited' });
      expect(same.status, same.text).to.equal(200);
      await publish(app.http, 'article', id);
      const clash = await app.http.post('/api/article', { title: 'Solo' });
      expect(clash.status).to.equal(409);
      expect(clash.body.error.details.fields).to.have.property('title');
      const put = await app.http.patch(`/api/article/${a2}`, { title: 'Solo' });
      expect(put.status).to.equal(409);
    });

    it('media: the published copy keeps its files while the draft changes them; publishing swaps them', async () => {
      const send = (path: string, method: string, fields: Record<string, unknown>, name: string, body: string) =>
        sendForm(app.url + path, method, fields, [{ part: 'cover', bytes: text(body), type: 'text/plain', name }], app.fetch, app.admin?.accessToken ?? null);
      const made = await send('/api/article?status=published', 'POST', { data: { title: 'With cover' } }, 'one.txt', 'first cover');
      expect(made.status, JSON.stringify(made.body)).to.equal(200);
      const id = made.body.data.id as number;
      const cover = async (client: typeof app.anon, status = 'published') => {
        const res = await client.get(`/api/article/${id}?${q({ status, populateMedia: ['cover'] })}`);
        expect(res.status, res.text).to.equal(200);
        return res.body._media.cover as { name: string; _full_url: string }[];
      };
      const path = (u: string): string => new URL(u).pathname;
      const first = await cover(app.anon);
      expect(first.map((m) => m.name)).to.deep.equal(['one.txt']);
      const replaced = await send(`/api/article/${id}`, 'PATCH', { data: {} }, 'two.txt', 'second cover');
      expect(replaced.status, JSON.stringify(replaced.body)).to.equal(200);
      expect((await cover(app.anon)).map((m) => m.name)).to.deep.equal(['one.txt']);
      expect((await cover(app.http, 'draft')).map((m) => m.name)).to.deep.equal(['two.txt']);
      // the published file is still served though the draft dropped it
      const served = await fetch(app.url + path(first[0]._full_url));
      expect(served.status).to.equal(200);
      expect(await served.text()).to.equal('first cover');
      await publish(app.http, 'article', id);
      expect((await cover(app.anon)).map((m) => m.name)).to.deep.equal(['two.txt']);
      // the old file is no longer named by any row: gone (deleted after the commit, in the background)
      let status = 200;
      for (let i = 0; i < 50 && status === 200; i++) {
        status = (await fetch(app.url + path(first[0]._full_url))).status;
        if (status === 200) await new Promise((r) => setTimeout(r, 50));
      }
      expect(status).to.equal(404);
      await unpublish(app.http, 'article', id);
      expect((await cover(app.http, 'draft')).map((m) => m.name)).to.deep.equal(['two.txt']);
    });
  });
}
