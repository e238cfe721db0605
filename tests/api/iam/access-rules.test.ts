/**
 * Issue 16, row-level rules and field-level permissions, over HTTP on both databases: every read path
 * (Find, FindOne, grouping, populate, relation filters, relation sort) and write path (create, update,
 * delete, recover, their bulk forms) against an owner, another user of the same role, a read-only token,
 * a custom token, an expired and a revoked token; rules checked when saved with Find's messages; the
 * rules file (IAM_ACCESS_RULES_FILE) applied at start.
 */
import { expect } from 'chai';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import qs from 'qs';
import { DIALECTS } from '../../helpers/dialects';
import { png, sendForm } from '../../helpers/multipart';
import type { Client } from '../../helpers/http';
import { startTestApp, type TestApp, type TestUser } from '../../helpers/test-app';

const q = (o: Record<string, unknown>): string => qs.stringify(o, { encodeValuesOnly: true });
const OWN = { createdById: { $eq: '$actor.id' } };

for (const dialect of DIALECTS) {
  describe(`identity: row-level rules and field lists [${dialect}]`, () => {
    let app: TestApp;
    let alice: TestUser;
    let bob: TestUser;
    let roleId: number;
    const inst: Record<string, number> = {};
    const fee: Record<string, number> = {};
    let n = 0;
    const tag = Date.now().toString(36);

    const rule = async (action: string, where: unknown, fields: unknown = null): Promise<number> => {
      const res = await app.http.post('/api/access-rule', { roleId, action, where, fields });
      expect(res.status, res.text).to.equal(200);
      return res.body.data.id;
    };
    const grant = async (action: string): Promise<void> => {
      const perm = await app.http.get(`/api/permission?${q({ filters: { action: { $eq: action } } })}`);
      const role = await app.http.get(`/api/role/${roleId}?${q({ populate: { permissions: { limit: 100 } } })}`);
      const held = (role.body.permissions as { id: number }[]).map((p) => p.id);
      const res = await app.http.patch(`/api/role/${roleId}`, { permissions: [...held, perm.body.records[0].id] });
      expect(res.status, res.text).to.equal(200);
    };
    const ids = (res: { body: { records: { id: number }[] } }): number[] => res.body.records.map((r) => r.id).sort((a, b) => a - b);
    const newFee = async (c: Client, name: string, instituteId: number, extra: Record<string, unknown> = {}): Promise<number> => {
      const res = await c.post('/api/fee-type', { feeType: `${name}-${tag}-${++n}`, instituteId, ...extra });
      expect(res.status, res.text).to.equal(200);
      return res.body.data.id;
    };

    before(async () => {
      app = await startTestApp(dialect);
      const role = await app.http.post('/api/role', { name: `author-${tag}` });
      expect(role.status, role.text).to.equal(200);
      roleId = role.body.data.id;
      alice = await app.createUser({ roles: [`author-${tag}`] });
      bob = await app.createUser({ roles: [`author-${tag}`] });
      // Alpha is in Springfield (readable to authors), Zulu in Shelbyville (not).
      for (const [k, name, city] of [['a', 'Alpha', 'Springfield'], ['z', 'Zulu', 'Shelbyville']] as const) {
        const res = await app.http.post('/api/institute', { name: `${name} ${tag}`, code: `${k}${tag}`, city });
        expect(res.status, res.text).to.equal(200);
        inst[k] = res.body.data.id;
      }
      // Authors: create (some fields only), read / update / delete / recover their own fee types, read Springfield institutes without their code.
      await rule('fee-type.create', null, ['feeType', 'institute', 'dueDate', 'latePaymentFees']);
      for (const a of ['find', 'findOne', 'delete', 'recover']) await rule(`fee-type.${a}`, OWN);
      await rule('fee-type.update', { ...OWN, institute: { city: { $eq: 'Springfield' } } });
      await rule('institute.find', { city: { $eq: 'Springfield' } }, ['name', 'city', 'feeTypes']);
      await rule('institute.findOne', { city: { $eq: 'Springfield' } }, ['name', 'city', 'feeTypes']);
      fee.a1 = await newFee(alice.http, 'a1', inst.a, { latePaymentFees: 5 });
      fee.a2 = await newFee(alice.http, 'a2', inst.z, { latePaymentFees: 7 });
      fee.b1 = await newFee(bob.http, 'b1', inst.a, { latePaymentFees: 11 });
      fee.admin = await newFee(app.http, 'admin', inst.a, { latePaymentFees: 13 });
    });
    after(async () => app?.close());

    describe('reads', () => {
      it('Find: the owner sees only her records, and the total counts only them; another author sees his', async () => {
        const a = await alice.http.get('/api/fee-type');
        expect(a.status, a.text).to.equal(200);
        expect(ids(a)).to.deep.equal([fee.a1, fee.a2].sort((x, y) => x - y));
        expect(a.body.meta.totalRecords).to.equal(2);
        const b = await bob.http.get('/api/fee-type');
        expect(ids(b)).to.deep.equal([fee.b1]);
        expect(b.body.meta.totalRecords).to.equal(1);
        // The caller's filter narrows further; it never widens.
        const f = await alice.http.get(`/api/fee-type?${q({ filters: { $or: [{ id: { $eq: String(fee.b1) } }, { id: { $eq: String(fee.a1) } }] } })}`);
        expect(ids(f)).to.deep.equal([fee.a1]);
        expect(f.body.meta.totalRecords).to.equal(1);
        // admin: every record
        expect((await app.http.get('/api/fee-type')).body.meta.totalRecords).to.equal(4);
      });

      it('FindOne: a record outside the rules answers 404, as a missing one does', async () => {
        expect((await alice.http.get(`/api/fee-type/${fee.a1}`)).status).to.equal(200);
        const other = await alice.http.get(`/api/fee-type/${fee.b1}`);
        expect(other.status).to.equal(404);
        expect(other.body.error.message).to.equal(`no fee-type with id ${fee.b1}`);
        expect((await alice.http.get('/api/fee-type/999999')).body.error.message).to.equal('no fee-type with id 999999');
        expect((await bob.http.get(`/api/fee-type/${fee.a1}`)).status).to.equal(404);
      });

      it('grouping and aggregates count only readable rows', async () => {
        const g = await alice.http.get(`/api/fee-type?${q({ groupBy: ['instituteId'], aggregates: ['id:count', 'latePaymentFees:sum'] })}`);
        expect(g.status, g.text).to.equal(200);
        const byInst = Object.fromEntries((g.body.records as { instituteId: number; id_count: number; latePaymentFees_sum: number }[]).map((r) => [r.instituteId, [r.id_count, r.latePaymentFees_sum]]));
        expect(byInst).to.deep.equal({ [inst.a]: [1, 5], [inst.z]: [1, 7] });
        expect(g.body.meta.totalRecords).to.equal(2);
        // A key through a relation joins readable institutes only: Zulu's city is not revealed (null).
        const c = await alice.http.get(`/api/fee-type?${q({ groupBy: ['institute.city'] })}`);
        expect(c.status, c.text).to.equal(200);
        expect((c.body.records as Record<string, unknown>[]).map((r) => [r['institute.city'], r.count])).to.deep.equal([[null, 1], ['Springfield', 1]]);
        const p = await alice.http.get(`/api/fee-type?${q({ groupBy: ['instituteId'], populateGroup: true })}`);
        const all = (p.body.groupRecords as { records: { id: number }[]; meta: { totalRecords: number } }[]).flatMap((x) => x.records.map((r) => r.id));
        expect(all.sort((x, y) => x - y)).to.deep.equal([fee.a1, fee.a2].sort((x, y) => x - y));
      });

      it('populate: a related record the caller may not read is absent; fields outside the list are not shown', async () => {
        const res = await alice.http.get(`/api/fee-type?${q({ populate: ['institute'], sort: ['id'] })}`);
        expect(res.status, res.text).to.equal(200);
        const [a1, a2] = res.body.records as { institute: Record<string, unknown> | null }[];
        expect(a1.institute).to.include({ id: inst.a, city: 'Springfield' });
        expect(a1.institute).to.not.have.property('code');
        expect(a2.institute).to.equal(null);
        // Institute → fee types: only her own fee types appear under a readable institute.
        const i = await alice.http.get(`/api/institute?${q({ populate: { feeTypes: true } })}`);
        expect(ids(i)).to.deep.equal([inst.a]);
        expect((i.body.records[0].feeTypes as { id: number }[]).map((f) => f.id)).to.deep.equal([fee.a1]);
      });

      it('relation filters and sorts reveal nothing of rows the caller may not read', async () => {
        const byCity = await alice.http.get(`/api/fee-type?${q({ filters: { institute: { city: { $eq: 'Shelbyville' } } } })}`);
        expect(byCity.status, byCity.text).to.equal(200);
        expect(ids(byCity)).to.deep.equal([]);
        const notSpring = await alice.http.get(`/api/fee-type?${q({ filters: { institute: { name: { $startsWith: 'Zulu' } } } })}`);
        expect(ids(notSpring)).to.deep.equal([]);
        // Institutes by their fee types: Alpha has bob's and admin's, but alice matches only through her own.
        const viaFees = await alice.http.get(`/api/institute?${q({ filters: { feeTypes: { id: { $eq: String(fee.b1) } } } })}`);
        expect(ids(viaFees)).to.deep.equal([]);
        const viaOwn = await alice.http.get(`/api/institute?${q({ filters: { feeTypes: { id: { $eq: String(fee.a1) } } } })}`);
        expect(ids(viaOwn)).to.deep.equal([inst.a]);
        // Sorting by the related name: Zulu is unreadable, so it sorts as empty (first ascending), not after Alpha.
        const sorted = await alice.http.get(`/api/fee-type?${q({ sort: ['institute.name:asc'] })}`);
        expect((sorted.body.records as { id: number }[]).map((r) => r.id)).to.deep.equal([fee.a2, fee.a1]);
        const unrestricted = await app.http.get(`/api/fee-type?${q({ sort: ['institute.name:asc', 'id'], filters: { id: { $in: [String(fee.a1), String(fee.a2)] } } })}`);
        expect((unrestricted.body.records as { id: number }[]).map((r) => r.id)).to.deep.equal([fee.a1, fee.a2]);
      });

      it('fields outside the list: absent, and refused in filters, sort, fields, groupBy and populate like private ones', async () => {
        const res = await alice.http.get('/api/institute');
        expect(res.body.records[0]).to.include.keys('name', 'city');
        expect(res.body.records[0]).to.not.have.property('code');
        const one = await alice.http.get(`/api/institute/${inst.a}`);
        expect(one.status, one.text).to.equal(200);
        expect(one.body).to.not.have.property('code');
        const cases: [Record<string, unknown>, string][] = [
          [{ filters: { code: { $eq: 'x' } } }, 'filters[code]: unknown field "code" of institute'],
          [{ sort: ['code'] }, 'sort[0]: unknown field "code" of institute'],
          [{ fields: ['code'] }, 'fields: unknown field "code" of institute'],
          [{ groupBy: ['code'] }, 'groupBy[0]: unknown field "code" of institute'],
        ];
        for (const [query, message] of cases) {
          const r = await alice.http.get(`/api/institute?${q(query)}`);
          expect(r.status, JSON.stringify(query)).to.equal(400);
          expect(r.body.error.message).to.equal(message);
          // the same message as for a field that does not exist at all
          const absent = await alice.http.get(`/api/institute?${q(JSON.parse(JSON.stringify(query).replace(/"code"/g, '"nope"')))}`);
          expect(absent.body.error.message).to.equal(message.replace('"code"', '"nope"').replace('[code]', '[nope]'));
        }
        const through = await alice.http.get(`/api/fee-type?${q({ filters: { institute: { code: { $eq: 'x' } } } })}`);
        expect(through.status).to.equal(400);
        expect(through.body.error.message).to.contain('unknown field "code" of institute');
        const pop = await alice.http.get(`/api/fee-type?${q({ populate: { institute: { fields: ['code'] } } })}`);
        expect(pop.status).to.equal(400);
      });
    });

    describe('writes', () => {
      it('create: fields outside the writable list → 403 naming the field; a PUT is refused under a field list', async () => {
        const res = await alice.http.post('/api/fee-type', { feeType: `x-${tag}`, partPaymentAllowed: true });
        expect(res.status).to.equal(403);
        expect(res.body.error.message).to.contain('partPaymentAllowed');
        const bulk = await alice.http.post('/api/fee-type/bulk', [{ feeType: `y-${tag}` }, { feeType: `z-${tag}`, latePaymentFeesType: 'fixed' }]);
        expect(bulk.status).to.equal(403);
        expect(bulk.body.error.message).to.contain('latePaymentFeesType');
        expect((await app.http.get(`/api/fee-type?${q({ filters: { feeType: { $in: [`x-${tag}`, `y-${tag}`] } } })}`)).body.meta.totalRecords).to.equal(0);
        // a multipart file part writes its media field: `attachments` is not in alice's create list
        const form = await sendForm(`${app.url}/api/fee-type`, 'POST', { data: { feeType: `m-${tag}` } }, [{ part: 'attachments', name: 'a.png', type: 'image/png', bytes: png('x') }], fetch, alice.accessToken);
        expect(form.status, JSON.stringify(form.body)).to.equal(403);
        expect((form.body as { error: { message: string } }).error.message).to.contain('attachments');
        const files = await sendForm(`${app.url}/api/fee-type`, 'POST', { data: { feeType: `m-${tag}` } }, [{ part: 'files', name: 'a.png', type: 'image/png', bytes: png('y') }], fetch, alice.accessToken);
        expect(files.status, '`files` is the only media field').to.equal(403);
        expect((await app.http.get(`/api/fee-type?${q({ filters: { feeType: { $eq: `m-${tag}` } } })}`)).body.meta.totalRecords).to.equal(0);
      });

      it('update: the owner may, another author gets 404, a move outside the rule → 403 and nothing changes', async () => {
        const ok = await alice.http.patch(`/api/fee-type/${fee.a1}`, { latePaymentFees: 6 });
        expect(ok.status, ok.text).to.equal(200);
        expect(ok.body.data.latePaymentFees).to.equal(6);
        const other = await bob.http.patch(`/api/fee-type/${fee.a1}`, { latePaymentFees: 1 });
        expect(other.status).to.equal(404);
        expect(other.body.error.message).to.equal(`no fee-type with id ${fee.a1}`);
        // a2 is hers but in Shelbyville: outside her update rule → 404
        expect((await alice.http.patch(`/api/fee-type/${fee.a2}`, { latePaymentFees: 1 })).status).to.equal(404);
        const move = await alice.http.patch(`/api/fee-type/${fee.a1}`, { instituteId: inst.z });
        expect(move.status).to.equal(403);
        expect(move.body.error.message).to.contain('outside your rule for fee-type.update');
        const after = await app.http.get(`/api/fee-type/${fee.a1}`);
        expect(after.body).to.include({ instituteId: inst.a, latePaymentFees: 6 });
        const put = await alice.http.put(`/api/fee-type/${fee.a1}`, { feeType: 'whole' });
        expect(put.status).to.equal(403);
      });

      it('delete, bulk delete, recover, bulk recover: only within the rules; a bulk call with one outside changes nothing', async () => {
        const a3 = await newFee(alice.http, 'a3', inst.a);
        const bulk = await alice.http.del('/api/fee-type/bulk', [a3, fee.b1]);
        expect(bulk.status).to.equal(404);
        expect(bulk.body.error.details.missingIds).to.deep.equal([fee.b1]);
        expect((await alice.http.get(`/api/fee-type/${a3}`)).status, 'unchanged').to.equal(200);
        expect((await bob.http.del(`/api/fee-type/${a3}`)).status).to.equal(404);
        expect((await alice.http.del(`/api/fee-type/${a3}`)).status).to.equal(200);
        expect((await bob.http.post(`/api/fee-type/recover/${a3}`)).status).to.equal(404);
        expect((await alice.http.post(`/api/fee-type/recover/${a3}`)).status).to.equal(200);
        const both = await alice.http.del('/api/fee-type/bulk', [a3]);
        expect(both.status).to.equal(200);
        expect((await bob.http.post('/api/fee-type/recover/bulk', [a3])).status).to.equal(404);
        expect((await alice.http.post('/api/fee-type/recover/bulk', [a3])).status).to.equal(200);
        // Archived records of others stay out of reach with showSoftDeleted too.
        await app.http.del(`/api/fee-type/${fee.admin}`);
        const archived = await alice.http.get(`/api/fee-type?${q({ showSoftDeleted: 'exclusive' })}`);
        expect(archived.status, archived.text).to.equal(200);
        expect(ids(archived)).to.deep.equal([]);
        await app.http.post(`/api/fee-type/recover/${fee.admin}`);
      });

      it('write answers show no field the caller may not read, and a related record under a rule as { id } only', async () => {
        const res = await alice.http.patch(`/api/fee-type/${fee.a1}`, { dueDate: '2026-05-01' });
        expect(res.status, res.text).to.equal(200);
        expect(res.body.data.institute).to.deep.equal({ id: inst.a });
      });
    });

    describe('API tokens', () => {
      const token = async (body: Record<string, unknown>): Promise<{ id: number; secret: string }> => {
        const res = await app.http.post('/api/iam/api-tokens', { name: `t-${tag}-${++n}`, ...body });
        expect(res.status, res.text).to.equal(200);
        return res.body.data;
      };

      it('read-only: every row of every read path; writes 403', async () => {
        const c = app.anon.withToken((await token({ kind: 'read-only' })).secret);
        const all = (await app.http.get('/api/fee-type')).body.meta.totalRecords;
        expect(all).to.be.greaterThan(3);
        expect((await c.get('/api/fee-type')).body.meta.totalRecords).to.equal(all);
        expect((await c.get(`/api/fee-type/${fee.b1}`)).status).to.equal(200);
        expect((await c.get(`/api/institute/${inst.z}`)).body).to.have.property('code');
        expect((await c.patch(`/api/fee-type/${fee.b1}`, { latePaymentFees: 1 })).status).to.equal(403);
        expect((await c.del(`/api/fee-type/${fee.b1}`)).status).to.equal(403);
      });

      it('custom with access rules: a rule of the token grants on some rows / fields; its listed permissions stay whole', async () => {
        const t = await token({ kind: 'custom', permissions: ['institute.find'] });
        const c = app.anon.withToken(t.secret);
        expect((await c.get('/api/fee-type')).status, 'no permission yet').to.equal(403);
        const r = await app.http.post('/api/access-rule', { apiTokenId: t.id, action: 'fee-type.find', where: { institute: { city: { $eq: 'Springfield' } } }, fields: ['feeType', 'institute'] });
        expect(r.status, r.text).to.equal(200);
        const found = await c.get(`/api/fee-type?${q({ populate: ['institute'] })}`);
        expect(found.status, found.text).to.equal(200);
        const springfield = (await app.http.get(`/api/fee-type?${q({ filters: { institute: { city: { $eq: 'Springfield' } } } })}`)).body.meta.totalRecords;
        expect(found.body.meta.totalRecords).to.equal(springfield).and.to.be.greaterThan(0);
        expect(found.body.records.every((x: Record<string, unknown>) => !('latePaymentFees' in x) && 'feeType' in x)).to.equal(true);
        expect((await c.get(`/api/fee-type?${q({ filters: { latePaymentFees: { $gt: '1' } } })}`)).status, 'unreadable field').to.equal(400);
        // its own listed permission (institute.find) is whole: Zulu is there, with its code
        expect(ids(await c.get('/api/institute'))).to.include(inst.z);
        // a rule for a listed permission does not narrow it (the plain grant wins)
        const narrow = await app.http.post('/api/access-rule', { apiTokenId: t.id, action: 'institute.find', where: { id: { $eq: 0 } } });
        expect(narrow.status).to.equal(200);
        expect(ids(await c.get('/api/institute'))).to.include(inst.z);
        // rules belong to exactly one owner, and only custom tokens take them
        const ro = await token({ kind: 'read-only' });
        const refused = await app.http.post('/api/access-rule', { apiTokenId: ro.id, action: 'fee-type.find', where: null });
        expect(refused.status).to.equal(400);
        expect(refused.body.error.message).to.equal(`apiTokenId: access rules apply to API tokens of kind custom (token ${ro.id} is read-only)`);
        expect((await app.http.post('/api/access-rule', { roleId, apiTokenId: t.id, action: 'fee-type.find' })).status).to.equal(400);
        expect((await app.http.post('/api/access-rule', { action: 'fee-type.find' })).status).to.equal(400);
        // revoking the token takes its rules
        expect((await app.http.del(`/api/iam/api-tokens/${t.id}`)).status).to.equal(200);
        expect((await app.http.get(`/api/access-rule?${q({ filters: { id: { $in: [String(r.body.data.id), String(narrow.body.data.id)] } } })}`)).body.meta.totalRecords).to.equal(0);
      });

      it('custom: exactly its list, unrestricted within it', async () => {
        const c = app.anon.withToken((await token({ kind: 'custom', permissions: ['fee-type.find', 'fee-type.update'] })).secret);
        expect((await c.get('/api/fee-type')).body.meta.totalRecords).to.equal((await app.http.get('/api/fee-type')).body.meta.totalRecords);
        expect((await c.patch(`/api/fee-type/${fee.b1}`, { latePaymentFees: 12 })).status).to.equal(200);
        expect((await c.get(`/api/fee-type/${fee.b1}`)).status).to.equal(403);
      });

      it('expired and revoked: 401 on every path', async () => {
        const expired = await token({ kind: 'full-access' });
        await app.deps.db(app.deps.registry.get('api-token')!.table).where('id', expired.id).update({ expires_at: new Date(Date.now() - 1000).toISOString() });
        const revoked = await token({ kind: 'full-access' });
        expect((await app.http.del(`/api/iam/api-tokens/${revoked.id}`)).status).to.equal(200);
        for (const t of [expired, revoked]) {
          const c = app.anon.withToken(t.secret);
          for (const r of [c.get('/api/fee-type'), c.get(`/api/fee-type/${fee.a1}`), c.patch(`/api/fee-type/${fee.a1}`, {}), c.del(`/api/fee-type/${fee.a1}`), c.post(`/api/fee-type/recover/${fee.a1}`)]) {
            expect((await r).status).to.equal(401);
          }
        }
      });
    });

    describe('managing rules', () => {
      it('a rule naming an unknown field or operator is refused when saved, with the message Find gives', async () => {
        const find = await alice.http.get(`/api/fee-type?${q({ filters: { nope: { $eq: '1' } } })}`);
        const save = await app.http.post('/api/access-rule', { roleId, action: 'fee-type.find', where: { nope: { $eq: 1 } } });
        expect(save.status).to.equal(400);
        expect(save.body.error.message).to.equal(find.body.error.message.replace('filters', 'where'));
        const op = await app.http.get(`/api/fee-type?${q({ filters: { feeType: { $like: 'x' } } })}`);
        const saveOp = await app.http.post('/api/access-rule', { roleId, action: 'fee-type.find', where: { feeType: { $like: 'x' } } });
        expect(saveOp.status).to.equal(400);
        expect(saveOp.body.error.message).to.equal(op.body.error.message.replace(/filters/g, 'where'));
        const type = await app.http.post('/api/access-rule', { roleId, action: 'fee-type.find', where: { dueDate: { $contains: 'x' } } });
        expect(type.status).to.equal(400);
        expect(type.body.error.message).to.equal('where[dueDate][$contains]: operator $contains does not apply to dueDate (date)');
        const perm = await app.http.post('/api/access-rule', { roleId, action: 'fee-type.fly', where: null });
        expect(perm.status).to.equal(400);
        const fields = await app.http.post('/api/access-rule', { roleId, action: 'fee-type.find', fields: ['nope'] });
        expect(fields.status).to.equal(400);
        expect(fields.body.error.message).to.equal('fields: unknown field "nope" of fee-type');
        const patch = await app.http.post('/api/access-rule', { roleId, action: 'fee-type.find', where: OWN });
        expect(patch.status).to.equal(200);
        const bad = await app.http.patch(`/api/access-rule/${patch.body.data.id}`, { where: { nope: { $eq: 1 } } });
        expect(bad.status).to.equal(400);
        expect((await app.http.del(`/api/access-rule/${patch.body.data.id}`)).status).to.equal(200);
      });

      it('several rules OR together; a plain grant of the permission wins over them; a deleted rule stops at once', async () => {
        const mine = ids(await alice.http.get('/api/fee-type'));
        expect(mine).to.include.members([fee.a1, fee.a2]).and.not.include(fee.admin);
        const extra = await rule('fee-type.find', { id: { $eq: fee.admin } });
        expect(ids(await alice.http.get('/api/fee-type'))).to.deep.equal([...mine, fee.admin].sort((x, y) => x - y));
        await grant('fee-type.find');
        expect((await alice.http.get('/api/fee-type')).body.meta.totalRecords).to.be.at.least(4);
        // revoke the plain grant again
        const role = await app.http.get(`/api/role/${roleId}?${q({ populate: { permissions: { limit: 100 } } })}`);
        const keep = (role.body.permissions as { id: number; action: string }[]).filter((p) => p.action !== 'fee-type.find').map((p) => p.id);
        expect((await app.http.patch(`/api/role/${roleId}`, { permissions: keep })).status).to.equal(200);
        expect((await app.http.del(`/api/access-rule/${extra}`)).status).to.equal(200);
        expect(ids(await alice.http.get('/api/fee-type'))).to.deep.equal(mine);
      });

      it('$actor.roles and $now are substituted per request', async () => {
        const r1 = await rule('institute.find', { $and: [{ createdAt: { $lte: '$now' } }, { id: { $eq: inst.z } }] });
        expect(ids(await alice.http.get('/api/institute'))).to.deep.equal([inst.a, inst.z].sort((x, y) => x - y));
        await app.http.del(`/api/access-rule/${r1}`);
        const named = await app.http.post('/api/institute', { name: `author-${tag}`, code: `r${tag}`, city: 'Nowhere' });
        const r2 = await rule('institute.find', { name: { $in: ['$actor.roles'] } });
        expect(ids(await alice.http.get('/api/institute'))).to.deep.equal([inst.a, named.body.data.id].sort((x, y) => x - y));
        await app.http.del(`/api/access-rule/${r2}`);
        expect(ids(await alice.http.get('/api/institute'))).to.deep.equal([inst.a]);
      });
    });

    describe('create rules and the public role', () => {
      it('a create outside the create rule → 403 and nothing written (bulk: one item outside, none written)', async () => {
        const clerkRole = await app.http.post('/api/role', { name: `clerk-${tag}` });
        expect(clerkRole.status, clerkRole.text).to.equal(200);
        const made = await app.http.post('/api/access-rule', { roleId: clerkRole.body.data.id, action: 'institute.create', where: { city: { $eq: 'Springfield' } } });
        expect(made.status, made.text).to.equal(200);
        const carol = await app.createUser({ roles: [`clerk-${tag}`] });
        const out = await carol.http.post('/api/institute', { name: `Out ${tag}`, code: `o${tag}`, city: 'Shelbyville' });
        expect(out.status, out.text).to.equal(403);
        expect(out.body.error.message).to.contain('outside your rule for institute.create');
        const inside = await carol.http.post('/api/institute', { name: `In ${tag}`, code: `i${tag}`, city: 'Springfield' });
        expect(inside.status, inside.text).to.equal(200);
        const bulk = await carol.http.post('/api/institute/bulk', [{ name: `B1 ${tag}`, code: `b1${tag}`, city: 'Springfield' }, { name: `B2 ${tag}`, code: `b2${tag}`, city: 'Ogdenville' }]);
        expect(bulk.status, bulk.text).to.equal(403);
        const written = await app.http.get(`/api/institute?${q({ filters: { code: { $in: [`o${tag}`, `b1${tag}`, `b2${tag}`] } } })}`);
        expect(written.body.meta.totalRecords, 'nothing written').to.equal(0);
        expect((await app.http.del(`/api/role/${clerkRole.body.data.id}`)).status, 'deleting the role takes its rules').to.equal(200);
        expect((await app.http.get(`/api/access-rule?${q({ filters: { id: { $eq: String(made.body.data.id) } } })}`)).body.meta.totalRecords).to.equal(0);
      });

      it('the public role may hold rules too; $actor.id matches nothing for it', async () => {
        const pub = await app.http.get(`/api/role?${q({ filters: { name: { $eq: 'public' } } })}`);
        const publicId = pub.body.records[0].id;
        const byCity = await app.http.post('/api/access-rule', { roleId: publicId, action: 'institute.find', where: { city: { $eq: 'Springfield' } }, fields: ['name'] });
        const findOne = await app.http.post('/api/access-rule', { roleId: publicId, action: 'institute.findOne', where: { city: { $eq: 'Springfield' } } });
        const own = await app.http.post('/api/access-rule', { roleId: publicId, action: 'fee-type.find', where: OWN });
        try {
          const list = await app.anon.get('/api/institute');
          expect(list.status, list.text).to.equal(200);
          expect((list.body.records as Record<string, unknown>[]).every((r) => Object.keys(r).includes('name') && !('city' in r))).to.equal(true);
          expect(ids(list)).to.include(inst.a).and.not.include(inst.z);
          expect((await app.anon.get(`/api/institute/${inst.z}`)).status).to.equal(404);
          expect((await app.anon.get(`/api/institute/${inst.a}`)).status).to.equal(200);
          const fees = await app.anon.get('/api/fee-type');
          expect(fees.status, fees.text).to.equal(200);
          expect(fees.body.meta.totalRecords).to.equal(0);
          expect((await app.anon.patch(`/api/institute/${inst.a}`, { city: 'X' })).status, 'no update permission: 401').to.equal(401);
        } finally {
          for (const r of [byCity, findOne, own]) await app.http.del(`/api/access-rule/${r.body.data.id}`);
        }
        expect((await app.anon.get('/api/institute')).status).to.equal(401);
      });
    });

    describe('the rules file (IAM_ACCESS_RULES_FILE)', () => {
      it('declares rules per role at start (creating the role); a bad rule stops the start naming its place', async () => {
        const dir = mkdtempSync(join(tmpdir(), 'rules-'));
        const file = join(dir, 'access-rules.yaml');
        writeFileSync(file, 'editor:\n  institute.find:\n    - where: { city: { $eq: Springfield } }\n      fields: [name]\n');
        const other = await startTestApp(dialect, { env: { IAM_ACCESS_RULES_FILE: file } });
        try {
          await other.http.post('/api/institute', { name: 'S', code: 's1', city: 'Springfield' });
          await other.http.post('/api/institute', { name: 'T', code: 't1', city: 'Shelbyville' });
          const ed = await other.createUser({ roles: ['editor'] });
          const res = await ed.http.get('/api/institute');
          expect(res.status, res.text).to.equal(200);
          expect((res.body.records as Record<string, unknown>[]).map((r) => [r.name, r.city])).to.deep.equal([['S', undefined]]);
        } finally {
          await other.close();
        }
        writeFileSync(file, 'editor:\n  institute.find:\n    - where: { town: { $eq: x } }\n');
        let failure = '';
        try {
          const broken = await startTestApp(dialect, { env: { IAM_ACCESS_RULES_FILE: file } });
          await broken.close();
        } catch (e) {
          failure = (e as Error).message;
        }
        expect(failure).to.contain('editor.institute.find[0]').and.to.contain('where[town]: unknown field "town" of institute');
      });
    });
  });
}
