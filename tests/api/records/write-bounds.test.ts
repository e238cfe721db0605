/**
 * The bounds of one write, the same on SQLite, PostgreSQL and MariaDB:
 * - a JSON value may be an array of any length the body takes (200,000 items): no 500 from a spread
 *   of it onto the call stack, on create, PUT, PATCH, bulk and the multipart forms;
 * - a many-to-many write takes 1,000 ids (SQLite caps a multi-row INSERT at 500 rows: written in
 *   chunks), on create, update, bulk and publish; 1,001 answer 422 naming the limit `relationIds`;
 * - the relation links one call writes (published copies' included) are bounded by WRITE_MAX_LINKS:
 *   400 naming the setting and its limit, checked before anything is written;
 * - records per bulk create and ids per bulk publish / unpublish / delete / recover: 1,000, past it
 *   400 naming `bulkItems` / `bulkIds`.
 */
import { expect } from 'chai';
import { join } from 'node:path';
import { DIALECTS } from '../../helpers/dialects';
import type { Reply } from '../../helpers/http';
import { sendForm } from '../../helpers/multipart';
import { ROOT, startTestApp, type TestApp } from '../../helpers/test-app';

const MODELS = join(ROOT, 'tests', 'fixtures', 'write-bounds');
/** WRITE_MAX_LINKS of these tests: two full relations of one record. */
const MAX_LINKS = 2000;
const BIG = 200_000;

type Rec = Record<string, unknown>;

function ok(res: { status: number; body: any }): void {
  expect(res.status, JSON.stringify(res.body).slice(0, 500)).to.equal(200);
}

/** A 400 whose details name the limit (and its setting when it has one) and its maximum. */
function pastLimit(res: Reply, limit: string, max: number, setting?: string): void {
  expect(res.status, res.text.slice(0, 500)).to.equal(400);
  expect(res.body.error.name).to.equal('BadRequestError');
  expect(res.body.error.details, res.text).to.deep.include({ limit, max, ...(setting && { setting }) });
  expect(res.body.error.message).to.include(String(max));
}

