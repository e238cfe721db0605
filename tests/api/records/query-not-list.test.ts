/**
 * Issue 13 item 9: `$not` takes the indexed-list form as `$and` / `$or` do (spec 4.4), over HTTP on
 * every database: `filters[$not][0][partPaymentAllowed][$eq]=true`, and `$not` around `$or`. A list
 * under `$not` means NOT (item0 AND item1 AND …); the object form keeps working.
 */
import { expect } from 'chai';
import { DIALECTS } from '../../helpers/dialects';
import { startTestApp, type TestApp } from '../../helpers/test-app';

for (const dialect of DIALECTS) {
  describe(`$not in the indexed-list form [${dialect}]`, () => {
    let app: TestApp;
    const ids: Record<string, number> = {};
    const names = async (query: string): Promise<string[]> => {
      const res = await app.http.get(`/api/fee-type?${query}&sort[0]=feeType&limit=100`);
      expect(res.status, res.text).to.equal(200);
      return (res.body.records as { feeType: string }[]).map((r) => r.feeType);
    };

    before(async () => {
      app = await startTestApp(dialect);
      const rows = [
        { feeType: 'Bus', partPaymentAllowed: true, latePaymentFeesType: 'fixed' },
        { feeType: 'Canteen', partPaymentAllowed: false, latePaymentFeesType: 'percentage' },
        { feeType: 'Library', partPaymentAllowed: true, latePaymentFeesType: 'percentage' },
        { feeType: 'Tuition', partPaymentAllowed: false, latePaymentFeesType: null },
      ];
      for (const r of rows) {
        const res = await app.http.post('/api/fee-type', r);
        expect(res.status, res.text).to.equal(200);
        ids[r.feeType] = res.body.data.id;
      }
    });
    after(async () => app?.close());

    it('filters[$not][0][partPaymentAllowed][$eq]=true answers 200 with the complement', async () => {
      expect(await names('filters[$not][0][partPaymentAllowed][$eq]=true')).to.deep.equal(['Canteen', 'Tuition']);
    });

    it('the object form keeps working and answers the same', async () => {
      expect(await names('filters[$not][partPaymentAllowed][$eq]=true')).to.deep.equal(['Canteen', 'Tuition']);
    });

    it('$not around $or: neither condition holds', async () => {
      const q = 'filters[$not][0][$or][0][partPaymentAllowed][$eq]=true&filters[$not][0][$or][1][latePaymentFeesType][$eq]=fixed';
      expect(await names(q)).to.deep.equal(['Canteen', 'Tuition']);
      const q2 = 'filters[$not][0][$or][0][feeType][$eq]=Bus&filters[$not][0][$or][1][latePaymentFeesType][$null]=true';
      expect(await names(q2)).to.deep.equal(['Canteen', 'Library']);
    });

    it('a list of several items is NOT (item0 AND item1)', async () => {
      const q = 'filters[$not][0][partPaymentAllowed][$eq]=true&filters[$not][1][latePaymentFeesType][$eq]=percentage';
      // Only Library is part-payable AND percentage; everything else matches, NULL enumeration included.
      expect(await names(q)).to.deep.equal(['Bus', 'Canteen', 'Tuition']);
    });

    it('the list form under a field', async () => {
      const q = 'filters[feeType][$not][0][$startsWith]=B&filters[feeType][$not][1][$endsWith]=s';
      expect(await names(q)).to.deep.equal(['Canteen', 'Library', 'Tuition']);
      expect(await names('filters[feeType][$not][0][$in][0]=Bus&filters[feeType][$not][0][$in][1]=Tuition')).to.deep.equal(['Canteen', 'Library']);
    });

    it('an empty or malformed list item still answers 400 naming its path', async () => {
      const res = await app.http.get('/api/fee-type?filters[$not][0]=x');
      expect(res.status, res.text).to.equal(400);
      expect(res.body.error).to.include({ status: 400, name: 'BadRequestError' });
      expect(res.body.error.details.parameter).to.equal('filters[$not][0]');
      const res2 = await app.http.get('/api/fee-type?filters[$not][0][nope][$eq]=1');
      expect(res2.status, res2.text).to.equal(400);
      expect(res2.body.error.message).to.contain('nope');
    });
  });
}
