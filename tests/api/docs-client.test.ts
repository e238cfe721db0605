/**
 * Issue 7: a typed client generated from the document (openapi-typescript → tests/generated/openapi.d.ts,
 * compiled by tsc with the tests) drives create → find → delete → recover through openapi-fetch.
 */
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import createClient from 'openapi-fetch';
import qs from 'qs';
import type { components, paths } from '../generated/openapi';
import { DIALECTS } from '../helpers/dialects';
import { GENERATED_TYPES, generateTypes } from '../helpers/openapi-types';
import { ROOT, startTestApp, type TestApp } from '../helpers/test-app';

type FeeType = components['schemas']['FeeType'];

describe('typed client: generated types are up to date', () => {
  it(`${GENERATED_TYPES} matches the served document (else: npm run openapi:types)`, async function () {
    this.timeout(30_000);
    const app = await startTestApp('sqlite');
    try {
      const fresh = await generateTypes(app.document);
      const committed = readFileSync(join(ROOT, GENERATED_TYPES), 'utf8');
      expect(committed === fresh, `${GENERATED_TYPES} is stale: run npm run openapi:types and commit it`).to.equal(true);
    } finally {
      await app.close();
    }
  });
});

for (const dialect of DIALECTS) {
  describe(`typed client (openapi-fetch): create → find → delete → recover on fee-type [${dialect}]`, () => {
    let app: TestApp;
    let api: ReturnType<typeof createClient<paths>>;

    before(async () => {
      app = await startTestApp(dialect);
      // qs writes the deep forms (filters[feeType][$eq]=…) the service reads; app.fetch checks every answer against the document.
      // the seeded admin's token: record calls need one once the identity plugin runs
      api = createClient<paths>({ baseUrl: app.url, fetch: app.fetch, headers: app.admin ? { authorization: `Bearer ${app.admin.accessToken}` } : {}, querySerializer: (q) => qs.stringify(q, { encodeValuesOnly: true }) });
      const inst = await api.POST('/api/institute', { body: { name: 'Typed High', code: 'TYP' } });
      expect(inst.response.status).to.equal(200);
    });
    after(async () => app?.close());

    it('runs the lifecycle with typed bodies, parameters and answers', async () => {
      const created = await api.POST('/api/fee-type', { body: { feeType: 'Typed tuition', instituteUserKey: 'TYP', latePaymentFeesType: 'percentage', latePaymentFees: 2.5 } });
      expect(created.error).to.equal(undefined);
      const record: FeeType | undefined = created.data?.data;
      if (!record) throw new Error('no record in the create answer');
      expect(record.institute).to.include({ code: 'TYP' });

      const found = await api.GET('/api/fee-type', { params: { query: { filters: { feeType: { $eq: 'Typed tuition' } }, fields: ['feeType', 'latePaymentFees'], limit: 5 } } });
      const list = found.data;
      if (!list || 'groupMeta' in list) throw new Error('expected a plain list, not a grouped one');
      expect(list.records.map((r) => r.feeType)).to.deep.equal(['Typed tuition']);
      expect(list.meta.totalRecords).to.equal(1);

      const deleted = await api.DELETE('/api/fee-type/{id}', { params: { path: { id: record.id } } });
      expect(deleted.data?.data.deletedTracker).to.equal('deleted');
      const gone = await api.GET('/api/fee-type/{id}', { params: { path: { id: record.id } } });
      expect(gone.response.status).to.equal(404);
      expect(gone.error?.error.status).to.equal(404);

      const recovered = await api.POST('/api/fee-type/recover/{id}', { params: { path: { id: record.id } } });
      expect(recovered.data?.data.data).to.include({ id: record.id, deletedTracker: 'not-deleted' });
      const back = await api.GET('/api/fee-type/{id}', { params: { path: { id: record.id }, query: { populate: ['institute'] } } });
      expect(back.data?.institute).to.include({ code: 'TYP' });
    });

    it('gets the typed 422 body with details.fields', async () => {
      const bad = await api.POST('/api/fee-type', { body: { feeType: 'Bad', latePaymentFees: -1 } });
      expect(bad.response.status).to.equal(422);
      expect(bad.error?.error.details.fields).to.have.property('latePaymentFees');
    });
  });
}
