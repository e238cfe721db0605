/**
 * issue 13 item 16: a nullable field with a wrong value gets only the message that says what is wrong,
 * not also "must be null" from the schema's null alternative.
 */
import { expect } from 'chai';
import { DIALECTS } from '../../helpers/dialects';
import { startTestApp, type TestApp } from '../../helpers/test-app';

for (const dialect of DIALECTS) {
  describe(`records: validation messages of nullable fields [${dialect}]`, () => {
    let app: TestApp;
    let instituteId: number;

    before(async () => {
      app = await startTestApp(dialect);
      const res = await app.http.post('/api/institute', { name: 'Nullable High', code: 'NUL', city: 'Springfield' });
      expect(res.status).to.equal(200);
      instituteId = res.body.data.id;
    });
    after(async () => app?.close());

    const fieldsOf = async (body: Record<string, unknown>, method: 'post' | 'patch' = 'post', path = '/api/fee-type'): Promise<Record<string, string[]>> => {
      const res = method === 'post' ? await app.http.post(path, body) : await app.http.patch(path, body);
      expect(res.status, res.text).to.equal(422);
      expect(res.body.error.name).to.equal('ValidationError');
      return res.body.error.details.fields as Record<string, string[]>;
    };

    it('a wrong type on a nullable field: one message, naming the type and null', async () => {
      const fields = await fieldsOf({ feeType: 'Tuition', instituteId, latePaymentFees: 'abc', dueDate: 5, partPaymentAllowed: 'yes' });
      expect(fields).to.deep.equal({ latePaymentFees: ['must be number or null'], dueDate: ['must be string or null'], partPaymentAllowed: ['must be boolean or null'] });
    });

    it('a value outside a nullable field\'s rules: only that rule\'s message', async () => {
      const fields = await fieldsOf({ feeType: 'Tuition', instituteId, latePaymentFees: -1, latePaymentFeesType: 'weekly', dueDate: 'soon' });
      expect(fields).to.deep.equal({ latePaymentFees: ['must be >= 0'], latePaymentFeesType: ['must be one of: "fixed", "percentage"'], dueDate: ['must match format "date"'] });
    });

    it('nullable relation ids and media lists: one message each', async () => {
      expect(await fieldsOf({ feeType: 'Tuition', instituteId: 'x', attachments: 'none' })).to.deep.equal({ instituteId: ['must be integer or null'], attachments: ['must be array or null'] });
      expect(await fieldsOf({ feeType: 'Tuition', instituteId: 0, attachments: [0] })).to.deep.equal({ instituteId: ['must be >= 1'], attachments: ['must be >= 1'] });
    });

    it('on PATCH too; and null itself is still accepted', async () => {
      const created = await app.http.post('/api/fee-type', { feeType: 'Transport', instituteId, latePaymentFees: 3 });
      expect(created.status).to.equal(200);
      const id = created.body.data.id as number;
      expect(await fieldsOf({ latePaymentFees: 'abc' }, 'patch', `/api/fee-type/${id}`)).to.deep.equal({ latePaymentFees: ['must be number or null'] });
      const cleared = await app.http.patch(`/api/fee-type/${id}`, { latePaymentFees: null, dueDate: null, latePaymentFeesType: null });
      expect(cleared.status).to.equal(200);
      expect(cleared.body.data).to.include({ latePaymentFees: null, dueDate: null, latePaymentFeesType: null });
    });

    it('a required (not nullable) field keeps its plain message', async () => {
      expect(await fieldsOf({ feeType: 5, instituteId })).to.deep.equal({ feeType: ['must be string'] });
    });
  });
}
