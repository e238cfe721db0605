/**
 * Realtime and drafts (issues 14 and 15), both databases: a draft-enabled model's record events carry its
 * working copy, so a stream of that model needs `findDrafts` besides `find`; a reader holding `find`
 * alone is refused at connect (the public never sees a draft through a stream), an editor gets them, and
 * an editor under a `findDrafts` rule (issue 16) only the drafts it matches.
 */
import { expect } from 'chai';
import { DIALECTS } from '../../helpers/dialects';
import { created, DRAFT_MODELS } from '../../helpers/drafts';
import { openSse } from '../../helpers/sse';
import { startTestApp, type TestApp, type TestUser } from '../../helpers/test-app';

for (const dialect of DIALECTS) {
  describe(`realtime streams of a draft-enabled model [${dialect}]`, () => {
    let app: TestApp;
    let reader: TestUser;

    before(async () => {
      app = await startTestApp(dialect, { contentTypesDir: DRAFT_MODELS });
      reader = await app.createUser({ roles: ['authenticated'] });
    });
    after(async () => app?.close());

    it('a reader with find but not findDrafts is refused (403 naming findDrafts); the public too (401)', async () => {
      const read = await reader.http.get('/api/article');
      expect(read.status, 'the reader may Find published articles').to.equal(200);
      const refused = await openSse(`${app.url}/api/realtime?models=article`, { Authorization: `Bearer ${reader.accessToken}` });
      expect(refused.status).to.equal(403);
      expect(JSON.stringify(refused.body)).to.contain('article.findDrafts');
      const anonymous = await openSse(`${app.url}/api/realtime?models=article`);
      expect(anonymous.status).to.equal(401);
      // A model without drafts streams to the same reader as before.
      const tags = await openSse(`${app.url}/api/realtime?models=tag`, { Authorization: `Bearer ${reader.accessToken}` });
      expect(tags.status, JSON.stringify(tags.body)).to.equal(200);
      const id = (await app.http.post('/api/tag', { name: `streamed ${dialect}` })).body.data.id as number;
      await tags.waitFor((x) => x.event === 'record.create' && (x.data as { recordId: number }).recordId === id);
      tags.close();
    });

    it('a filter through a relation into a draft-enabled model reads its published entries, as Find does (no draft leaks through a filter)', async () => {
      const tag = (await app.http.post('/api/tag', { name: `filtered ${dialect}` })).body.data.id as number;
      const title = `Secret draft ${dialect}`;
      const article = await created(app.http, 'article', { title, tags: [tag] });
      const filter = `filters[articles][title][$eq]=${encodeURIComponent(title)}`;
      expect((await reader.http.get(`/api/tag?${filter}`)).body.records, 'Find reads published articles only').to.have.length(0);
      const stream = await openSse(`${app.url}/api/realtime?models=tag&${filter}`, { Authorization: `Bearer ${reader.accessToken}` });
      expect(stream.status, JSON.stringify(stream.body)).to.equal(200);
      // An unfiltered stream shows when the first update has gone out (a filter is evaluated at send time).
      const all = await openSse(`${app.url}/api/realtime?models=tag`, { Authorization: `Bearer ${app.admin!.accessToken}` });
      const hidden = (await app.http.patch(`/api/tag/${tag}`, { name: `filtered ${dialect} 1` })).body;
      await all.waitFor((x) => x.event === 'record.update' && (x.data as { recordId: number }).recordId === tag);
      all.close();
      await new Promise((r) => setTimeout(r, 300));
      expect(hidden.data.name).to.equal(`filtered ${dialect} 1`);
      expect((await app.http.post(`/api/article/${article}/publish`)).status).to.equal(200);
      expect((await reader.http.get(`/api/tag?${filter}`)).body.records, 'published: Find matches now').to.have.length(1);
      await app.http.patch(`/api/tag/${tag}`, { name: `filtered ${dialect} 2` });
      await stream.waitFor((x) => x.event === 'record.update' && (x.data as { record: { name: string } }).record.name === `filtered ${dialect} 2`);
      const names = stream.events.filter((x) => x.event === 'record.update').map((x) => (x.data as { record: { name: string } }).record.name);
      expect(names, 'the update made while the article was a draft only was not sent').to.deep.equal([`filtered ${dialect} 2`]);
      stream.close();
    });

    it('an editor holding findDrafts receives the draft events', async () => {
      const stream = await openSse(`${app.url}/api/realtime?models=article`, { Authorization: `Bearer ${app.admin!.accessToken}` });
      expect(stream.status).to.equal(200);
      const id = await created(app.http, 'article', { title: `Streamed draft ${dialect}` });
      const e = await stream.waitFor((x) => x.event === 'record.create' && (x.data as { recordId: number }).recordId === id);
      expect((e.data as { record: { title: string } }).record.title).to.equal(`Streamed draft ${dialect}`);
      stream.close();
    });

    it('an editor whose findDrafts rule names only his own rows receives only those drafts (issue 16)', async () => {
      const role = await app.http.post('/api/role', { name: `own-drafts-${dialect}` });
      expect(role.status, role.text).to.equal(200);
      for (const [action, where] of [['article.find', null], ['article.create', null], ['article.findDrafts', { createdById: { $eq: '$actor.id' } }]] as const) {
        const r = await app.http.post('/api/access-rule', { roleId: role.body.data.id, action, where });
        expect(r.status, r.text).to.equal(200);
      }
      const editor = await app.createUser({ roles: [`own-drafts-${dialect}`] });
      const stream = await openSse(`${app.url}/api/realtime?models=article`, { Authorization: `Bearer ${editor.accessToken}` });
      expect(stream.status, JSON.stringify(stream.body)).to.equal(200);
      const others = await created(app.http, 'article', { title: `Not his ${dialect}` });
      const own = await created(editor.http, 'article', { title: `His own ${dialect}` });
      await stream.waitFor((x) => x.event === 'record.create' && (x.data as { recordId: number }).recordId === own);
      expect(stream.events.map((x) => (x.data as { recordId: number }).recordId)).to.deep.equal([own]).and.not.include(others);
      stream.close();
    });
  });
}
