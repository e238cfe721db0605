/**
 * Issue 13 items 4–6 over HTTP, the same on both databases: a model's pattern runs in linear time
 * (no hang), NUL characters and unknown time zones are refused in our words, and every value is
 * checked against the column's range before SQL: at each limit a value is stored and read back
 * exactly, one past it is refused, and no answer carries the driver's text.
 */
import { expect } from 'chai';
import { join } from 'node:path';
import { DIALECTS } from '../../helpers/dialects';
import type { Reply } from '../../helpers/http';
import { ROOT, startTestApp, type TestApp } from '../../helpers/test-app';

const MODELS = join(ROOT, 'tests', 'fixtures', 'value-bounds');
const INT4_MAX = 2147483647;
const NUL = 'must not contain the NUL character (\\u0000)';
const DRIVER_TEXT = /invalid byte sequence|out of range for type|numeric field overflow|date\/time field value|22\d\d\d|SQLITE_/;

type Rec = Record<string, unknown>;

/** A 422 naming exactly `fields`, in our words. */
function refused(res: Reply, fields: readonly string[]): void {
  expect(res.status, res.text).to.equal(422);
  expect(Object.keys(res.body.error.details.fields ?? {}), res.text).to.have.members([...fields]);
  expect(res.text).to.not.match(DRIVER_TEXT);
}

/** A 400 naming the query parameter, in our words. */
function badParameter(res: Reply, parameter: string): void {
  expect(res.status, res.text).to.equal(400);
  expect(res.body.error.details.parameter, res.text).to.equal(parameter);
  expect(res.text).to.not.match(DRIVER_TEXT);
}

