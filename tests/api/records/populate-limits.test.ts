/**
 * Issue 13 item 2: populate multiplies output. To-many populates are bounded per parent
 * (POPULATE_DEFAULT_LIMIT, POPULATE_MAX_LIMIT) and paged per parent with `populate[rel][limit|offset]`;
 * one answer is bounded in records (ANSWER_MAX_RECORDS, nested ones counted) and bytes
 * (ANSWER_MAX_BYTES): a JSON 413 naming the setting, never a plain-text 500; and a large answer is
 * serialized without stalling other requests. Find, FindOne, grouped lists and write answers alike.
 */
import { expect } from 'chai';
import qs from 'qs';
import { DIALECTS } from '../../helpers/dialects';
import { createTestDatabase, type TestDatabase } from '../../helpers/test-db';
import { FIXTURE_MODELS, startTestApp, type TestApp } from '../../helpers/test-app';

const q = (o: Record<string, unknown>): string => qs.stringify(o, { encodeValuesOnly: true });
type Rec = Record<string, unknown> & { id: number };
const ids = (records: readonly Rec[]): number[] => records.map((r) => r.id);
const names = (records: readonly Rec[]): unknown[] => records.map((r) => r.feeType);

/** Fee types of institute A in insertion (= id) order: names deliberately not in id order. */
const A_FEES = ['a-g', 'a-c', 'a-e', 'a-a', 'a-f', 'a-b', 'a-d'];
const B_FEES = ['b-b', 'b-a'];

function expectTooLarge(res: { status: number; body: { error?: { status: number; name: string; message: string; details: Record<string, unknown> } }; text: string }, setting: string): void {
  expect(res.status, res.text.slice(0, 500)).to.equal(413);
  expect(res.body.error?.status).to.equal(413);
  expect(res.body.error?.name).to.equal('AnswerTooLargeError');
  expect(res.body.error?.message).to.include(setting);
  expect(res.body.error?.details.setting).to.equal(setting);
}