for (const dialect of DIALECTS) {
  describe(`write bounds: JSON arrays, relation ids, links per call, bulk sizes [${dialect}]`, () => {
    let app: TestApp;
    let pegs: number[];

    before(async () => {
      app = await startTestApp(dialect, { contentTypesDir: MODELS, env: { WRITE_MAX_LINKS: String(MAX_LINKS) } });
      const made = await app.http.post('/api/peg/bulk', Array.from({ length: 1000 }, (_, i) => ({ name: `p${i}` })));
      ok(made);
      const last = await app.http.post('/api/peg', { name: 'p1000' });
      ok(last);
      pegs = [...(made.body.data as Rec[]).map((r) => r.id as number), last.body.data.id as number];
      expect(pegs).to.have.length(1001);
    });
    after(async () => app?.close());

    const count = async (query = ''): Promise<number> => {
      const res = await app.http.get(`/api/crate?limit=1${query}`);
      ok(res);
      return res.body.meta.totalRecords as number;
    };
    /** Crates (drafts, or published copies) linked to peg `peg` through `relation`. */
    const linkedTo = (peg: number, relation = 'pegs', status = 'draft'): Promise<number> => count(`&status=${status}&filters[${relation}][id][$eq]=${peg}`);

    describe('JSON arrays of 200,000 items', () => {
      const big = (): number[] => new Array<number>(BIG).fill(0);
      const stored = async (id: number): Promise<void> => {
        const got = await app.http.get(`/api/crate/${id}?status=draft`);
        ok(got);
        expect((got.body.data ?? got.body).payload).to.have.length(BIG);
      };

      it('create, PUT, PATCH and bulk take a 200,000-item array and store it whole', async () => {
        const made = await app.http.post('/api/crate', { label: 'json', payload: big() });
        ok(made);
        const id = made.body.data.id as number;
        await stored(id);
        ok(await app.http.put(`/api/crate/${id}`, { label: 'json put', payload: big() }));
        ok(await app.http.patch(`/api/crate/${id}`, { payload: big() }));
        await stored(id);
        const bulk = await app.http.post('/api/crate/bulk', [{ label: 'json bulk', payload: big() }]);
        ok(bulk);
        await stored(bulk.body.data[0].id as number);
      });

      it('the multipart forms take one in their JSON part (data on create, updateDto on update)', async () => {
        const made = await sendForm(`${app.url}/api/crate`, 'POST', { data: { label: 'form', payload: big() } }, [], app.fetch, app.admin?.accessToken ?? null);
        ok(made);
        const id = made.body.data.id as number;
        ok(await sendForm(`${app.url}/api/crate/${id}`, 'PATCH', { updateDto: { payload: big() } }, [], app.fetch, app.admin?.accessToken ?? null));
        await stored(id);
      });

      it('the text check still reaches every item: a NUL in the last of 200,000 answers 422', async () => {
        const payload: unknown[] = big();
        payload[BIG - 1] = ['deep', { k: 'a\u0000b' }];
        const res = await app.http.post('/api/crate', { payload });
        expect(res.status, res.text.slice(0, 300)).to.equal(422);
        expect(res.body.error.details.fields).to.have.property('payload');
        const bulk = await app.http.post('/api/crate/bulk', [{ payload }]);
        expect(bulk.status, bulk.text.slice(0, 300)).to.equal(422);
      });
    });

    describe('1,000 relation ids in one write', () => {
      it('create, PUT and PATCH store 1,000 ids; 1,001 answer 422 naming relationIds', async () => {
        const thousand = pegs.slice(0, 1000);
        const made = await app.http.post('/api/crate', { label: 'many', pegs: thousand });
        ok(made);
        const id = made.body.data.id as number;
        expect(await linkedTo(thousand[999] as number)).to.equal(1);
        const other = pegs.slice(1);
        ok(await app.http.put(`/api/crate/${id}`, { label: 'many put', pegs: other }));
        expect(await linkedTo(pegs[1000] as number)).to.equal(1);
        expect(await linkedTo(pegs[0] as number)).to.equal(0);
        ok(await app.http.patch(`/api/crate/${id}`, { spares: thousand }));
        expect(await linkedTo(thousand[999] as number, 'spares')).to.equal(1);

        const before = await count('&status=draft');
        for (const res of [await app.http.post('/api/crate', { pegs }), await app.http.patch(`/api/crate/${id}`, { spares: pegs }), await app.http.post('/api/crate/bulk', [{ pegs }])]) {
          expect(res.status, res.text.slice(0, 300)).to.equal(422);
          const field = res.body.error.details.fields.pegs ?? res.body.error.details.fields.spares;
          expect(field.join(' ')).to.include('1000').and.include('relationIds');
          expect(res.body.error.details).to.deep.include({ limit: 'relationIds', max: 1000 });
        }
        expect(await count('&status=draft')).to.equal(before);
      });

      it('bulk create stores 1,000 ids per item; publish copies all 1,000 links', async () => {
        const thousand = pegs.slice(1);
        const bulk = await app.http.post('/api/crate/bulk', [{ label: 'bulk many', pegs: thousand }]);
        ok(bulk);
        const id = bulk.body.data[0].id as number;
        ok(await app.http.post(`/api/crate/${id}/publish`, {}));
        expect(await linkedTo(thousand[999] as number, 'pegs', 'published')).to.be.at.least(1);
        const published = await app.http.post('/api/crate?status=published', { label: 'made published', spares: pegs.slice(0, 1000) });
        ok(published);
        expect(await linkedTo(pegs[999] as number, 'spares', 'published')).to.be.at.least(1);
      });
    });

    describe(`links one call writes: WRITE_MAX_LINKS (${MAX_LINKS} here)`, () => {
      const both = (): Rec => ({ pegs: pegs.slice(0, 1000), spares: pegs.slice(1, 1001) });

      it('create, update and bulk: at the limit stored, one past 400 naming the setting; nothing written', async () => {
        const made = await app.http.post('/api/crate', { label: 'at limit', ...both() });
        ok(made);
        const id = made.body.data.id as number;
        ok(await app.http.put(`/api/crate/${id}`, { label: 'at limit put', ...both() }));
        ok(await app.http.post('/api/crate/bulk', [{ label: 'bulk at limit', ...both() }]));
        const before = await count('&status=draft');
        pastLimit(await app.http.post('/api/crate/bulk', [both(), { pegs: [pegs[0]] }]), 'writeLinks', MAX_LINKS, 'WRITE_MAX_LINKS');
        pastLimit(await app.http.post('/api/crate/bulk', [{ pegs: pegs.slice(0, 1000) }, { pegs: pegs.slice(0, 1000) }, { spares: [pegs[0]] }]), 'writeLinks', MAX_LINKS, 'WRITE_MAX_LINKS');
        expect(await count('&status=draft')).to.equal(before);
        const form = await sendForm(`${app.url}/api/crate/${id}`, 'PATCH', { updateDto: { pegs: [] } }, [], app.fetch, app.admin?.accessToken ?? null);
        ok(form);
      });

      it('a create that publishes counts the published copy\'s links too', async () => {
        ok(await app.http.post('/api/crate?status=published', { label: 'published at limit', pegs: pegs.slice(0, 1000) }));
        const before = await count('&status=draft');
        pastLimit(await app.http.post('/api/crate?status=published', { pegs: pegs.slice(0, 1000), spares: [pegs[0]] }), 'writeLinks', MAX_LINKS, 'WRITE_MAX_LINKS');
        pastLimit(await app.http.post('/api/crate/bulk?status=published', [{ pegs: pegs.slice(0, 1000) }, { spares: [pegs[0]] }]), 'writeLinks', MAX_LINKS, 'WRITE_MAX_LINKS');
        expect(await count('&status=draft')).to.equal(before);
      });

      it('bulk publish: links copied at the limit published, one past 400 and nothing published', async () => {
        const a = (await app.http.post('/api/crate', { label: 'pub a', pegs: pegs.slice(0, 1000), spares: pegs.slice(0, 999) })).body.data.id as number;
        const b = (await app.http.post('/api/crate', { label: 'pub b', pegs: [pegs[0]] })).body.data.id as number;
        const c = (await app.http.post('/api/crate', { label: 'pub c', spares: [pegs[1]] })).body.data.id as number;
        ok(await app.http.post('/api/crate/publish/bulk', [a, b]));
        pastLimit(await app.http.post('/api/crate/publish/bulk', [a, b, c]), 'writeLinks', MAX_LINKS, 'WRITE_MAX_LINKS');
        const cPublished = await app.http.get(`/api/crate/${c}?status=published`);
        expect(cPublished.status, cPublished.text).to.equal(404);
      });
    });

    describe('records per bulk create and ids per bulk publish, unpublish, delete and recover: 1,000', () => {
      it('1,000 pass, 1,001 answer 400 naming bulkItems / bulkIds', async function () {
        this.timeout(240_000); // four calls of 1,000 records each (MariaDB: ~40 s)
        const made = await app.http.post('/api/crate/bulk', Array.from({ length: 1000 }, (_, i) => ({ label: `b${i}` })));
        ok(made);
        const ids = (made.body.data as Rec[]).map((r) => r.id as number);
        pastLimit(await app.http.post('/api/crate/bulk', Array.from({ length: 1001 }, (_, i) => ({ label: `c${i}` }))), 'bulkItems', 1000);
        const past = [...ids, 999999];
        for (const path of ['/api/crate/publish/bulk', '/api/crate/unpublish/bulk', '/api/crate/recover/bulk']) pastLimit(await app.http.post(path, past), 'bulkIds', 1000);
        pastLimit(await app.http.del('/api/crate/bulk', past), 'bulkIds', 1000);
        ok(await app.http.post('/api/crate/publish/bulk', ids));
        ok(await app.http.post('/api/crate/unpublish/bulk', ids));
        ok(await app.http.del('/api/crate/bulk', ids));
        ok(await app.http.post('/api/crate/recover/bulk', ids));
      });
    });
  });
}

