/**
 * Issues 14 and 15 together, both databases: publishing and unpublishing a draft-enabled model's entry
 * emits `record.publish` / `record.unpublish` in the same transaction (the published copy / the draft
 * left as the record), runs the `beforePublish` / `afterPublish` hooks (a refusal publishes nothing and
 * emits nothing), and a publish that fails emits nothing.
 */
import { expect } from 'chai';
import { enabledPlugins } from '../../../config/plugins';
import type { StoredEvent } from '../../../core/events/types';
import { HookError, type Plugin } from '../../../core/plugin-api';
import { DIALECTS } from '../../helpers/dialects';
import { created, DRAFT_MODELS, publish } from '../../helpers/drafts';
import { freshEvents } from '../../helpers/fresh-events';
import { startTestApp, type TestApp } from '../../helpers/test-app';

for (const dialect of DIALECTS) {
  describe(`events of publish and unpublish [${dialect}]`, () => {
    let app: TestApp;
    const calls: string[] = [];
    const events = freshEvents(() => app, 'article');
    const fresh = (): Promise<StoredEvent[]> => events.fresh();
    const recorder: Plugin = {
      name: 'publish-hooks',
      hooks: (deps) => [
        {
          models: ['article'],
          async beforePublish(ctx) {
            calls.push(`beforePublish ${ctx.id} ${ctx.mode}`);
            if (ctx.id === refused) throw new HookError(409, `article ${ctx.id} is embargoed`);
            // inside the write's transaction: a create that publishes at once has its row already
            const row = (await ctx.trx(deps.registry.get('article')!.table).select('title').where('id', ctx.id as number).first()) as { title: string };
            if (row.title.startsWith('Embargoed at once')) throw new HookError(409, `article "${row.title}" is embargoed`);
          },
          afterPublish(ctx) {
            calls.push(`afterPublish ${ctx.id} ${String(ctx.record.title)}`);
          },
          afterUnpublish(ctx) {
            calls.push(`afterUnpublish ${ctx.id}`);
          },
        },
      ],
    };
    let refused = -1;

    before(async () => {
      app = await startTestApp(dialect, { contentTypesDir: DRAFT_MODELS, plugins: [...enabledPlugins(), recorder] });
      await events.skipAll();
    });
    after(async () => app?.close());

    it('publish: record.publish carries the published copy; an edit after it is a record.update of the draft; unpublish: record.unpublish', async () => {
      const id = await created(app.http, 'article', { title: `First ${dialect}` });
      expect((await fresh()).map((e) => e.type)).to.deep.equal(['record.create']);
      await publish(app.http, 'article', id);
      const [published] = await fresh();
      expect(published).to.include({ type: 'record.publish', recordId: id });
      expect(published.record).to.include({ id, title: `First ${dialect}` });
      expect(published.record?.publishedAt).to.be.a('string');
      const edit = await app.http.patch(`/api/article/${id}`, { title: `First, edited ${dialect}` });
      expect(edit.status, edit.text).to.equal(200);
      expect((await fresh()).map((e) => [e.type, (e.record as { title?: string } | null)?.title])).to.deep.equal([['record.update', `First, edited ${dialect}`]]);
      const gone = await app.http.post(`/api/article/${id}/unpublish`);
      expect(gone.status, gone.text).to.equal(200);
      const [unpublished] = await fresh();
      expect(unpublished).to.include({ type: 'record.unpublish', recordId: id });
      expect(calls).to.include.members([`beforePublish ${id} publish`, `afterPublish ${id} First ${dialect}`, `afterUnpublish ${id}`]);
      // unpublishing again (or a never-published entry) changes nothing: 200, the draft, and no event
      const again = await app.http.post(`/api/article/${id}/unpublish`);
      expect(again.status, again.text).to.equal(200);
      expect(again.body.data).to.include({ id, _status: 'draft' });
      expect(await fresh(), 'no record.unpublish for an entry already unpublished').to.deep.equal([]);
      const never = await created(app.http, 'article', { title: `Never published ${dialect}` });
      await fresh();
      expect((await app.http.post(`/api/article/${never}/unpublish`)).status).to.equal(200);
      expect(await fresh(), 'no record.unpublish for what was not published').to.deep.equal([]);
    });

    it('a beforePublish hook refuses with its status and message: nothing published, no event', async () => {
      refused = await created(app.http, 'article', { title: `Embargoed ${dialect}` });
      await fresh();
      const res = await app.http.post(`/api/article/${refused}/publish`);
      expect(res.status, res.text).to.equal(409);
      expect(res.body.error.message).to.contain('embargoed');
      expect(await fresh()).to.deep.equal([]);
      expect((await app.http.get(`/api/article/${refused}`)).status, 'readers still see nothing').to.equal(404);
    });

    it('a create with status=published is a publish too: record.create, then record.publish with the published copy; beforePublish may refuse it', async () => {
      calls.splice(0);
      const id = await created(app.http, 'article', { title: `At once ${dialect}` }, 'published');
      const list = await fresh();
      expect(list.map((e) => [e.type, e.recordId])).to.deep.equal([
        ['record.create', id],
        ['record.publish', id],
      ]);
      const readers = (await app.anon.get(`/api/article/${id}`)).body;
      expect(readers._status).to.equal('published');
      expect(list[1].record).to.deep.equal(readers);
      // the create's record: the draft as FindOne with status=draft answers it
      expect(list[0].record).to.deep.equal((await app.http.get(`/api/article/${id}?status=draft`)).body);
      expect(calls).to.include.members([`beforePublish ${id} publish`, `afterPublish ${id} At once ${dialect}`]);
      // refused: nothing created, nothing announced
      const res = await app.http.post('/api/article?status=published', { title: `Embargoed at once ${dialect}` });
      expect(res.status, res.text).to.equal(409);
      expect(await fresh()).to.deep.equal([]);
      // in bulk: each record's create then its publish, in the order of the call
      const bulk = await app.http.post('/api/article/bulk?status=published', [{ title: `Bulk at once A ${dialect}` }, { title: `Bulk at once B ${dialect}` }]);
      expect(bulk.status, bulk.text).to.equal(200);
      const [a, b] = (bulk.body.data as { id: number }[]).map((r) => r.id);
      expect((await fresh()).map((e) => [e.type, e.recordId])).to.deep.equal([
        ['record.create', a],
        ['record.publish', a],
        ['record.create', b],
        ['record.publish', b],
      ]);
    });

    it('a bulk publish with one failing entry publishes none and emits none', async () => {
      const a = await created(app.http, 'article', { title: `Bulk A ${dialect}` });
      await fresh();
      const res = await app.http.post('/api/article/publish/bulk', [a, 999_999]);
      expect(res.status).to.equal(404);
      expect(await fresh()).to.deep.equal([]);
      expect((await app.http.get(`/api/article/${a}`)).status).to.equal(404);
    });
  });
}