for (const dialect of DIALECTS) {
  describe(`value bounds: patterns, NUL, time zones, column ranges [${dialect}]`, () => {
    let app: TestApp;
    let dialId: number;

    before(async () => {
      app = await startTestApp(dialect, { contentTypesDir: MODELS });
      dialId = (await app.http.post('/api/dial', { name: 'north' })).body.data.id;
    });
    after(async () => app?.close());

    const create = (body: Rec): Promise<Reply> => app.http.post('/api/gauge', body);
    const count = async (): Promise<number> => (await app.http.get('/api/gauge?limit=1')).body.meta.totalRecords;

    /** Creates, then reads back by id: the stored value of `field`. */
    async function roundTrip(field: string, value: unknown): Promise<unknown> {
      const made = await create({ [field]: value });
      expect(made.status, made.text).to.equal(200);
      const got = await app.http.get(`/api/gauge/${made.body.data.id}`);
      expect(got.body[field], `${field} as created`).to.deep.equal(made.body.data[field]);
      return got.body[field];
    }

    describe('item 4: a pattern runs in linear time', () => {
      it('accepts and refuses by the pattern ^(a+)+$', async () => {
        expect(await roundTrip('code', 'aaaa')).to.equal('aaaa');
        refused(await create({ code: 'aab' }), ['code']);
        refused(await create({ code: '' }), ['code']);
      });

      it('answers an adversarial value (47 and 250 characters) with 422 at once, create and patch alike', async () => {
        const id = (await create({ code: 'a' })).body.data.id;
        for (const n of [47, 250]) {
          const value = `${'a'.repeat(n)}!`;
          const started = Date.now();
          refused(await create({ code: value }), ['code']);
          refused(await app.http.patch(`/api/gauge/${id}`, { code: value }), ['code']);
          expect(Date.now() - started, `${n} characters`).to.be.below(2000);
        }
        expect((await app.http.get('/health')).status).to.equal(200);
      });
    });

    describe('item 5: NUL characters and time zones', () => {
      it('refuses NUL in strings, text, JSON values and JSON keys (nested too) with 422 naming the field; nothing is stored', async () => {
        const before = await count();
        for (const [field, value] of [
          ['label', 'a\u0000b'],
          ['note', '\u0000'],
          ['meta', 'x\u0000'],
          ['meta', { 'k\u0000': 1 }],
          ['meta', { a: [{ b: ['ok', 'x\u0000y'] }] }],
          ['meta', { a: { 'deep\u0000key': null } }],
        ] as const) {
          const res = await create({ label: 'fine', [field]: value });
          refused(res, [field]);
          expect(res.body.error.details.fields[field]).to.deep.equal([NUL]);
        }
        expect(await count()).to.equal(before);
      });

      it('refuses NUL in updates, in relation user keys and in bulk items (by index)', async () => {
        const id = (await create({ label: 'x' })).body.data.id;
        refused(await app.http.patch(`/api/gauge/${id}`, { meta: { note: 'a\u0000' } }), ['meta']);
        refused(await app.http.put(`/api/gauge/${id}`, { label: '\u0000' }), ['label']);
        refused(await create({ dialUserKey: 'north\u0000' }), ['dialUserKey']);
        const bulk = await app.http.post('/api/gauge/bulk', [{ label: 'ok' }, { label: 'a\u0000' }]);
        expect(bulk.status).to.equal(422);
        expect(bulk.body.error.details.errors).to.deep.equal([{ index: 1, fields: { label: [NUL] } }]);
        expect(bulk.body.error.details.fields).to.deep.equal({ label: [`item 1: ${NUL}`] });
        expect((await app.http.get(`/api/gauge/${id}`)).body.label).to.equal('x');
      });

      it('refuses a lone UTF-16 surrogate (not Unicode text) the same way', async () => {
        refused(await create({ label: '\ud800' }), ['label']);
        refused(await create({ meta: { '\udc00': 1 } }), ['meta']);
        expect(await roundTrip('label', 'emoji 😀 ok')).to.equal('emoji 😀 ok');
      });

      it('a sign-in whose username or e-mail holds NUL answers 422, never 500', async () => {
        refused(await app.anon.post('/api/iam/authenticate', { username: 'ad\u0000min', password: 'whatever-password' }), ['username']);
        refused(await app.anon.post('/api/iam/authenticate', { email: 'a\u0000@example.test', password: 'whatever-password' }), ['email']);
      });

      it('refuses NUL in query values with 400 naming the parameter', async () => {
        badParameter(await app.http.get('/api/gauge?filters[label][$eq]=a%00b'), 'filters[label][$eq]');
        badParameter(await app.http.get('/api/gauge?filters[label][$containsi]=%00'), 'filters[label][$containsi]');
        badParameter(await app.http.get('/api/gauge?filters[dial][name][$eq]=n%00'), 'filters[dial][name][$eq]');
      });

      it('refuses a time zone the database does not know (US/Pacific-New: Node knows it) with 400 naming timezone', async () => {
        await create({ label: 'tz', happenedAt: '2026-03-01T12:00:00Z' });
        for (const zone of ['US/Pacific-New', 'Mars/Olympus_Mons']) {
          const res = await app.http.get(`/api/gauge?groupBy=happenedAt:day&timezone=${encodeURIComponent(zone)}`);
          badParameter(res, 'timezone');
          expect(res.body.error.message).to.match(/^timezone: /);
        }
        // A name the database knows: PostgreSQL and MariaDB (its time zone tables) bucket in it (its own spelling, any case); SQLite knows offsets only (CONTRACT).
        for (const zone of ['America/Los_Angeles', 'america/los_angeles']) {
          const named = await app.http.get(`/api/gauge?groupBy=happenedAt:day&timezone=${encodeURIComponent(zone)}`);
          expect(named.status, named.text).to.equal(dialect === 'sqlite' ? 400 : 200);
        }
        const offset = await app.http.get(`/api/gauge?groupBy=happenedAt:day&timezone=${encodeURIComponent('-08:00')}`);
        expect(offset.status, offset.text).to.equal(200);
        expect(offset.body.groupMeta.map((g: { groupKey: Rec }) => g.groupKey['happenedAt:day'])).to.include('2026-03-01');
      });
    });

    describe('item 6: column ranges, checked before SQL', () => {
      it('datetimes: years 0001 to 9999 in UTC are stored exactly; one past is refused', async () => {
        expect(await roundTrip('happenedAt', '0001-01-01T00:00:00Z')).to.equal('0001-01-01T00:00:00.000Z');
        expect(await roundTrip('happenedAt', '9999-12-31T23:59:59.999Z')).to.equal('9999-12-31T23:59:59.999Z');
        for (const v of ['0000-01-01T00:00:00Z', '0000-12-31T23:59:59.999Z', '0001-01-01T00:30:00+01:00', '9999-12-31T23:59:59.999-00:01', '10000-01-01T00:00:00Z', '2016-12-31T23:59:60Z']) {
          const res = await create({ happenedAt: v });
          refused(res, ['happenedAt']);
        }
        const res = await create({ happenedAt: '0000-01-01T00:00:00Z' });
        expect(res.body.error.details.fields.happenedAt).to.deep.equal(['must be an instant from 0001-01-01T00:00:00.000Z to 9999-12-31T23:59:59.999Z (in UTC)']);
      });

      it('dates: 0001-01-01 and 9999-12-31 are stored exactly; year 0 and year 10000 are refused', async () => {
        expect(await roundTrip('day', '0001-01-01')).to.equal('0001-01-01');
        expect(await roundTrip('day', '9999-12-31')).to.equal('9999-12-31');
        const zero = await create({ day: '0000-12-31' });
        refused(zero, ['day']);
        expect(zero.body.error.details.fields.day).to.deep.equal(['must be a date from 0001-01-01 to 9999-12-31']);
        refused(await create({ day: '10000-01-01' }), ['day']);
      });

      it('decimals (18,4): 14 digits before the point are stored exactly; 15 are refused (99999999999999.99999 too)', async () => {
        expect(await roundTrip('amount', 99999999999999.5)).to.equal(99999999999999.5);
        expect(await roundTrip('amount', -99999999999999.5)).to.equal(-99999999999999.5);
        expect(await roundTrip('amount', 12.3456)).to.equal(12.3456);
        for (const v of [100000000000000, -100000000000000, 99999999999999.99999, 1e20]) refused(await create({ amount: v }), ['amount']);
      });

      it('integers: the 32-bit column range is stored exactly; one past it is refused; bigintegers up to 2^53-1', async () => {
        expect(await roundTrip('count', INT4_MAX)).to.equal(INT4_MAX);
        expect(await roundTrip('count', -INT4_MAX - 1)).to.equal(-INT4_MAX - 1);
        refused(await create({ count: INT4_MAX + 1 }), ['count']);
        refused(await create({ count: -INT4_MAX - 2 }), ['count']);
        expect(await roundTrip('big', Number.MAX_SAFE_INTEGER)).to.equal(Number.MAX_SAFE_INTEGER);
        refused(await create({ big: Number.MAX_SAFE_INTEGER + 1 }), ['big']);
      });

      it('strings without maxLength hold the column’s 255 characters; 256 are refused', async () => {
        const at = 'é'.repeat(255);
        expect(await roundTrip('label', at)).to.equal(at);
        refused(await create({ label: `${at}x` }), ['label']);
      });

      it('times: 23:59:59.999999 is stored exactly; 24:00 and 25:00 are refused', async () => {
        expect(await roundTrip('clock', '23:59:59.999999')).to.equal('23:59:59.999999');
        refused(await create({ clock: '24:00' }), ['clock']);
        refused(await create({ clock: '25:00:00' }), ['clock']);
      });

      it('relation ids past the integer column are refused as ours (422), to-one and to-many alike', async () => {
        refused(await create({ dialId: INT4_MAX + 1 }), ['dialId']);
        refused(await create({ dialId: 99999999999 }), ['dialId']);
        refused(await create({ dials: [dialId, INT4_MAX + 1] }), ['dials']);
        const none = await create({ dialId: INT4_MAX });
        refused(none, ['dialId']);
        const linked = await create({ dialId, dials: [dialId] });
        expect(linked.status, linked.text).to.equal(200);
      });

      it('ids in paths and bulk bodies past the column name no record: 404 on both databases', async () => {
        const one = await app.http.get('/api/gauge/99999999999');
        expect(one.status, one.text).to.equal(404);
        expect(one.body.error.message).to.equal('no gauge with id 99999999999');
        expect((await app.http.patch('/api/gauge/2147483648', { label: 'x' })).status).to.equal(404);
        expect((await app.http.del('/api/gauge/2147483648')).status).to.equal(404);
        const bulk = await app.http.del('/api/gauge/bulk', [99999999999]);
        expect(bulk.status, bulk.text).to.equal(404);
        expect(bulk.body.error.details.missingIds).to.deep.equal([99999999999]);
      });

      it('a date-time filter naming no real instant (30 February, 31 April, hour 24) answers 400, as a body with it answers 422; real ones run', async () => {
        for (const v of ['2026-02-30T00:00:00Z', '2026-04-31T12:00:00Z', '2026-02-29T00:00:00Z', '2026-01-01T24:00:00Z', '2026-01-01T23:60:00Z', '2026-02-30']) {
          badParameter(await app.http.get(`/api/gauge?filters[happenedAt][$gt]=${v}`), 'filters[happenedAt][$gt]');
          badParameter(await app.http.get(`/api/gauge?filters[createdAt][$in][0]=2026-01-01T00:00:00Z&filters[createdAt][$in][1]=${v}`), 'filters[createdAt][$in][1]');
        }
        refused(await create({ happenedAt: '2026-02-30T00:00:00Z' }), ['happenedAt']);
        for (const v of ['2028-02-29T00:00:00Z', '2026-01-01T23:59:59.999%2B05:30', '2026-01-01']) {
          const res = await app.http.get(`/api/gauge?filters[happenedAt][$gt]=${v}`);
          expect(res.status, `${v}: ${res.text}`).to.equal(200);
        }
      });

      it('filter values outside a column’s range answer 400 naming the parameter; at the limit they run', async () => {
        badParameter(await app.http.get('/api/gauge?filters[id][$eq]=99999999999'), 'filters[id][$eq]');
        badParameter(await app.http.get('/api/gauge?filters[count][$gt]=2147483648'), 'filters[count][$gt]');
        badParameter(await app.http.get('/api/gauge?filters[dialId][$in][0]=2147483648'), 'filters[dialId][$in][0]');
        badParameter(await app.http.get('/api/gauge?filters[amount][$lt]=100000000000000'), 'filters[amount][$lt]');
        badParameter(await app.http.get('/api/gauge?filters[day][$eq]=0000-01-01'), 'filters[day][$eq]');
        badParameter(await app.http.get('/api/gauge?filters[happenedAt][$lt]=0000-12-31T00:00:00Z'), 'filters[happenedAt][$lt]');
        badParameter(await app.http.get('/api/gauge?filters[createdAt][$gt]=0000-01-01T00:00:00Z'), 'filters[createdAt][$gt]');
        for (const q of [
          `filters[id][$eq]=${INT4_MAX}`,
          `filters[count][$lte]=${INT4_MAX}`,
          'filters[amount][$lt]=99999999999999.5',
          'filters[day][$gte]=0001-01-01',
          'filters[happenedAt][$lte]=9999-12-31T23:59:59.999Z',
        ]) {
          const res = await app.http.get(`/api/gauge?${q}`);
          expect(res.status, `${q}: ${res.text}`).to.equal(200);
        }
      });
    });
  });

  describe(`value bounds on the shipped models: the reproductions of issue 13 [${dialect}]`, () => {
    let app: TestApp;

    before(async () => {
      app = await startTestApp(dialect);
      await app.http.post('/api/institute', { name: 'Inst', code: 'INST' });
    });
    after(async () => app?.close());

    it('latePaymentFees 99999999999999.99999 → 422 naming the field, in our words', async () => {
      refused(await app.http.post('/api/fee-type', { feeType: 'Late', latePaymentFees: 99999999999999.99999 }), ['latePaymentFees']);
      const ok = await app.http.post('/api/fee-type', { feeType: 'Late', latePaymentFees: 99999999999999.5 });
      expect(ok.status, ok.text).to.equal(200);
      expect(ok.body.data.latePaymentFees).to.equal(99999999999999.5);
    });

    it('instituteId 99999999999 → 422 naming the field; filters[id][$eq]=99999999999 → 400', async () => {
      refused(await app.http.post('/api/fee-type', { feeType: 'Huge', instituteId: 99999999999 }), ['instituteId']);
      badParameter(await app.http.get('/api/fee-type?filters[id][$eq]=99999999999'), 'filters[id][$eq]');
    });

    it('dueDate 0000-01-01 and feeType with NUL → 422 naming the field', async () => {
      refused(await app.http.post('/api/fee-type', { feeType: 'Zero', dueDate: '0000-01-01' }), ['dueDate']);
      refused(await app.http.post('/api/fee-type', { feeType: 'a\u0000b' }), ['feeType']);
    });
  });
}