for (const dialect of DIALECTS) {
  describe(`write bounds: a publish of every locale counts each locale's copy of the shared links [${dialect}]`, () => {
    let app: TestApp;
    let labels: number[];

    before(async () => {
      app = await startTestApp(dialect, { contentTypesDir: join(ROOT, 'tests', 'fixtures', 'content-models'), env: { LOCALES: 'en,fr', DEFAULT_LOCALE: 'en', WRITE_MAX_LINKS: '4' } });
      const made = await app.http.post('/api/label/bulk', [{ name: 'l1' }, { name: 'l2' }, { name: 'l3' }]);
      ok(made);
      labels = (made.body.data as Rec[]).map((r) => r.id as number);
    });
    after(async () => app?.close());

    /** An entry in en (and fr unless `enOnly`), drafts, linked to `links` labels. */
    async function entry(title: string, links: number[], enOnly = false): Promise<number> {
      const en = await app.http.post('/api/page', { title, labels: links });
      ok(en);
      if (!enOnly) ok(await app.http.post(`/api/page/${en.body.data.id}/localizations?locale=fr`, { title: `${title} (fr)` }));
      return en.body.data.id as number;
    }

    it('2 locales × 2 links = 4 at the limit published; one more link (5) past it: 400, nothing published', async () => {
      const a = await entry('A', labels.slice(0, 2));
      ok(await app.http.post(`/api/page/${a}/publish?locale=all`, {}));
      const b = await entry('B', labels.slice(0, 2));
      const c = await entry('C', labels.slice(2), true);
      pastLimit(await app.http.post(`/api/page/publish/bulk?locale=all`, [b, c]), 'writeLinks', 4, 'WRITE_MAX_LINKS');
      for (const [id, locale] of [[b, 'en'], [b, 'fr'], [c, 'en']] as const) {
        const got = await app.http.get(`/api/page/${id}?locale=${locale}&status=published`);
        expect(got.status, `${id} ${locale}: ${got.text}`).to.equal(404);
      }
      ok(await app.http.post(`/api/page/publish/bulk?locale=all`, [b]));
    });
  });
}
