/** Issue 8: races on one unique value and one record, on every database. A race never answers 500. */
import { expect } from 'chai';
import { DIALECTS } from '../../helpers/dialects';
import { startTestApp, type TestApp } from '../../helpers/test-app';

const PARALLEL = 50;

const tally = (xs: readonly number[]): Record<string, number> => xs.reduce<Record<string, number>>((m, s) => ({ ...m, [s]: (m[s] ?? 0) + 1 }), {});
const figures = (name: string, data: Record<string, unknown>): void => console.log(`      [figures] ${name}: ${JSON.stringify(data)}`);

for (const dialect of DIALECTS) {
  describe(`concurrency [${dialect}]`, function () {
    this.timeout(30_000);
    let app: TestApp;
    let instituteId: number;
    before(async () => {
      app = await startTestApp(dialect);
      instituteId = (await app.http.post('/api/institute', { name: 'Race High', code: 'RH' })).body.data.id;
    });
    after(async () => app?.close());

    it(`${PARALLEL} parallel creates of one unique value: exactly one 200, the rest 409`, async () => {
      const replies = await Promise.all(Array.from({ length: PARALLEL }, () => app.http.post('/api/fee-type', { feeType: 'Same', instituteId })));
      const statuses = replies.map((r) => r.status);
      figures(`parallel creates, one unique value [${dialect}]`, { parallel: PARALLEL, byStatus: tally(statuses) });
      expect(tally(statuses)).to.deep.equal({ 200: 1, 409: PARALLEL - 1 });
      for (const r of replies.filter((x) => x.status === 409)) expect(r.body.error.details.fields).to.have.property('feeType');
      const list = await app.http.get('/api/fee-type?filters[feeType][$eq]=Same');
      expect(list.body.meta.totalRecords).to.equal(1);
    });

    it(`${PARALLEL} parallel creates on a model without soft delete: one 200, the rest 409`, async () => {
      const replies = await Promise.all(Array.from({ length: PARALLEL }, (_, i) => app.http.post('/api/institute', { name: 'Twin', code: `T${i}` })));
      expect(tally(replies.map((r) => r.status))).to.deep.equal({ 200: 1, 409: PARALLEL - 1 });
    });

    it(`${PARALLEL} parallel PATCHes of one record leave one of the written values and move updatedAt`, async () => {
      const created = (await app.http.post('/api/fee-type', { feeType: 'Patched', instituteId, latePaymentFees: 0 })).body.data;
      await new Promise((r) => setTimeout(r, 5));
      const values = Array.from({ length: PARALLEL }, (_, i) => i + 1);
      const replies = await Promise.all(values.map((v) => app.http.patch(`/api/fee-type/${created.id}`, { latePaymentFees: v, latePaymentFeesType: v % 2 ? 'fixed' : 'percentage' })));
      expect(tally(replies.map((r) => r.status))).to.deep.equal({ 200: PARALLEL });
      const final = (await app.http.get(`/api/fee-type/${created.id}`)).body;
      figures(`parallel PATCHes of one record [${dialect}]`, { parallel: PARALLEL, finalValue: final.latePaymentFees, updatedAtMovedMs: Date.parse(final.updatedAt) - Date.parse(created.updatedAt) });
      expect(values).to.include(final.latePaymentFees);
      // both fields come from the same write: no interleaving of two PATCHes
      expect(final.latePaymentFeesType).to.equal(final.latePaymentFees % 2 ? 'fixed' : 'percentage');
      expect(Date.parse(final.updatedAt)).to.be.greaterThan(Date.parse(created.updatedAt));
      expect(final.createdAt).to.equal(created.createdAt);
    });

    it('parallel recover and create of one unique value never leave two active records', async () => {
      const all: number[] = [];
      for (let round = 0; round < 5; round++) {
        const name = `Contested-${round}`;
        // three archived records holding the same unique value
        const archived: number[] = [];
        for (let k = 0; k < 3; k++) {
          const id = (await app.http.post('/api/fee-type', { feeType: name, instituteId })).body.data.id;
          expect((await app.http.del(`/api/fee-type/${id}`)).status).to.equal(200);
          archived.push(id);
        }
        const calls = [
          ...archived.flatMap((id) => [app.http.post(`/api/fee-type/recover/${id}`), app.http.post(`/api/fee-type/recover/${id}`)]),
          ...Array.from({ length: 6 }, () => app.http.post('/api/fee-type', { feeType: name, instituteId })),
          app.http.post('/api/fee-type/recover/bulk', archived),
        ];
        const statuses = (await Promise.all(calls)).map((r) => r.status);
        all.push(...statuses);
        for (const s of statuses) expect([200, 404, 409], `round ${round}: ${JSON.stringify(tally(statuses))}`).to.include(s);
        expect(statuses.filter((s) => s === 200).length, `round ${round}`).to.equal(1);
        const active = await app.http.get(`/api/fee-type?filters[feeType][$eq]=${name}`);
        expect(active.body.meta.totalRecords, `round ${round}`).to.equal(1);
      }
      figures(`parallel recover/create of one unique value [${dialect}]`, { rounds: 5, callsPerRound: 13, byStatus: tally(all), activeAfterEachRound: 1 });
    });
  });
}
