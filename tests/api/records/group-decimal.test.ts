/**
 * Spec 4.5: `sum` and `avg` of a decimal field answer the decimal result on every database, exactly
 * (compared with ===, not within a tolerance). SQLite keeps decimals as binary floats: its plain SUM
 * answered 0.30010000000000003 for 0.1 + 0.2 + 0.0001 where PostgreSQL and MariaDB answer 0.3001.
 */
import { expect } from 'chai';
import qs from 'qs';
import { DIALECTS } from '../../helpers/dialects';
import { startTestApp, type TestApp } from '../../helpers/test-app';

for (const dialect of DIALECTS) {
  describe(`records: sum and avg of a decimal are decimal on every database [${dialect}]`, () => {
    let app: TestApp;
    before(async () => {
      app = await startTestApp(dialect);
      const fees: [string, number][] = [
        ['fixed', 0.1],
        ['fixed', 0.2],
        ['fixed', 0.0001],
        ['percentage', 9999999999.9999],
        ['percentage', 9999999999.9998],
      ];
      const res = await app.http.post('/api/fee-type/bulk', fees.map(([type, fee], i) => ({ feeType: `decimal ${i}`, latePaymentFeesType: type, latePaymentFees: fee })));
      expect(res.status, res.text).to.equal(200);
    });
    after(async () => app?.close());

    it('sum and avg per group, and the groups sorted by them', async () => {
      const query = { groupBy: ['latePaymentFeesType'], aggregates: ['latePaymentFees:sum', 'latePaymentFees:avg'], sort: ['-latePaymentFees_sum'] };
      const res = await app.http.get(`/api/fee-type?${qs.stringify(query, { encodeValuesOnly: true })}`);
      expect(res.status, res.text).to.equal(200);
      expect(res.body.records).to.deep.equal([
        { latePaymentFeesType: 'percentage', latePaymentFees_sum: 19999999999.9997, latePaymentFees_avg: 9999999999.99985 },
        // the double nearest 0.3001 / 3
        { latePaymentFeesType: 'fixed', latePaymentFees_sum: 0.3001, latePaymentFees_avg: 3001 / 30000 },
      ]);
    });

    it('a group without values sums to null, as its average', async () => {
      const query = { groupBy: ['latePaymentFeesType'], aggregates: ['latePaymentFees:sum', 'latePaymentFees:avg'], filters: { latePaymentFees: { $null: true } } };
      await app.http.post('/api/fee-type', { feeType: 'no fee', latePaymentFeesType: 'fixed' });
      const res = await app.http.get(`/api/fee-type?${qs.stringify(query, { encodeValuesOnly: true })}`);
      expect(res.status, res.text).to.equal(200);
      expect(res.body.records).to.deep.equal([{ latePaymentFeesType: 'fixed', latePaymentFees_sum: null, latePaymentFees_avg: null }]);
    });
  });
}
