/** Spec 4.3 record endpoints, 2.1 envelopes, 3.1 soft-delete lifecycle and 7 errors, on every database. */
import { expect } from 'chai';
import { DIALECTS } from '../../helpers/dialects';
import { startTestApp, type TestApp } from '../../helpers/test-app';

for (const dialect of DIALECTS) {
  describe(`records: create, read, update, delete, recover [${dialect}]`, () => {
    let app: TestApp;
    let instituteId: number;

    before(async () => {
      app = await startTestApp(dialect);
      const res = await app.http.post('/api/institute', { name: 'Springfield High', code: 'SPH', city: 'Springfield' });
      expect(res.status).to.equal(200);
      instituteId = res.body.data.id;
    });
    after(async () => app?.close());

    const feeType = (name: string, extra: Record<string, unknown> = {}) => ({ feeType: name, instituteId, ...extra });

    describe('create (POST /api/{model})', () => {
      it('answers the envelope with the record, its common fields and the populated relation', async () => {
        const res = await app.http.post('/api/fee-type', feeType('Tuition', { latePaymentFeesType: 'fixed', latePaymentFees: 12.5, dueDate: '2026-03-31' }));
        expect(res.status).to.equal(200);
        expect(res.body).to.include({ statusCode: 200, error: '' });
        expect(res.body.message).to.deep.equal([]);
        const r = res.body.data;
        expect(r.id).to.be.a('number');
        expect(r).to.include({ feeType: 'Tuition', instituteId, partPaymentAllowed: false, latePaymentFeesType: 'fixed', latePaymentFees: 12.5, dueDate: '2026-03-31' });
        expect(r).to.include({ deletedAt: null, deletedTracker: 'not-deleted', publishedAt: null, localeName: null, defaultEntityLocaleId: null });
        expect(new Date(r.createdAt).toISOString()).to.equal(r.createdAt);
        expect(r.updatedAt).to.equal(r.createdAt);
        // spec 2.2: the caller's summaries (the seeded admin here)
        const admin = app.admin!;
        expect(r.createdBy).to.deep.equal({ id: admin.id, fullName: 'Test Admin', username: 'admin', email: 'admin@example.test' });
        expect(r.updatedBy).to.deep.equal({ id: admin.id, fullName: 'Test Admin', email: 'admin@example.test', active: true });
        expect(r.institute).to.include({ id: instituteId, name: 'Springfield High', code: 'SPH' });
      });

      it('names the related record by its user key (instituteUserKey)', async () => {
        const res = await app.http.post('/api/fee-type', { feeType: 'Library', instituteUserKey: 'SPH' });
        expect(res.status).to.equal(200);
        expect(res.body.data.instituteId).to.equal(instituteId);
      });

      it('refuses an unknown user key or related id with 422 naming the field', async () => {
        const a = await app.http.post('/api/fee-type', { feeType: 'Bus', instituteUserKey: 'NOPE' });
        expect(a.status).to.equal(422);
        expect(a.body.error.details.fields).to.have.property('instituteUserKey');
        const b = await app.http.post('/api/fee-type', { feeType: 'Bus', instituteId: 999999 });
        expect(b.status).to.equal(422);
        expect(b.body.error.details.fields).to.have.property('instituteId');
      });

      it('answers a write with the relation as a read shows it; an archived related record is refused', async () => {
        const created = await app.http.post('/api/fee-type', feeType('Answered'));
        const read = await app.http.get(`/api/fee-type/${created.body.data.id}?populate[0]=institute`);
        expect(created.body.data.institute).to.deep.equal(read.body.institute);
        const other = (await app.http.post('/api/institute', { name: 'Capital City', code: 'CAP' })).body.data;
        const moved = await app.http.patch(`/api/fee-type/${created.body.data.id}`, { instituteId: other.id });
        expect(moved.body.data.institute).to.deep.equal((await app.http.get(`/api/institute/${other.id}`)).body);
        const byKey = await app.http.patch(`/api/fee-type/${created.body.data.id}`, { instituteUserKey: 'SPH' });
        expect(byKey.body.data.institute).to.deep.equal(read.body.institute);
        const cleared = await app.http.patch(`/api/fee-type/${created.body.data.id}`, { instituteId: null });
        expect(cleared.body.data).to.include({ instituteId: null, institute: null });
        expect((await app.http.del(`/api/institute/${other.id}`)).status).to.equal(200);
        const onArchived = await app.http.post('/api/fee-type', feeType('On archived', { instituteId: other.id }));
        expect(onArchived.status).to.equal(422);
        expect(onArchived.body.error.details.fields.instituteId).to.deep.equal([`no institute with id ${other.id}`]);
      });

      it('refuses a contradiction between instituteId and instituteUserKey', async () => {
        const other = await app.http.post('/api/institute', { name: 'Shelbyville', code: 'SHV' });
        const res = await app.http.post('/api/fee-type', { feeType: 'Gym', instituteId: other.body.data.id, instituteUserKey: 'SPH' });
        expect(res.status).to.equal(422);
        expect(res.body.error.details.fields).to.have.property('instituteId');
      });

      it('answers 422 with details.fields for invalid values, missing required and unknown fields', async () => {
        const res = await app.http.post('/api/fee-type', { latePaymentFees: -1, latePaymentFeesType: 'weekly', bogus: true });
        expect(res.status).to.equal(422);
        expect(res.body.error).to.include({ status: 422, name: 'ValidationError' });
        const fields = res.body.error.details.fields;
        expect(fields.feeType).to.deep.equal(['is required']);
        expect(fields.latePaymentFees[0]).to.match(/>= 0/);
        expect(fields.latePaymentFeesType[0]).to.match(/fixed/);
        expect(fields.bogus).to.deep.equal(['is not a field of fee-type']);
      });

      it('answers 409 for a unique value another active record holds', async () => {
        await app.http.post('/api/fee-type', feeType('Exam'));
        const res = await app.http.post('/api/fee-type', feeType('Exam'));
        expect(res.status).to.equal(409);
        expect(res.body.error.name).to.equal('ConflictError');
        expect(res.body.error.details.fields).to.have.property('feeType');
      });

      it('answers 400 for malformed JSON and a body that is not an object, 415 for another content type', async () => {
        const bad = await app.http.post('/api/fee-type', undefined, { raw: '{"feeType":', headers: { 'content-type': 'application/json' } });
        expect(bad.status).to.equal(400);
        expect(bad.body.error.message).to.match(/JSON/);
        const arr = await app.http.post('/api/fee-type', [1, 2]);
        expect(arr.status).to.equal(400);
        // valid JSON, but not an object: said so, not "not valid JSON"
        const scalar = await app.http.post('/api/fee-type', undefined, { raw: '"x"', headers: { 'content-type': 'application/json' } });
        expect(scalar.status).to.equal(400);
        expect(scalar.body.error.message).to.equal('the body must be a JSON object or array');
        const text = await app.http.post('/api/fee-type', undefined, { raw: 'feeType=x', headers: { 'content-type': 'text/plain' } });
        expect(text.status).to.equal(415);
      });

      it('reads application/merge-patch+json and every other +json type as JSON (a PATCH merges as with application/json); another type answers 415', async () => {
        const made = await app.http.post('/api/fee-type', undefined, { raw: JSON.stringify(feeType('Plus JSON', { latePaymentFees: 5 })), headers: { 'content-type': 'application/x-fee+json; charset=utf-8' } });
        expect(made.status, JSON.stringify(made.body)).to.equal(200);
        expect(made.body.data).to.include({ feeType: 'Plus JSON', latePaymentFees: 5 });
        const id = made.body.data.id;
        const merge = { 'content-type': 'application/merge-patch+json' };
        const patched = await app.http.patch(`/api/fee-type/${id}`, undefined, { raw: '{"latePaymentFees":15,"dueDate":"2026-03-31"}', headers: merge });
        expect(patched.status, JSON.stringify(patched.body)).to.equal(200);
        expect(patched.body.data).to.include({ feeType: 'Plus JSON', latePaymentFees: 15, dueDate: '2026-03-31' });
        // null removes the value (RFC 7396), what PATCH with application/json does too
        const cleared = await app.http.patch(`/api/fee-type/${id}`, undefined, { raw: '{"dueDate":null}', headers: merge });
        expect(cleared.status).to.equal(200);
        expect(cleared.body.data).to.include({ latePaymentFees: 15, dueDate: null });
        // validated as any JSON body
        const invalid = await app.http.patch(`/api/fee-type/${id}`, undefined, { raw: '{"latePaymentFees":-1}', headers: merge });
        expect(invalid.status).to.equal(422);
        expect(invalid.body.error.details.fields).to.deep.equal({ latePaymentFees: ['must be >= 0'] });
        const bulk = await app.http.post('/api/fee-type/bulk', undefined, { raw: JSON.stringify([feeType('Plus JSON 2')]), headers: { 'content-type': 'application/vnd.fees+json' } });
        expect(bulk.status).to.equal(200);
        expect(bulk.body.data[0]).to.include({ feeType: 'Plus JSON 2' });
        // a type that is not JSON: 415, whatever the method, and nothing written
        for (const [method, type] of [
          ['patch', 'application/xml'],
          ['put', 'text/plain'],
          ['post', 'application/x-www-form-urlencoded'],
          ['patch', 'application/jsonx'],
        ] as const) {
          const path = method === 'post' ? '/api/fee-type' : `/api/fee-type/${id}`;
          const res = await app.http[method](path, undefined, { raw: '{"feeType":"Changed"}', headers: { 'content-type': type } });
          expect(res.status, `${method} ${type}`).to.equal(415);
          expect(res.body.error.name).to.equal('UnsupportedMediaTypeError');
          expect(res.body.error.message).to.include(`"${type}"`);
        }
        expect((await app.http.get(`/api/fee-type/${id}`)).body.feeType).to.equal('Plus JSON');
        expect((await app.http.get('/api/fee-type?filters[feeType][$eq]=Changed')).body.records).to.have.length(0);
      });

      it('answers 413 for a body over the limit', async () => {
        const res = await app.http.post('/api/fee-type', { feeType: 'x'.repeat(2 * 1024 * 1024) });
        expect(res.status).to.equal(413);
        expect(res.body.error.name).to.equal('PayloadTooLargeError');
      });

      it('drops read-only fields a client sends back (id, createdAt, …)', async () => {
        const res = await app.http.post('/api/fee-type', feeType('Sports', { id: 424242, createdAt: '2000-01-01T00:00:00.000Z' }));
        expect(res.status).to.equal(200);
        expect(res.body.data.id).to.not.equal(424242);
        expect(res.body.data.createdAt).to.not.equal('2000-01-01T00:00:00.000Z');
      });
    });

    describe('findOne (GET /api/{model}/{id})', () => {
      it('answers the record itself, not enveloped', async () => {
        const created = await app.http.post('/api/fee-type', feeType('Lab'));
        const res = await app.http.get(`/api/fee-type/${created.body.data.id}`);
        expect(res.status).to.equal(200);
        expect(res.body).to.include({ id: created.body.data.id, feeType: 'Lab' });
        expect(res.body).to.not.have.property('statusCode');
      });

      it('answers 404 for an unknown id and 400 for an id that is not one', async () => {
        expect((await app.http.get('/api/fee-type/987654')).status).to.equal(404);
        const res = await app.http.get('/api/fee-type/abc');
        expect(res.status).to.equal(400);
      });

      it('answers 404 for an unknown model and 405 for a method the path does not take', async () => {
        const res = await app.http.get('/api/no-such-model');
        expect(res.status).to.equal(404);
        expect(res.body.error.status).to.equal(404);
        expect((await app.http.put('/api/fee-type', {})).status).to.equal(405);
      });
    });

    describe('find (GET /api/{model})', () => {
      before(async () => {
        const res = await app.http.post('/api/institute/bulk', Array.from({ length: 23 }, (_, i) => ({ name: `Paging ${String(i).padStart(2, '0')}`, code: `PG${i}` })));
        expect(res.status).to.equal(200);
      });

      it('pages with the default limit 10 and exact meta', async () => {
        const res = await app.http.get('/api/institute?filters[name][$startsWith]=Paging');
        expect(res.status).to.equal(200);
        expect(res.body.records).to.have.length(10);
        expect(res.body.meta).to.deep.equal({ totalRecords: 23, currentPage: 1, totalPages: 3 });
      });

      it('takes offset + limit and page + limit', async () => {
        const a = await app.http.get('/api/institute?filters[name][$startsWith]=Paging&sort[0]=name&limit=5&offset=10');
        expect(a.body.records.map((r: { name: string }) => r.name)).to.deep.equal(['Paging 10', 'Paging 11', 'Paging 12', 'Paging 13', 'Paging 14']);
        expect(a.body.meta).to.deep.equal({ totalRecords: 23, currentPage: 3, totalPages: 5 });
        const b = await app.http.get('/api/institute?filters[name][$startsWith]=Paging&sort[0]=name&limit=5&page=3');
        expect(b.body.records).to.deep.equal(a.body.records);
      });

      it('sorts descending with -field and field:DESC', async () => {
        const names = (res: { body: { records: { name: string }[] } }) => res.body.records.map((r) => r.name);
        const a = await app.http.get('/api/institute?filters[name][$startsWith]=Paging&sort[0]=-name&limit=3');
        expect(names(a)).to.deep.equal(['Paging 22', 'Paging 21', 'Paging 20']);
        const b = await app.http.get('/api/institute?filters[name][$startsWith]=Paging&sort[0]=name:DESC&limit=3');
        expect(names(b)).to.deep.equal(names(a));
        const c = await app.http.get('/api/institute?filters[name][$startsWith]=Paging&sort[0]=city&sort[1]=-code&limit=2');
        expect(names(c)).to.deep.equal(['Paging 09', 'Paging 08']);
      });

      it('clamps limit to API_MAX_LIMIT', async () => {
        const res = await app.http.get('/api/institute?limit=100000');
        expect(res.status).to.equal(200);
        expect(res.body.records.length).to.be.at.most(100);
      });

      it('answers 400 naming an unknown query parameter or a bad number', async () => {
        const a = await app.http.get('/api/institute?limt=5');
        expect(a.status).to.equal(400);
        expect(a.body.error.message).to.contain('limt');
        const b = await app.http.get('/api/institute?limit=-3');
        expect(b.status).to.equal(400);
        expect(b.body.error.message).to.contain('limit');
      });
    });

    describe('update (PUT / PATCH)', () => {
      it('PATCH changes only the given fields and moves updatedAt', async () => {
        const created = (await app.http.post('/api/fee-type', feeType('Transport', { latePaymentFees: 3, dueDate: '2026-01-01' }))).body.data;
        await new Promise((r) => setTimeout(r, 5));
        const res = await app.http.patch(`/api/fee-type/${created.id}`, { latePaymentFees: 4 });
        expect(res.status).to.equal(200);
        expect(res.body).to.include({ statusCode: 200, error: '' });
        expect(res.body.data).to.include({ feeType: 'Transport', latePaymentFees: 4, dueDate: '2026-01-01', instituteId });
        expect(res.body.data.updatedAt > created.updatedAt).to.equal(true);
        expect(res.body.data.updatedBy).to.deep.equal({ id: app.admin!.id, fullName: 'Test Admin', email: 'admin@example.test', active: true });
      });

      it('PUT replaces the record: fields left out return to their default or null; it is idempotent', async () => {
        const created = (await app.http.post('/api/fee-type', feeType('Canteen', { latePaymentFees: 3, partPaymentAllowed: true }))).body.data;
        const body = { feeType: 'Canteen 2', instituteId };
        const a = await app.http.put(`/api/fee-type/${created.id}`, body);
        expect(a.status).to.equal(200);
        expect(a.body.data).to.include({ feeType: 'Canteen 2', latePaymentFees: null, partPaymentAllowed: false });
        const b = await app.http.put(`/api/fee-type/${created.id}`, body);
        const strip = (r: Record<string, unknown>) => ({ ...r, updatedAt: null, updatedBy: null });
        expect(strip(b.body.data)).to.deep.equal(strip(a.body.data));
      });

      it('PUT without a required field answers 422; PATCH with a bad value 422; unknown id 404', async () => {
        const created = (await app.http.post('/api/fee-type', feeType('Uniform'))).body.data;
        expect((await app.http.put(`/api/fee-type/${created.id}`, { instituteId })).status).to.equal(422);
        expect((await app.http.patch(`/api/fee-type/${created.id}`, { partPaymentAllowed: 'yes' })).status).to.equal(422);
        expect((await app.http.patch('/api/fee-type/999999', { latePaymentFees: 1 })).status).to.equal(404);
      });

      it('PATCH into a unique value another record holds answers 409 and changes nothing', async () => {
        const a = (await app.http.post('/api/fee-type', feeType('Hostel'))).body.data;
        await app.http.post('/api/fee-type', feeType('Hostel B'));
        const res = await app.http.patch(`/api/fee-type/${a.id}`, { feeType: 'Hostel B' });
        expect(res.status).to.equal(409);
        expect((await app.http.get(`/api/fee-type/${a.id}`)).body.feeType).to.equal('Hostel');
      });
    });

    describe('delete and recover on a soft-delete model (spec 3.1)', () => {
      it('DELETE archives: the answer shows deletedAt and deletedTracker; the record is hidden from find and findOne', async () => {
        const created = (await app.http.post('/api/fee-type', feeType('Archive me'))).body.data;
        const res = await app.http.del(`/api/fee-type/${created.id}`);
        expect(res.status).to.equal(200);
        expect(res.body).to.include({ statusCode: 200, error: '' });
        expect(res.body.data.deletedAt).to.be.a('string');
        expect(res.body.data.deletedTracker).to.equal('deleted');
        expect((await app.http.get(`/api/fee-type/${created.id}`)).status).to.equal(404);
        const list = await app.http.get('/api/fee-type?filters[feeType][$eq]=Archive%20me');
        expect(list.body.records).to.have.length(0);
        expect((await app.http.del(`/api/fee-type/${created.id}`)).status).to.equal(404);
      });

      it('showSoftDeleted=inclusive shows both, exclusive only archived ones', async () => {
        const a = (await app.http.post('/api/fee-type', feeType('Scope active'))).body.data;
        const b = (await app.http.post('/api/fee-type', feeType('Scope archived'))).body.data;
        await app.http.del(`/api/fee-type/${b.id}`);
        const inclusive = await app.http.get('/api/fee-type?filters[feeType][$startsWith]=Scope&showSoftDeleted=inclusive&sort[0]=id');
        expect(inclusive.body.records.map((r: { id: number }) => r.id)).to.deep.equal([a.id, b.id]);
        const exclusive = await app.http.get('/api/fee-type?filters[feeType][$startsWith]=Scope&showSoftDeleted=exclusive');
        expect(exclusive.body.records.map((r: { id: number }) => r.id)).to.deep.equal([b.id]);
        expect(exclusive.body.records[0].deletedTracker).to.equal('deleted');
        expect((await app.http.get(`/api/fee-type/${b.id}?showSoftDeleted=inclusive`)).status).to.equal(200);
        expect((await app.http.get('/api/fee-type?showSoftDeleted=maybe')).status).to.equal(400);
      });

      it('a new record may take the unique value of an archived one; two archived records may share it', async () => {
        const first = (await app.http.post('/api/fee-type', feeType('Reused'))).body.data;
        await app.http.del(`/api/fee-type/${first.id}`);
        const second = (await app.http.post('/api/fee-type', feeType('Reused'))).body.data;
        expect(second.id).to.not.equal(first.id);
        const del = await app.http.del(`/api/fee-type/${second.id}`);
        expect(del.status).to.equal(200);
        const archived = await app.http.get('/api/fee-type?filters[feeType][$eq]=Reused&showSoftDeleted=exclusive');
        expect(archived.body.records).to.have.length(2);
      });

      it('recover brings the record back: envelope data = { message, data: record }', async () => {
        const created = (await app.http.post('/api/fee-type', feeType('Comeback'))).body.data;
        await app.http.del(`/api/fee-type/${created.id}`);
        const res = await app.http.post(`/api/fee-type/recover/${created.id}`);
        expect(res.status).to.equal(200);
        expect(res.body).to.include({ statusCode: 200, error: '' });
        expect(res.body.data.message).to.be.a('string');
        expect(res.body.data.data).to.include({ id: created.id, deletedAt: null, deletedTracker: 'not-deleted' });
        expect((await app.http.get(`/api/fee-type/${created.id}`)).status).to.equal(200);
        expect((await app.http.post(`/api/fee-type/recover/${created.id}`)).status).to.equal(404);
      });

      it('recovering into a unique value an active record holds answers 409 and leaves the record archived', async () => {
        const old = (await app.http.post('/api/fee-type', feeType('Taken'))).body.data;
        await app.http.del(`/api/fee-type/${old.id}`);
        await app.http.post('/api/fee-type', feeType('Taken'));
        const res = await app.http.post(`/api/fee-type/recover/${old.id}`);
        expect(res.status).to.equal(409);
        expect(res.body.error.name).to.equal('ConflictError');
        expect((await app.http.get(`/api/fee-type/${old.id}`)).status).to.equal(404);
        expect((await app.http.get(`/api/fee-type/${old.id}?showSoftDeleted=exclusive`)).body.deletedTracker).to.equal('deleted');
      });
    });

    describe('delete on a model without soft delete', () => {
      it('removes the row for good; the answer shows the record as it was', async () => {
        const created = (await app.http.post('/api/institute', { name: 'Gone', code: 'GONE' })).body.data;
        const res = await app.http.del(`/api/institute/${created.id}`);
        expect(res.status).to.equal(200);
        expect(res.body.data).to.include({ id: created.id, name: 'Gone' });
        expect((await app.http.get(`/api/institute/${created.id}?showSoftDeleted=inclusive`)).status).to.equal(404);
        expect((await app.http.post(`/api/institute/recover/${created.id}`)).status).to.equal(404);
      });

      it('refuses to delete a record others still reference (409), changing nothing', async () => {
        const res = await app.http.del(`/api/institute/${instituteId}`);
        expect(res.status).to.equal(409);
        expect((await app.http.get(`/api/institute/${instituteId}`)).status).to.equal(200);
      });
    });

    describe('bulk calls are one transaction', () => {
      it('bulk create answers every record', async () => {
        const res = await app.http.post('/api/fee-type/bulk', [feeType('Bulk A'), feeType('Bulk B')]);
        expect(res.status).to.equal(200);
        expect(res.body.data.map((r: { feeType: string }) => r.feeType)).to.deep.equal(['Bulk A', 'Bulk B']);
      });

      it('a bad item fails the call with details.errors [{index, fields}] and nothing is written', async () => {
        const res = await app.http.post('/api/fee-type/bulk', [feeType('Bulk C'), { feeType: 7 }, feeType('Bulk D')]);
        expect(res.status).to.equal(422);
        expect(res.body.error.details.errors).to.deep.equal([{ index: 1, fields: { feeType: ['must be string'] } }]);
        // spec 7: details.fields maps a field to its messages, here each naming its item
        expect(res.body.error.details.fields).to.deep.equal({ feeType: ['item 1: must be string'] });
        const list = await app.http.get('/api/fee-type?filters[feeType][$in][0]=Bulk%20C&filters[feeType][$in][1]=Bulk%20D');
        expect(list.body.records).to.have.length(0);
      });

      it('details.fields merges the failing items\' messages per field, each prefixed with its item', async () => {
        const res = await app.http.post('/api/fee-type/bulk', [{ feeType: 7 }, feeType('Bulk F'), { feeType: 8, latePaymentFees: -1 }, { latePaymentFees: 'abc' }]);
        expect(res.status).to.equal(422);
        expect(res.body.error.details.fields).to.deep.equal({
          feeType: ['item 0: must be string', 'item 2: must be string', 'item 3: is required'],
          latePaymentFees: ['item 2: must be >= 0', 'item 3: must be number or null'],
        });
        expect(res.body.error.details.errors.map((e: { index: number }) => e.index)).to.deep.equal([0, 2, 3]);
        // an item the database refuses (a reference to no record) fills details.fields the same way
        const ref = await app.http.post('/api/fee-type/bulk', [feeType('Bulk G'), { feeType: 'Bulk H', instituteId: 999999 }]);
        expect(ref.status).to.equal(422);
        expect(ref.body.error.details.errors).to.have.length(1);
        const [[field, messages]] = Object.entries(ref.body.error.details.errors[0].fields as Record<string, string[]>);
        expect(ref.body.error.details.fields).to.deep.equal({ [field]: messages.map((m) => `item 1: ${m}`) });
      });

      it('a unique clash inside the batch fails it whole (409 with the index)', async () => {
        const res = await app.http.post('/api/fee-type/bulk', [feeType('Bulk E'), feeType('Bulk E')]);
        expect(res.status).to.equal(409);
        expect(res.body.error.details.errors[0].index).to.equal(1);
        expect((await app.http.get('/api/fee-type?filters[feeType][$eq]=Bulk%20E')).body.records).to.have.length(0);
      });

      it('bulk delete answers one envelope per record; an unknown id fails the call and archives nothing', async () => {
        const made = (await app.http.post('/api/fee-type/bulk', [feeType('Del A'), feeType('Del B'), feeType('Del C')])).body.data;
        const ids = made.map((r: { id: number }) => r.id);
        const bad = await app.http.del('/api/fee-type/bulk', [ids[0], 999999]);
        expect(bad.status).to.equal(404);
        expect((await app.http.get(`/api/fee-type/${ids[0]}`)).status).to.equal(200);
        const res = await app.http.del('/api/fee-type/bulk', [ids[0], ids[1]]);
        expect(res.status).to.equal(200);
        expect(res.body).to.be.an('array').with.length(2);
        expect(res.body[0]).to.include({ statusCode: 200, error: '' });
        expect(res.body.map((e: { data: { deletedTracker: string } }) => e.data.deletedTracker)).to.deep.equal(['deleted', 'deleted']);
        expect((await app.http.del('/api/fee-type/bulk', ['x'])).status).to.equal(400);
      });

      it('bulk recover answers the summary message and one { message, data } per record', async () => {
        const made = (await app.http.post('/api/fee-type/bulk', [feeType('Rec A'), feeType('Rec B')])).body.data;
        const ids = made.map((r: { id: number }) => r.id);
        await app.http.del('/api/fee-type/bulk', ids);
        const res = await app.http.post('/api/fee-type/recover/bulk', ids);
        expect(res.status).to.equal(200);
        expect(res.body.message).to.deep.equal(['2 records successfully recovered']);
        expect(res.body.data).to.have.length(2);
        expect(res.body.data[0].data).to.include({ id: ids[0], deletedTracker: 'not-deleted' });
        expect(res.body.data[0].message).to.be.a('string');
      });

      it('bulk recover with one conflicting record recovers none', async () => {
        const made = (await app.http.post('/api/fee-type/bulk', [feeType('RC A'), feeType('RC B')])).body.data;
        const ids = made.map((r: { id: number }) => r.id);
        await app.http.del('/api/fee-type/bulk', ids);
        await app.http.post('/api/fee-type', feeType('RC B'));
        const res = await app.http.post('/api/fee-type/recover/bulk', ids);
        expect(res.status).to.equal(409);
        expect((await app.http.get(`/api/fee-type/${ids[0]}`)).status).to.equal(404);
      });
    });

    describe('operations', () => {
      it('GET /health and /health/ready answer 200; every response carries X-Request-Id', async () => {
        const h = await app.http.get('/health');
        expect(h.status).to.equal(200);
        expect(h.headers.get('x-request-id')).to.be.a('string').and.not.equal('');
        expect((await app.http.get('/health/ready')).status).to.equal(200);
        const echoed = await app.http.get('/health', { headers: { 'x-request-id': 'abc-123' } });
        expect(echoed.headers.get('x-request-id')).to.equal('abc-123');
      });
    });
  });
}
