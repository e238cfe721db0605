/**
 * Issue 8: races on one unique value and one record, on every database. A race never answers 500: a
 * deadlock the database breaks answers 503 WriteConflictError with Retry-After (send it again).
 */
import { expect } from 'chai';
import { enabledPlugins } from '../../../config/plugins';
import type { Plugin } from '../../../core/plugin-api';
import { DIALECTS } from '../../helpers/dialects';
import { meetingPoint } from '../../helpers/meet';
import { startTestApp, type TestApp } from '../../helpers/test-app';

const PARALLEL = 50;

const tally = (xs: readonly number[]): Record<string, number> => xs.reduce<Record<string, number>>((m, s) => ({ ...m, [s]: (m[s] ?? 0) + 1 }), {});
const figures = (name: string, data: Record<string, unknown>): void => console.log(`      [figures] ${name}: ${JSON.stringify(data)}`);

/**
 * A hook that makes two updates of institutes cross: an update whose `city` is `cross:<other id>` holds its
 * own row (the service locked it), waits until the other update holds its row too (or 1.5 s: SQLite runs
 * one transaction at a time), then writes the other's row. On PostgreSQL and MariaDB that is a deadlock.
 */
function crossingUpdates(): Plugin {
  const meet = meetingPoint(1500);
  return {
    name: 'crossing-updates',
    hooks: (deps) => [
      {
        models: ['institute'],
        async beforeUpdate(ctx) {
          const m = /^cross:(\d+)$/.exec(String(ctx.data.city));
          if (!m) return;
          await meet();
          await ctx.trx(deps.registry.get('institute')!.table).where('id', Number(m[1])).update({ city: 'crossed' });
        },
      },
    ],
  };
}

for (const dialect of DIALECTS) {
  describe(`concurrency [${dialect}]`, function () {
    this.timeout(30_000);
    let app: TestApp;
    let instituteId: number;
    before(async () => {
      app = await startTestApp(dialect, { plugins: [...enabledPlugins(), crossingUpdates()] });
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
        const replies = await Promise.all(calls);
        const statuses = replies.map((r) => r.status);
        all.push(...statuses);
        for (const r of replies) {
          // InnoDB may break a deadlock between the duplicate-key checks of one unique value (S locks on the
          // index record): the loser was rolled back and is told to send it again, never a 500
          if (r.status === 503 && app.deps.dialect.name === 'mysql') {
            expect(r.body.error, r.text).to.deep.include({ name: 'WriteConflictError' });
            expect(r.headers.get('retry-after')).to.equal('1');
            continue;
          }
          expect([200, 404, 409], `round ${round}: ${JSON.stringify(tally(statuses))} ${r.text}`).to.include(r.status);
        }
        expect(statuses.filter((s) => s === 200).length, `round ${round}`).to.equal(1);
        const active = await app.http.get(`/api/fee-type?filters[feeType][$eq]=${name}`);
        expect(active.body.meta.totalRecords, `round ${round}`).to.equal(1);
      }
      figures(`parallel recover/create of one unique value [${dialect}]`, { rounds: 5, callsPerRound: 13, byStatus: tally(all), activeAfterEachRound: 1 });
    });

    it('two updates that take two records in opposite orders: on a deadlock one answers 503 WriteConflictError with Retry-After, never 500; nothing of it is written', async () => {
      const a = (await app.http.post('/api/institute', { name: 'Cross A', code: 'XA' })).body.data.id as number;
      const b = (await app.http.post('/api/institute', { name: 'Cross B', code: 'XB' })).body.data.id as number;
      const replies = await Promise.all([app.http.patch(`/api/institute/${a}`, { city: `cross:${b}`, name: 'Cross A 2' }), app.http.patch(`/api/institute/${b}`, { city: `cross:${a}`, name: 'Cross B 2' })]);
      const statuses = replies.map((r) => r.status).sort();
      figures(`crossing updates [${dialect}]`, { statuses });
      const names = [(await app.http.get(`/api/institute/${a}`)).body.name, (await app.http.get(`/api/institute/${b}`)).body.name];
      if (!app.deps.dialect.rowLocks) {
        // SQLite runs one write transaction at a time: nothing to deadlock on
        expect(statuses, replies.map((r) => r.text).join('\n')).to.deep.equal([200, 200]);
        expect(names).to.deep.equal(['Cross A 2', 'Cross B 2']);
        return;
      }
      expect(statuses, replies.map((r) => r.text).join('\n')).to.deep.equal([200, 503]);
      const lost = replies.find((r) => r.status === 503)!;
      expect(lost.headers.get('retry-after')).to.equal('1');
      expect(lost.body.error).to.deep.include({ status: 503, name: 'WriteConflictError' });
      expect(lost.body.error.message).to.match(/rolled back; nothing was written: send it again$/);
      expect(lost.body.error.details).to.deep.equal({ reason: 'deadlock', retryable: true, retryAfterSeconds: 1 });
      // the loser wrote nothing (its name change is gone); sent again, it goes through
      const won = replies.indexOf(replies.find((r) => r.status === 200)!);
      expect(names).to.deep.equal(won === 0 ? ['Cross A 2', 'Cross B'] : ['Cross A', 'Cross B 2']);
      const again = await app.http.patch(`/api/institute/${won === 0 ? b : a}`, { name: won === 0 ? 'Cross B 2' : 'Cross A 2' });
      expect(again.status, again.text).to.equal(200);
    });
  });
}
