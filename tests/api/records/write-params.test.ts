/**
 * A write endpoint's query parameters (core/records/write-params.ts): locale= and status= where they
 * apply, any other a 400 naming it, before anything is written (as Find answers an unknown parameter).
 */
import { expect } from 'chai';
import { DIALECTS } from '../../helpers/dialects';
import { created, DRAFT_MODELS } from '../../helpers/drafts';
import { startTestApp, type TestApp } from '../../helpers/test-app';

for (const dialect of DIALECTS) {
  describe(`write endpoints refuse query parameters they do not take [${dialect}]`, () => {
    let app: TestApp;
    let drafts: TestApp;

    before(async () => {
      app = await startTestApp(dialect);
      drafts = await startTestApp(dialect, { contentTypesDir: DRAFT_MODELS });
    });
    after(async () => {
      await app?.close();
      await drafts?.close();
    });

    const refused = (res: { status: number; body: any; text: string }, parameter: string): void => {
      expect(res.status, res.text).to.equal(400);
      expect(res.body.error.details).to.include({ parameter });
      expect(res.body.error.message).to.contain(`${parameter}: unknown query parameter`);
    };
    const count = async (): Promise<number> => (await app.http.get('/api/fee-type?limit=1')).body.meta.totalRecords as number;

    it('create, bulk create, update, delete, bulk delete and recover: 400 and nothing written', async () => {
      const before = await count();
      refused(await app.http.post('/api/fee-type?foo=1', { feeType: 'Never' }), 'foo');
      refused(await app.http.post('/api/fee-type/bulk?populate[0]=institute', [{ feeType: 'Never either' }]), 'populate[0]');
      expect(await count()).to.equal(before);
      const id = (await app.http.post('/api/fee-type', { feeType: 'Kept' })).body.data.id as number;
      refused(await app.http.patch(`/api/fee-type/${id}?status=published`, { feeType: 'Changed' }), 'status');
      refused(await app.http.put(`/api/fee-type/${id}?x=`, { feeType: 'Changed' }), 'x');
      refused(await app.http.del(`/api/fee-type/${id}?force=true`), 'force');
      refused(await app.http.del('/api/fee-type/bulk?force=true', [id]), 'force');
      const kept = await app.http.get(`/api/fee-type/${id}`);
      expect(kept.status).to.equal(200);
      expect(kept.body.feeType).to.equal('Kept');
      expect((await app.http.del(`/api/fee-type/${id}`)).status).to.equal(200);
      refused(await app.http.post(`/api/fee-type/recover/${id}?now=1`), 'now');
      refused(await app.http.post('/api/fee-type/recover/bulk?all=1', [id]), 'all');
      expect((await app.http.get(`/api/fee-type/${id}`)).status, 'still archived').to.equal(404);
    });

    it('publish and unpublish take locale= only: a PATCH does not publish through status=published', async () => {
      const id = await created(drafts.http, 'article', { title: `Params ${dialect}` });
      refused(await drafts.http.post(`/api/article/${id}/publish?status=published`), 'status');
      refused(await drafts.http.post('/api/article/publish/bulk?all=1', [id]), 'all');
      const read = await drafts.http.get(`/api/article/${id}?status=draft`);
      expect(read.body._status, 'still a draft').to.equal('draft');
      expect((await drafts.http.post(`/api/article/${id}/publish`)).status).to.equal(200);
    });
  });
}
