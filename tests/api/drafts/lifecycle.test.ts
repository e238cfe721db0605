/**
 * Issue 14, draft & publish: the editor's flow over HTTP. A create is a draft unless `status=published`;
 * publish / unpublish (and their bulk forms, one transaction) move what readers see; editing a published
 * entry changes nothing for readers until it is published again; answers say which version they show
 * and whether the entry has unpublished changes.
 */
import { expect } from 'chai';
import { DIALECTS } from '../../helpers/dialects';
import { DRAFT_MODELS, created, listed, publish, unpublish } from '../../helpers/drafts';
import { startTestApp, type TestApp } from '../../helpers/test-app';

for (const dialect of DIALECTS) {
  describe(`draft & publish: lifecycle [${dialect}]`, () => {
    let app: TestApp;

    before(async () => {
      app = await startTestApp(dialect, { contentTypesDir: DRAFT_MODELS });
    });
    after(async () => app?.close());

    it('a create is a draft: publishedAt null, absent for readers, present with status=draft', async () => {
      const res = await app.http.post('/api/article', { title: 'Draft one', views: 1 });
      expect(res.status, res.text).to.equal(200);
      const a = res.body.data;
      expect(a.publishedAt).to.equal(null);
      expect(a._status).to.equal('draft');
      expect(a._hasUnpublishedChanges).to.equal(true);
      expect((await app.anon.get(`/api/article/${a.id}`)).status).to.equal(404);
      expect((await app.http.get(`/api/article/${a.id}`)).status).to.equal(404);
      expect((await listed(app.http, '/api/article?filters[id][$eq]=' + a.id)).length).to.equal(0);
      const draft = await app.http.get(`/api/article/${a.id}?status=draft`);
      expect(draft.status, draft.text).to.equal(200);
      expect(draft.body).to.include({ title: 'Draft one', _status: 'draft', _hasUnpublishedChanges: true });
    });

    it('publish shows the entry to readers; an edit stays invisible until published again', async () => {
      const id = await created(app.http, 'article', { title: 'Typo tittle', body: 'v1' });
      const pub = await publish(app.http, 'article', id);
      expect(pub).to.include({ id, title: 'Typo tittle', _status: 'published', _hasUnpublishedChanges: false });
      expect(pub.publishedAt).to.be.a('string');
      const seen = await app.anon.get(`/api/article/${id}`);
      expect(seen.status, seen.text).to.equal(200);
      expect(seen.body).to.include({ title: 'Typo tittle', body: 'v1', _status: 'published', _hasUnpublishedChanges: false });

      const edit = await app.http.patch(`/api/article/${id}`, { title: 'Typo title', body: 'v2' });
      expect(edit.status, edit.text).to.equal(200);
      expect(edit.body.data).to.include({ title: 'Typo title', _status: 'draft', _hasUnpublishedChanges: true });
      expect((await app.anon.get(`/api/article/${id}`)).body).to.include({ title: 'Typo tittle', body: 'v1', _hasUnpublishedChanges: true });
      expect((await app.http.get(`/api/article/${id}?status=draft`)).body).to.include({ title: 'Typo title', body: 'v2', _status: 'draft' });
      // the draft's publishedAt says the entry has a published version
      expect((await app.http.get(`/api/article/${id}?status=draft`)).body.publishedAt).to.be.a('string');

      await publish(app.http, 'article', id);
      expect((await app.anon.get(`/api/article/${id}`)).body).to.include({ title: 'Typo title', body: 'v2', _hasUnpublishedChanges: false });
    });

    it('unpublish hides the entry from readers and keeps the working copy', async () => {
      const id = await created(app.http, 'article', { title: 'Going away' }, 'published');
      expect((await app.anon.get(`/api/article/${id}`)).status).to.equal(200);
      const un = await unpublish(app.http, 'article', id);
      expect(un).to.include({ id, title: 'Going away', publishedAt: null, _status: 'draft', _hasUnpublishedChanges: true });
      expect((await app.anon.get(`/api/article/${id}`)).status).to.equal(404);
      expect((await app.http.get(`/api/article/${id}?status=draft`)).body).to.include({ title: 'Going away', publishedAt: null });
      // unpublishing again is harmless
      await unpublish(app.http, 'article', id);
    });

    it('status=published on a create publishes at once, also in bulk; status=draft keeps drafts', async () => {
      const res = await app.http.post('/api/article?status=published', { title: 'Straight out' });
      expect(res.status, res.text).to.equal(200);
      expect(res.body.data.publishedAt).to.be.a('string');
      expect(res.body.data._hasUnpublishedChanges).to.equal(false);
      expect((await app.anon.get(`/api/article/${res.body.data.id}`)).body.title).to.equal('Straight out');
      const bulk = await app.http.post('/api/article/bulk?status=published', [{ title: 'Bulk out 1' }, { title: 'Bulk out 2' }]);
      expect(bulk.status, bulk.text).to.equal(200);
      for (const r of bulk.body.data) expect((await app.anon.get(`/api/article/${r.id}`)).status).to.equal(200);
      const drafted = await app.http.post('/api/article?status=draft', { title: 'Stays a draft' });
      expect(drafted.body.data.publishedAt).to.equal(null);
      expect((await app.anon.get(`/api/article/${drafted.body.data.id}`)).status).to.equal(404);
    });

    it('bulk publish and unpublish: one transaction; an unknown id changes nothing (404)', async () => {
      const a = await created(app.http, 'article', { title: 'Bulk A' });
      const b = await created(app.http, 'article', { title: 'Bulk B' });
      const bad = await app.http.post('/api/article/publish/bulk', [a, b, 999999]);
      expect(bad.status, bad.text).to.equal(404);
      expect((await app.anon.get(`/api/article/${a}`)).status).to.equal(404);
      const ok = await app.http.post('/api/article/publish/bulk', [a, b]);
      expect(ok.status, ok.text).to.equal(200);
      expect(ok.body.data.map((r: { id: number }) => r.id)).to.deep.equal([a, b]);
      expect((await app.anon.get(`/api/article/${a}`)).status).to.equal(200);
      expect((await app.anon.get(`/api/article/${b}`)).status).to.equal(200);
      const un = await app.http.post('/api/article/unpublish/bulk', [a, b]);
      expect(un.status, un.text).to.equal(200);
      expect((await app.anon.get(`/api/article/${a}`)).status).to.equal(404);
      expect((await app.anon.get(`/api/article/${b}`)).status).to.equal(404);
      expect((await app.http.post('/api/article/publish/bulk', [])).status).to.equal(400);
      expect((await app.http.post('/api/article/publish/bulk', [a, a])).status).to.equal(400);
    });

    it('a bulk publish whose second entry conflicts on a unique value publishes none (409)', async () => {
      const first = await created(app.http, 'article', { title: 'Unique X' }, 'published');
      await app.http.patch(`/api/article/${first}`, { title: 'Unique X renamed' }); // the draft frees the value, the published copy holds it
      const other = await created(app.http, 'article', { title: 'Fresh one' });
      const second = await created(app.http, 'article', { title: 'Unique X' }); // no conflict among working copies
      const res = await app.http.post('/api/article/publish/bulk', [other, second]);
      expect(res.status, res.text).to.equal(409);
      expect(res.body.error.details.fields).to.have.property('title');
      expect((await app.anon.get(`/api/article/${other}`)).status).to.equal(404);
      // once the first entry's rename is published, the value is free
      await publish(app.http, 'article', first);
      await publish(app.http, 'article', second);
      expect((await app.anon.get(`/api/article/${second}`)).body.title).to.equal('Unique X');
    });

    it('bad status values answer 400; publish routes of a model without drafts answer 404', async () => {
      const bad = await app.http.get('/api/article?status=all');
      expect(bad.status).to.equal(400);
      expect(bad.body.error.message).to.contain('status');
      expect((await app.http.get('/api/article/1?status=')).status).to.equal(400);
      expect((await app.http.post('/api/article?status=live', { title: 'never' })).status).to.equal(400);
      const tag = await created(app.http, 'tag', { name: 'plain' });
      expect((await app.http.post(`/api/tag/${tag}/publish`)).status).to.equal(404);
      expect((await app.http.post('/api/tag?status=published', { name: 'plain2' })).status).to.equal(400);
      // a model without drafts reads the same with either status
      expect((await listed(app.anon, '/api/tag?status=published')).map((t) => t.name)).to.include('plain');
      expect((await app.http.post('/api/article/999999/publish')).status).to.equal(404);
      expect((await app.http.post('/api/article/abc/publish')).status).to.equal(400);
    });

    it('a hard delete (model without soft delete) removes both copies; a published copy still naming it keeps it (409)', async () => {
      const lone = await created(app.http, 'category', { name: 'Short-lived' }, 'published');
      const del = await app.http.del(`/api/category/${lone}`);
      expect(del.status, del.text).to.equal(200);
      expect((await app.anon.get(`/api/category/${lone}`)).status).to.equal(404);
      expect((await app.http.get(`/api/category/${lone}?status=draft`)).status).to.equal(404);
      const used = await created(app.http, 'category', { name: 'In use' }, 'published');
      const art = await created(app.http, 'article', { title: 'Uses it', categoryId: used }, 'published');
      await app.http.patch(`/api/article/${art}`, { categoryId: null }); // the draft lets go; the published copy still names it
      const refused = await app.http.del(`/api/category/${used}`);
      expect(refused.status, refused.text).to.equal(409);
      expect((await app.anon.get(`/api/category/${used}`)).status).to.equal(200);
      await publish(app.http, 'article', art);
      expect((await app.http.del(`/api/category/${used}`)).status).to.equal(200);
    });

    it('concurrent publishes, unpublishes and edits of one entry all succeed; readers then see the last published state', async () => {
      const id = await created(app.http, 'article', { title: 'Busy', views: 0 }, 'published');
      const calls = await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          i % 3 === 0 ? app.http.post(`/api/article/${id}/publish`) : i % 3 === 1 ? app.http.patch(`/api/article/${id}`, { views: i }) : app.http.post(`/api/article/${id}/unpublish`),
        ),
      );
      for (const c of calls) expect(c.status, c.text).to.equal(200);
      await publish(app.http, 'article', id);
      const draft = await app.http.get(`/api/article/${id}?status=draft`);
      const seen = await app.anon.get(`/api/article/${id}`);
      expect(seen.body.views).to.equal(draft.body.views);
      expect(seen.body._hasUnpublishedChanges).to.equal(false);
      const copies = await app.deps.db('article__published').where('id', id).count({ n: '*' });
      expect(Number((copies as { n: number | string }[])[0].n)).to.equal(1);
    });

    it('models without drafts answer as before: no _status, publishedAt stays null', async () => {
      const res = await app.http.post('/api/tag', { name: 'as before' });
      expect(res.body.data).to.not.have.property('_status');
      expect(res.body.data.publishedAt).to.equal(null);
      const one = await app.anon.get(`/api/tag/${res.body.data.id}`);
      expect(one.body).to.not.have.property('_status');
    });
  });
}