for (const dialect of DIALECTS) {
  describe(`populate limits: children per parent, records and bytes per answer [${dialect}]`, () => {
    let database: TestDatabase;
    let caps: TestApp;
    let inst: { A: number; B: number; C: number };
    const fee = new Map<string, number>();
    let none: number;

    before(async () => {
      database = await createTestDatabase(dialect);
      caps = await startTestApp(dialect, { database, env: { POPULATE_DEFAULT_LIMIT: '3', POPULATE_MAX_LIMIT: '5', ANSWER_MAX_RECORDS: '12' } });
      const made = await caps.http.post('/api/institute/bulk', [
        { name: 'Inst A', code: 'A', city: 'X' },
        { name: 'Inst B', code: 'B', city: 'X' },
        { name: 'Inst C', code: 'C' },
      ]);
      expect(made.status, made.text).to.equal(200);
      const [a, b, c] = made.body.data.map((r: Rec) => r.id);
      inst = { A: a, B: b, C: c };
      const fees = await caps.http.post('/api/fee-type/bulk', [
        ...A_FEES.map((feeType) => ({ feeType, instituteId: a })),
        ...B_FEES.map((feeType) => ({ feeType, instituteId: b })),
        { feeType: 'z-none' },
      ]);
      expect(fees.status, fees.text).to.equal(200);
      for (const r of fees.body.data as Rec[]) fee.set(String(r.feeType), r.id);
      none = fee.get('z-none') as number;
    });
    after(async () => {
      await caps?.close();
      await database?.drop();
    });

    const aIds = (): number[] => A_FEES.map((n) => fee.get(n) as number);
    const byName = (list: readonly string[], dir: 'asc' | 'desc'): string[] => [...list].sort((x, y) => (x < y ? -1 : 1) * (dir === 'asc' ? 1 : -1));
    const institutes = async (populate: unknown, extra: Record<string, unknown> = {}): Promise<Map<number, Rec>> => {
      const res = await caps.http.get(`/api/institute?${q({ populate, sort: ['id'], fields: ['name'], ...extra })}`);
      expect(res.status, res.text).to.equal(200);
      return new Map((res.body.records as Rec[]).map((r) => [r.id, r]));
    };

    describe('children per parent (POPULATE_DEFAULT_LIMIT=3, POPULATE_MAX_LIMIT=5)', () => {
      it('a to-many populate shows at most the default number of children of every parent, in id order', async () => {
        const found = await institutes(['feeTypes']);
        expect(ids(found.get(inst.A)?.feeTypes as Rec[])).to.deep.equal(aIds().slice(0, 3));
        expect(names(found.get(inst.B)?.feeTypes as Rec[])).to.deep.equal(B_FEES);
        expect(found.get(inst.C)?.feeTypes).to.deep.equal([]);
        const one = await caps.http.get(`/api/institute/${inst.A}?populate=feeTypes`);
        expect(ids(one.body.feeTypes)).to.deep.equal(aIds().slice(0, 3));
      });

      it('populate[rel][limit] at POPULATE_MAX_LIMIT is honoured; one past it is clamped to it', async () => {
        const at = await institutes({ feeTypes: { limit: '5' } });
        expect(ids(at.get(inst.A)?.feeTypes as Rec[])).to.deep.equal(aIds().slice(0, 5));
        const past = await institutes({ feeTypes: { limit: '6' } });
        expect(ids(past.get(inst.A)?.feeTypes as Rec[])).to.deep.equal(aIds().slice(0, 5));
        expect(names(past.get(inst.B)?.feeTypes as Rec[])).to.deep.equal(B_FEES);
        const one = await caps.http.get(`/api/institute/${inst.A}?${q({ populate: { feeTypes: { limit: '6' } } })}`);
        expect(one.body.feeTypes).to.have.length(5);
        const zero = await institutes({ feeTypes: { limit: '0' } });
        for (const r of zero.values()) expect(r.feeTypes).to.deep.equal([]);
      });

      it('populate[rel][limit] and [offset] page the children of every parent, in the populate sort', async () => {
        const page = await institutes({ feeTypes: { sort: ['feeType:desc'], limit: '2', offset: '1', fields: ['feeType'] } });
        expect(names(page.get(inst.A)?.feeTypes as Rec[])).to.deep.equal(byName(A_FEES, 'desc').slice(1, 3));
        expect(names(page.get(inst.B)?.feeTypes as Rec[])).to.deep.equal(byName(B_FEES, 'desc').slice(1, 3));
        expect(page.get(inst.C)?.feeTypes).to.deep.equal([]);
        // walking the pages of every parent shows each child exactly once, in order
        const walked = new Map<number, unknown[]>();
        for (let offset = 0; offset < 8; offset += 2) {
          const p = await institutes({ feeTypes: { sort: ['feeType'], limit: '2', offset: String(offset), fields: ['feeType'] } });
          for (const [id, r] of p) walked.set(id, [...(walked.get(id) ?? []), ...names(r.feeTypes as Rec[])]);
        }
        expect(walked.get(inst.A)).to.deep.equal(byName(A_FEES, 'asc'));
        expect(walked.get(inst.B)).to.deep.equal(byName(B_FEES, 'asc'));
        expect(walked.get(inst.C)).to.deep.equal([]);
        // filters inside the populate apply before the per-parent page
        const filtered = await institutes({ feeTypes: { filters: { feeType: { $in: ['a-a', 'a-b', 'a-c', 'b-a'] } }, sort: ['-feeType'], offset: '1', fields: ['feeType'] } });
        expect(names(filtered.get(inst.A)?.feeTypes as Rec[])).to.deep.equal(['a-b', 'a-a']);
        expect(filtered.get(inst.B)?.feeTypes).to.deep.equal([]);
      });

      it('bad limit / offset values, and paging a to-one relation, answer 400 naming the parameter', async () => {
        const cases: [string, string, string][] = [
          ['institute', 'populate[feeTypes][limit]=x', 'populate[feeTypes][limit]'],
          ['institute', 'populate[feeTypes][limit]=-1', 'populate[feeTypes][limit]'],
          ['institute', 'populate[feeTypes][offset]=1.5', 'populate[feeTypes][offset]'],
          ['fee-type', 'populate[institute][limit]=2', 'populate[institute][limit]'],
          ['fee-type', 'populate[institute][offset]=1', 'populate[institute][offset]'],
        ];
        for (const [model, query, parameter] of cases) {
          const res = await caps.http.get(`/api/${model}?${query}`);
          expect(res.status, `${query}: ${res.text}`).to.equal(400);
          expect(res.body.error.details.parameter, query).to.equal(parameter);
        }
        // `populate[*][limit]` pages the to-many relations and leaves the to-one ones alone
        const star = await caps.http.get(`/api/fee-type/${fee.get('a-g')}?populate[*][limit]=2`);
        expect(star.status, star.text).to.equal(200);
        expect((star.body.institute as Rec).id).to.equal(inst.A);
        const starMany = await caps.http.get(`/api/institute/${inst.A}?populate[*][limit]=2`);
        expect(ids(starMany.body.feeTypes)).to.deep.equal(aIds().slice(0, 2));
      });
    });

    describe('records per answer (ANSWER_MAX_RECORDS=12, nested records counted)', () => {
      const six = (): number[] => aIds().slice(0, 6);
      it('Find: 12 records (6 fee types + 6 populated institutes) answer 200; 13 answer 413 naming the setting', async () => {
        const at = await caps.http.get(`/api/fee-type?${q({ filters: { id: { $in: six() } }, populate: ['institute'], sort: ['id'] })}`);
        expect(at.status, at.text).to.equal(200);
        expect(at.body.records).to.have.length(6);
        expect(at.body.records.every((r: Rec) => (r.institute as Rec).id === inst.A)).to.equal(true);
        const past = await caps.http.get(`/api/fee-type?${q({ filters: { id: { $in: [...six(), none] } }, populate: ['institute'], sort: ['id'] })}`);
        expectTooLarge(past, 'ANSWER_MAX_RECORDS');
      });

      it('to-many children count once per parent they appear under, at every level', async () => {
        // 2 institutes + (3 + 2) fee types + (3 + 2) institutes under them = 12
        const at = await caps.http.get(`/api/institute?${q({ filters: { id: { $in: [inst.A, inst.B] } }, populate: { feeTypes: { populate: { institute: { fields: ['code'] } } } } })}`);
        expect(at.status, at.text).to.equal(200);
        const past = await caps.http.get(`/api/institute?${q({ filters: { id: { $in: [inst.A, inst.B] } }, populate: { feeTypes: { limit: '4', populate: { institute: { fields: ['code'] } } } } })}`);
        expectTooLarge(past, 'ANSWER_MAX_RECORDS');
        // FindOne: 1 + 5 + 5 = 11, then 1 + 5 + 5 + 25
        const one = await caps.http.get(`/api/institute/${inst.A}?${q({ populate: { feeTypes: { limit: '5', populate: { institute: true } } } })}`);
        expect(one.status, one.text).to.equal(200);
        const deep = await caps.http.get(`/api/institute/${inst.A}?${q({ populate: { feeTypes: { limit: '5', populate: { institute: { populate: { feeTypes: { limit: '5' } } } } } } })}`);
        expectTooLarge(deep, 'ANSWER_MAX_RECORDS');
      });

      it('groupBy + populateGroup: group records and their populates count; children per parent are bounded', async () => {
        const grouped = (idList: number[]) =>
          caps.http.get(`/api/fee-type?${q({ filters: { id: { $in: idList } }, groupBy: ['partPaymentAllowed'], populateGroup: 'true', populate: ['institute'], groupFilter: { limit: '10' } })}`);
        const at = await grouped(six());
        expect(at.status, at.text).to.equal(200);
        expect(at.body.groupRecords[0].records).to.have.length(6);
        expectTooLarge(await grouped([...six(), none]), 'ANSWER_MAX_RECORDS');
        const byCity = await caps.http.get(`/api/institute?${q({ groupBy: ['city'], populateGroup: 'true', populate: ['feeTypes'], fields: ['name'] })}`);
        expect(byCity.status, byCity.text).to.equal(200);
        const inGroups = (byCity.body.groupRecords as { records: Rec[] }[]).flatMap((g) => g.records);
        expect(ids(inGroups.find((r) => r.id === inst.A)?.feeTypes as Rec[])).to.deep.equal(aIds().slice(0, 3));
      });
    });

    describe('bytes per answer (ANSWER_MAX_BYTES)', () => {
      let bytes: TestApp;
      let cap: number;
      const PAD = 120;
      const oneUrl = (): string => `/api/institute/${inst.B}?${q({ populate: { feeTypes: { fields: ['feeType'] } } })}`;
      const findUrl = (): string => `/api/institute?${q({ filters: { id: { $eq: inst.B } }, populate: { feeTypes: { fields: ['feeType'] } } })}`;
      const groupUrl = (): string => `/api/institute?${q({ filters: { id: { $eq: inst.B } }, groupBy: ['code'], populateGroup: 'true', fields: ['name'], populate: { feeTypes: { fields: ['feeType'] } } })}`;
      const size = async (url: string): Promise<number> => {
        const res = await caps.http.get(url);
        expect(res.status, res.text).to.equal(200);
        return Buffer.byteLength(res.text);
      };
      /** Sets B's `field` so that the answer of `url` (which shows the field once) is `target` bytes. */
      const fit = async (url: string, field: 'city' | 'name', target: number): Promise<void> => {
        const now = await caps.http.get(`/api/institute/${inst.B}`);
        const current = String(now.body[field] ?? '');
        const length = current.length + target - (await size(url));
        expect(length, 'the padding fits the field').to.be.within(1, 255);
        const patched = await caps.http.patch(`/api/institute/${inst.B}`, { [field]: field === 'name' ? `Inst B ${'x'.repeat(length - 7)}` : 'x'.repeat(length) });
        expect(patched.status, patched.text).to.equal(200);
        expect(await size(url)).to.equal(target);
      };

      before(async () => {
        await caps.http.patch(`/api/institute/${inst.B}`, { city: 'X' });
        cap = (await size(oneUrl())) + PAD;
        bytes = await startTestApp(dialect, { database, env: { ANSWER_MAX_BYTES: String(cap) } });
      });
      after(async () => {
        await bytes?.close();
        await caps.http.patch(`/api/institute/${inst.B}`, { city: 'X', name: 'Inst B' });
      });

      it('FindOne: an answer of exactly ANSWER_MAX_BYTES answers 200, one byte more 413 naming the setting', async () => {
        await fit(oneUrl(), 'city', cap);
        const at = await bytes.http.get(oneUrl());
        expect(at.status, at.text).to.equal(200);
        expect(Buffer.byteLength(at.text)).to.equal(cap);
        expect(at.headers.get('content-type')).to.match(/^application\/json/);
        await fit(oneUrl(), 'city', cap + 1);
        expectTooLarge(await bytes.http.get(oneUrl()), 'ANSWER_MAX_BYTES');
      });

      it('Find: at the limit 200, one byte past 413', async () => {
        await fit(findUrl(), 'city', cap);
        const at = await bytes.http.get(findUrl());
        expect(at.status, at.text).to.equal(200);
        expect(at.body.records[0].feeTypes).to.have.length(2);
        await fit(findUrl(), 'city', cap + 1);
        expectTooLarge(await bytes.http.get(findUrl()), 'ANSWER_MAX_BYTES');
      });

      it('groupBy + populateGroup: at the limit 200, one byte past 413', async () => {
        await caps.http.patch(`/api/institute/${inst.B}`, { city: 'X' });
        await fit(groupUrl(), 'name', cap);
        const at = await bytes.http.get(groupUrl());
        expect(at.status, at.text).to.equal(200);
        expect(at.body.groupRecords[0].records[0].feeTypes).to.have.length(2);
        await fit(groupUrl(), 'name', cap + 1);
        expectTooLarge(await bytes.http.get(groupUrl()), 'ANSWER_MAX_BYTES');
      });

      it('a write whose answer is too large is carried out and answers 413 saying so', async () => {
        const res = await bytes.http.post('/api/institute', { name: 'n'.repeat(255), code: 'BIG', city: 'c'.repeat(255) });
        expectTooLarge(res, 'ANSWER_MAX_BYTES');
        expect(res.body.error.message).to.match(/carried out/);
        const stored = await caps.http.get(`/api/institute?${q({ filters: { code: { $eq: 'BIG' } }, fields: ['code'] })}`);
        expect(stored.body.records).to.have.length(1);
      });
    });
  });

  describe(`populate limits: the reviewer's request and a large answer, default settings [${dialect}]`, () => {
    let app: TestApp;
    const FEES = 101;

    before(async () => {
      app = await startTestApp(dialect);
      const made = await app.http.post('/api/institute', { name: 'Big', code: 'BIG', city: 'Springfield' });
      expect(made.status, made.text).to.equal(200);
      const instituteId = made.body.data.id;
      const fees = await app.http.post('/api/fee-type/bulk', Array.from({ length: FEES }, (_, i) => ({ feeType: `fee ${String(i).padStart(3, '0')}`, instituteId, latePaymentFeesType: 'fixed', latePaymentFees: 12.5, dueDate: '2026-03-31' })));
      expect(fees.status, fees.text.slice(0, 300)).to.equal(200);
    });
    after(async () => app?.close());

    it('limit=100&populate=institute.feeTypes.institute.feeTypes answers 200 with 10 children per parent (POPULATE_DEFAULT_LIMIT)', async () => {
      const started = Date.now();
      const res = await fetch(`${app.url}/api/fee-type?limit=100&populate=institute.feeTypes.institute.feeTypes`, { headers: { authorization: `Bearer ${app.admin?.accessToken}` } });
      const text = await res.text();
      expect(res.status, text.slice(0, 300)).to.equal(200);
      expect(Buffer.byteLength(text)).to.be.below(16 * 1024 * 1024);
      const body = JSON.parse(text) as { records: Rec[] };
      expect(body.records).to.have.length(100);
      for (const r of body.records) {
        const nested = (r.institute as Rec).feeTypes as Rec[];
        expect(nested).to.have.length(10);
        for (const f of nested) expect(((f.institute as Rec).feeTypes as Rec[]).map((x) => x.feeType)).to.deep.equal(nested.map((x) => x.feeType));
      }
      expect(Date.now() - started).to.be.below(10_000);
      // one level deeper (the depth limit's last level) still answers within the bounds
      const deeper = await fetch(`${app.url}/api/fee-type?limit=100&populate=institute.feeTypes.institute.feeTypes.institute`, { headers: { authorization: `Bearer ${app.admin?.accessToken}` } });
      expect(deeper.status).to.equal(200);
      await deeper.arrayBuffer();
    });

    it('the same request through groupBy + populateGroup answers 200 with 10 children per parent', async () => {
      const res = await fetch(`${app.url}/api/fee-type?groupBy=partPaymentAllowed&populateGroup=true&groupFilter[limit]=100&populate=institute.feeTypes.institute.feeTypes`, { headers: { authorization: `Bearer ${app.admin?.accessToken}` } });
      const text = await res.text();
      expect(res.status, text.slice(0, 300)).to.equal(200);
      const body = JSON.parse(text) as { groupRecords: { records: Rec[] }[] };
      expect(body.groupRecords[0].records).to.have.length(100);
      for (const r of body.groupRecords[0].records) expect((r.institute as Rec).feeTypes).to.have.length(10);
      const wide = { institute: { populate: { feeTypes: { limit: '100', populate: { institute: { populate: { feeTypes: { limit: '100' } } } } } } } };
      const refused = await app.http.get(`/api/fee-type?${q({ groupBy: ['partPaymentAllowed'], populateGroup: 'true', groupFilter: { limit: '100' }, populate: wide })}`);
      expectTooLarge(refused, 'ANSWER_MAX_RECORDS');
    });

    it('the same shape with 100 children per parent would be 1,000,000 records: a JSON 413 naming ANSWER_MAX_RECORDS, not a 500', async () => {
      const populate = { institute: { populate: { feeTypes: { limit: '100', populate: { institute: { populate: { feeTypes: { limit: '100' } } } } } } } };
      const res = await app.http.get(`/api/fee-type?${q({ limit: 100, populate })}`);
      expectTooLarge(res, 'ANSWER_MAX_RECORDS');
      expect(res.body.error.details.limit).to.equal(50_000);
    });

    it('while a ~10 MB answer is produced, /health keeps answering (largest gap below 200 ms)', async function () {
      this.timeout(60_000);
      // 100 + 100 + 1,500 + 1,500 + 27,000 records, ~350 bytes each
      const populate = { institute: { populate: { feeTypes: { limit: '15', populate: { institute: { populate: { feeTypes: { limit: '18' } } } } } } } };
      const url = `${app.url}/api/fee-type?${q({ limit: 100, populate })}`;
      const health = `${app.url}/health`;
      await (await fetch(health)).text(); // warm the connection pool
      let done = false;
      const big = (async () => {
        const res = await fetch(url, { headers: { authorization: `Bearer ${app.admin?.accessToken}` } });
        const buf = await res.arrayBuffer();
        done = true;
        return { status: res.status, bytes: buf.byteLength };
      })();
      const answeredAt: number[] = [performance.now()];
      while (!done) {
        const res = await fetch(health);
        expect(res.status).to.equal(200);
        await res.text();
        answeredAt.push(performance.now());
        await new Promise((r) => setTimeout(r, 3));
      }
      const answer = await big;
      expect(answer.status).to.equal(200);
      expect(answer.bytes).to.be.above(8 * 1024 * 1024);
      const gaps = answeredAt.slice(1).map((t, i) => t - answeredAt[i]);
      expect(Math.max(...gaps), `gaps: ${gaps.length}, largest ${Math.max(...gaps).toFixed(1)} ms`).to.be.below(200);
    });
  });

  describe(`populate limits: many-to-many children paged per parent [${dialect}]`, () => {
    let app: TestApp;
    const tag = new Map<string, number>();
    const book = new Map<string, number>();

    before(async () => {
      app = await startTestApp(dialect, { contentTypesDir: FIXTURE_MODELS, env: { POPULATE_DEFAULT_LIMIT: '2' } });
      for (const label of ['t1', 't2', 't3']) tag.set(label, (await app.http.post('/api/tag', { label })).body.data.id);
      const seeds: [string, string[]][] = [['b5', ['t1', 't2']], ['b3', ['t1']], ['b1', ['t1', 't2', 't3']], ['b4', ['t1', 't2']], ['b2', ['t1']]];
      for (const [title, tags] of seeds) {
        const res = await app.http.post('/api/book', { title, tags: tags.map((t) => tag.get(t)) });
        expect(res.status, res.text).to.equal(200);
        book.set(title, res.body.data.id);
      }
    });
    after(async () => app?.close());

    it('the inverse side (tag.books) pages per tag in the populate sort', async () => {
      const res = await app.http.get(`/api/tag?${q({ sort: ['label'], populate: { books: { sort: ['title'], limit: '2', offset: '1', fields: ['title'] } } })}`);
      expect(res.status, res.text).to.equal(200);
      const titles = (res.body.records as Rec[]).map((t) => (t.books as Rec[]).map((b) => b.title));
      expect(titles).to.deep.equal([['b2', 'b3'], ['b4', 'b5'], []]);
    });

    it('the owning side (book.tags) is bounded by the default and paged per book', async () => {
      const def = await app.http.get(`/api/book/${book.get('b1')}?populate=tags`);
      expect((def.body.tags as Rec[]).map((t) => t.label)).to.deep.equal(['t1', 't2']);
      const res = await app.http.get(`/api/book?${q({ sort: ['title'], populate: { tags: { sort: ['-label'], offset: '1', fields: ['label'] } } })}`);
      const labels = (res.body.records as Rec[]).map((b) => (b.tags as Rec[]).map((t) => t.label));
      expect(labels).to.deep.equal([['t2', 't1'], [], [], ['t1'], ['t1']]);
    });
  });
}
