/**
 * Realtime and drafts (issues 14 and 15), both databases: a draft-enabled model's record events carry its
 * working copy, so a stream of that model needs `findDrafts` besides `find`; a reader holding `find`
 * alone is refused at connect (the public never sees a draft through a stream), an editor gets them.
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

    it('an editor holding findDrafts receives the draft events', async () => {
      const stream = await openSse(`${app.url}/api/realtime?models=article`, { Authorization: `Bearer ${app.admin!.accessToken}` });
      expect(stream.status).to.equal(200);
      const id = await created(app.http, 'article', { title: `Streamed draft ${dialect}` });
      const e = await stream.waitFor((x) => x.event === 'record.create' && (x.data as { recordId: number }).recordId === id);
      expect((e.data as { record: { title: string } }).record.title).to.equal(`Streamed draft ${dialect}`);
      stream.close();
    });
  });
}
