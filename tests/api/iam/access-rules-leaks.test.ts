/**
 * Issue 16 (× issue 14): what a hostile review found escaping the field lists and the draft rule, over HTTP
 * on every database:
 * - a field list on create / update guards write-only (private) attributes too: a helpdesk role allowed to
 *   write users' `fullName` only could set any account's `password` (and a PUT, which clears it, went through);
 * - write answers showed a related record in full although the caller's field list for that model hides
 *   some of its fields (a populate hides them), and `_media` of a media field outside the caller's list;
 * - write answers showed a draft-enabled related record's working copy (a draft) to a caller without
 *   `findDrafts` on that model;
 * - a row rule on a declared write action (`user.assignRoles` for interns only) was accepted and ignored: its
 *   holder wrote the roles of every account, its own included;
 * - a realtime stream's relation filter read the related model without its find rule and field list (Find
 *   applies both): `filters[institute][code]` probed a hidden field, `[city]` matched hidden institutes;
 * - a caller whose update / publish rule covers one locale (a translator) changed the entry's other locale rows
 *   through the values every locale shares (localized: false, relations), and their published copies.
 */
import { expect } from 'chai';
import { join } from 'node:path';
import qs from 'qs';
import { DIALECTS } from '../../helpers/dialects';
import { pdf, sendForm } from '../../helpers/multipart';
import { makeRole } from '../../helpers/roles';
import { openSse, type SseClient } from '../../helpers/sse';
import { ROOT, startTestApp, type TestApp } from '../../helpers/test-app';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

for (const dialect of DIALECTS) {
  describe(`identity: nothing escapes field lists and draft rules through writes [${dialect}]`, () => {
    const tag = Date.now().toString(36);

    describe('write-only attributes under a field list', () => {
      let app: TestApp;
      let roleId: number;
      before(async () => {
        app = await startTestApp(dialect);
        // rules only: no plain grant (it would win over them)
        const role = await app.http.post('/api/role', { name: `helpdesk-${tag}` });
        expect(role.status, role.text).to.equal(200);
        roleId = role.body.data.id;
      });
      after(async () => app?.close());
      const rule = async (action: string, fields: unknown): Promise<number> => {
        const res = await app.http.post('/api/access-rule', { roleId, action, where: null, fields });
        expect(res.status, res.text).to.equal(200);
        return res.body.data.id;
      };

      it('a field list without password refuses to set one (PATCH, JSON and multipart)', async () => {
        const ruleId = await rule('user.update', ['fullName']);
        await rule('user.findOne', ['fullName', 'username']);
        const helpdesk = await app.createUser({ roles: [`helpdesk-${tag}`] });
        const victim = await app.createUser({ roles: [] });
        expect((await helpdesk.http.patch(`/api/user/${victim.id}`, { fullName: 'Renamed' })).status).to.equal(200);
        const patch = await helpdesk.http.patch(`/api/user/${victim.id}`, { password: 'taken-over-1' });
        expect(patch.status, patch.text).to.equal(403);
        expect(patch.body.error.message).to.equal('field password is not writable under user.update');
        const form = await sendForm(`${app.url}/api/user/${victim.id}`, 'PATCH', { data: { password: 'taken-over-2' } }, [], fetch, helpdesk.accessToken);
        expect(form.status, JSON.stringify(form.body)).to.equal(403);
        // nothing was written: the owner still signs in with the old password, the new ones do not work
        await app.signIn(victim.username, victim.password);
        for (const p of ['taken-over-1', 'taken-over-2']) expect((await app.anon.post('/api/iam/authenticate', { username: victim.username, password: p })).status).to.equal(401);
        // listing password in the update rule allows it: a write list may name a write-only attribute
        expect((await app.http.patch(`/api/access-rule/${ruleId}`, { fields: ['fullName', 'password'] })).status).to.equal(200);
        const allowed = await helpdesk.http.patch(`/api/user/${victim.id}`, { password: 'reset-by-desk-1' });
        expect(allowed.status, allowed.text).to.equal(200);
        expect(allowed.body.data).to.not.have.property('password');
        await app.signIn(victim.username, 'reset-by-desk-1');
      });

      it('a create list guards it too (single and bulk); a read list may not name it', async () => {
        await rule('user.create', ['fullName', 'username', 'email']);
        const helpdesk = await app.createUser({ roles: [`helpdesk-${tag}`] });
        const one = await helpdesk.http.post('/api/user', { fullName: 'N', username: `n1${tag}`, email: `n1${tag}@example.test`, password: 'chosen-pass-1' });
        expect(one.status, one.text).to.equal(403);
        expect(one.body.error.message).to.equal('field password is not writable under user.create');
        const bulk = await helpdesk.http.post('/api/user/bulk', [{ username: `n2${tag}`, email: `n2${tag}@example.test` }, { username: `n3${tag}`, email: `n3${tag}@example.test`, password: 'chosen-pass-2' }]);
        expect(bulk.status, bulk.text).to.equal(403);
        const none = await app.http.get(`/api/user?filters[username][$startsWith]=n`);
        expect((none.body.records as { username: string }[]).filter((u) => u.username.endsWith(tag))).to.deep.equal([]);
        const read = await app.http.post('/api/access-rule', { roleId, action: 'user.find', where: null, fields: ['fullName', 'password'] });
        expect(read.status, read.text).to.equal(400);
        expect(read.body.error.message).to.equal('fields: unknown field "password" of user');
        const key = await app.http.post('/api/access-rule', { roleId, action: 'user.update', where: null, fields: ['usernameKey'] });
        expect(key.status, key.text).to.equal(400);
        // a field list where none applies (it would be kept and ignored) is refused
        for (const action of ['user.delete', 'user.recover', 'user.assignRoles']) {
          const res = await app.http.post('/api/access-rule', { roleId, action, where: null, fields: ['fullName'] });
          expect(res.status, res.text).to.equal(400);
          expect(res.body.error.message).to.equal(`fields: a field list applies to find, findOne, create and update rules only, not to ${action}`);
        }
      });
    });

    describe('rules on a declared write action (user.assignRoles)', () => {
      let app: TestApp;
      before(async () => {
        app = await startTestApp(dialect);
      });
      after(async () => app?.close());

      it("bound the records whose guarded attribute may be written: an interns-only rule gives no one else's roles (nor one's own)", async () => {
        const roleId = await makeRole(app, `mgr-${tag}`, ['user.create', 'user.update', 'user.find', 'user.findOne']);
        const res = await app.http.post('/api/access-rule', { roleId, action: 'user.assignRoles', where: { username: { $startsWith: 'intern' } } });
        expect(res.status, res.text).to.equal(200);
        const mgr = await app.createUser({ roles: [`mgr-${tag}`] });
        const regular = await app.createUser({ username: `regular${tag}`, roles: [] });
        const intern = await app.createUser({ username: `intern${tag}`, roles: [] });
        const given = [roleId];
        for (const id of [regular.id, mgr.id]) {
          const patch = await mgr.http.patch(`/api/user/${id}`, { roles: given });
          expect(patch.status, patch.text).to.equal(404);
          expect(patch.body.error.message).to.equal(`no user with id ${id}`);
        }
        // their roles are unchanged; the rule's own accounts take them, and other fields stay writable
        const roles = async (id: number): Promise<string[]> => ((await app.http.get(`/api/user/${id}?populate[0]=roles`)).body.roles as { name: string }[]).map((r) => r.name);
        expect(await roles(regular.id)).to.deep.equal([]);
        expect(await roles(mgr.id)).to.deep.equal([`mgr-${tag}`]);
        expect((await mgr.http.patch(`/api/user/${regular.id}`, { fullName: 'Still writable' })).status).to.equal(200);
        const ok = await mgr.http.patch(`/api/user/${intern.id}`, { roles: given });
        expect(ok.status, ok.text).to.equal(200);
        expect(await roles(intern.id)).to.deep.equal([`mgr-${tag}`]);
        // moving an account into the rule's reach in the same write does not help: the rule holds before and after
        const rename = await mgr.http.patch(`/api/user/${regular.id}`, { username: `intern2${tag}`, roles: given });
        expect(rename.status, rename.text).to.equal(404);
        const leave = await mgr.http.patch(`/api/user/${intern.id}`, { username: `left${tag}`, roles: [] });
        expect(leave.status, leave.text).to.equal(403);
        expect(await roles(intern.id)).to.deep.equal([`mgr-${tag}`]);
        // a create naming roles must land inside the rule (403, nothing written); without roles it is not bounded by it
        const made = await mgr.http.post('/api/user', { username: `boss${tag}`, email: `boss${tag}@example.test`, roles: given });
        expect(made.status, made.text).to.equal(403);
        expect((await app.http.get(`/api/user?filters[username][$eq]=boss${tag}`)).body.meta.totalRecords).to.equal(0);
        expect((await mgr.http.post('/api/user', { username: `intern3${tag}`, email: `intern3${tag}@example.test`, roles: given })).status).to.equal(200);
      });
    });

    describe('realtime relation filters', () => {
      let app: TestApp;
      const open: SseClient[] = [];
      before(async () => {
        app = await startTestApp(dialect);
      });
      after(async () => {
        for (const c of open.splice(0)) c.close();
        await app?.close();
      });

      it("read the related model through its find rule and field list, as Find does: no oracle on a hidden institute's rows or fields", async () => {
        const role = await app.http.post('/api/role', { name: `stream-${tag}` });
        expect(role.status, role.text).to.equal(200);
        const OWN = { createdById: { $eq: '$actor.id' } };
        for (const [action, where, fields] of [
          ['fee-type.find', OWN, null],
          ['fee-type.update', OWN, null],
          ['fee-type.create', null, null],
          ['institute.find', { city: { $eq: 'Springfield' } }, ['name', 'city']],
        ] as const) {
          const res = await app.http.post('/api/access-rule', { roleId: role.body.data.id, action, where, fields });
          expect(res.status, res.text).to.equal(200);
        }
        const alice = await app.createUser({ roles: [`stream-${tag}`] });
        const hidden = await app.http.post('/api/institute', { name: `Zulu ${tag}`, code: `z${tag}`, city: 'Shelbyville' });
        expect(hidden.status, hidden.text).to.equal(200);
        const fee = await alice.http.post('/api/fee-type', { feeType: `mine-${tag}`, instituteId: hidden.body.data.id });
        expect(fee.status, fee.text).to.equal(200);
        const headers = { Authorization: `Bearer ${alice.accessToken}` };
        const stream = async (filters: unknown): Promise<SseClient> => {
          const c = await openSse(`${app.url}/api/realtime?${qs.stringify({ models: 'fee-type', filters }, { encodeValuesOnly: true })}`, headers);
          open.push(c);
          return c;
        };
        // a field outside institute's list is unknown, as on Find
        const code = await stream({ institute: { code: { $eq: `z${tag}` } } });
        expect(code.status, JSON.stringify(code.body)).to.equal(400);
        expect(JSON.stringify(code.body)).to.contain('unknown field \\"code\\" of institute');
        // a readable field of an unreadable institute matches nothing, as on Find
        const filters = { institute: { city: { $eq: 'Shelbyville' } } };
        expect((await alice.http.get(`/api/fee-type?${qs.stringify({ filters }, { encodeValuesOnly: true })}`)).body.meta.totalRecords).to.equal(0);
        const city = await stream(filters);
        const all = await stream(undefined);
        expect([city.status, all.status]).to.deep.equal([200, 200]);
        await sleep(100);
        expect((await alice.http.patch(`/api/fee-type/${fee.body.data.id}`, { latePaymentFees: 3 })).status).to.equal(200);
        await all.waitFor((e) => (e.data as { recordId: number }).recordId === fee.body.data.id);
        await sleep(500);
        expect(city.events, 'the Shelbyville filter reached the hidden institute').to.deep.equal([]);
      });
    });

    describe('write answers under field lists', () => {
      let app: TestApp;
      let roleId: number;
      let institute: number;
      before(async () => {
        app = await startTestApp(dialect);
        roleId = await makeRole(app, `clerk-${tag}`, ['fee-type.create', 'fee-type.update', 'fee-type.findOne', 'institute.findOne']);
        for (const [action, fields] of [
          ['institute.find', ['name']],
          ['fee-type.find', ['feeType', 'institute']],
        ] as const) {
          const res = await app.http.post('/api/access-rule', { roleId, action, where: null, fields });
          expect(res.status, res.text).to.equal(200);
        }
        const res = await app.http.post('/api/institute', { name: `Alpha ${tag}`, code: `a${tag}`, city: 'Springfield' });
        expect(res.status, res.text).to.equal(200);
        institute = res.body.data.id;
      });
      after(async () => app?.close());

      it('a related record whose model has a field list shows as { id } (a populate would hide its fields)', async () => {
        const clerk = await app.createUser({ roles: [`clerk-${tag}`] });
        const read = await clerk.http.get(`/api/fee-type?populate[0]=institute`);
        expect(read.status, read.text).to.equal(200);
        for (const body of [{ feeType: `f1-${tag}`, instituteId: institute }, { feeType: `f2-${tag}`, instituteUserKey: `a${tag}` }]) {
          const res = await clerk.http.post('/api/fee-type', body);
          expect(res.status, res.text).to.equal(200);
          expect(res.body.data.institute).to.deep.equal({ id: institute });
          const upd = await clerk.http.patch(`/api/fee-type/${res.body.data.id}`, { instituteId: institute });
          expect(upd.status, upd.text).to.equal(200);
          expect(upd.body.data.institute).to.deep.equal({ id: institute });
          expect(JSON.stringify([res.body, upd.body])).to.not.include(`a${tag}`).and.not.include('Springfield');
        }
      });

      it('_media leaves out a media field outside the find list (its files and their links)', async () => {
        const clerk = await app.createUser({ roles: [`clerk-${tag}`] });
        const made = await sendForm(`${app.url}/api/fee-type`, 'POST', { data: { feeType: `m-${tag}`, instituteId: institute } }, [{ part: 'attachments', name: 'a.pdf', type: 'application/pdf', bytes: pdf('hidden') }], app.fetch, app.admin!.accessToken);
        expect(made.status, JSON.stringify(made.body)).to.equal(200);
        const file = made.body.data._media.attachments[0];
        expect(file._full_url).to.be.a('string');
        const kept = await clerk.http.patch(`/api/fee-type/${made.body.data.id}`, { attachments: [file.id] });
        expect(kept.status, kept.text).to.equal(200);
        expect(kept.body.data).to.not.have.property('_media');
        expect(kept.text).to.not.include(file._full_url);
        expect(kept.text).to.not.include('a.pdf');
      });
    });

    describe('write answers and drafts of related models', () => {
      let app: TestApp;
      before(async () => {
        app = await startTestApp(dialect, { contentTypesDir: join(ROOT, 'tests', 'fixtures', 'ruled-content'), env: { LOCALES: 'en,fr', DEFAULT_LOCALE: 'en' } });
      });
      after(async () => app?.close());

      it('a related draft-enabled record shows as { id } to a caller without findDrafts on its model', async () => {
        await makeRole(app, `pager-${tag}`, ['page.create', 'page.update', 'page.find', 'page.findOne', 'writer.find', 'writer.findOne']);
        await makeRole(app, `drafter-${tag}`, ['page.create', 'page.find', 'writer.find', 'writer.findDrafts']);
        const pager = await app.createUser({ roles: [`pager-${tag}`] });
        const drafter = await app.createUser({ roles: [`drafter-${tag}`] });
        const draft = await app.http.post('/api/writer', { name: `Unannounced-${tag}` });
        expect(draft.status, draft.text).to.equal(200);
        const writer = draft.body.data.id;
        // the writer is a draft: a reader with writer.find but not findDrafts does not see it
        expect((await pager.http.get(`/api/writer/${writer}`)).status).to.equal(404);
        const made = await pager.http.post('/api/page', { title: `P-${tag}`, writerId: writer });
        expect(made.status, made.text).to.equal(200);
        expect(made.body.data.writer).to.deep.equal({ id: writer });
        const upd = await pager.http.patch(`/api/page/${made.body.data.id}`, { writerId: writer });
        expect(upd.status, upd.text).to.equal(200);
        expect(upd.body.data.writer).to.deep.equal({ id: writer });
        expect(JSON.stringify([made.body, upd.body])).to.not.include('Unannounced');
        // a caller who may read drafts of writers sees it as before
        const full = await drafter.http.post('/api/page', { title: `D-${tag}`, writerId: writer });
        expect(full.status, full.text).to.equal(200);
        expect(full.body.data.writer).to.include({ id: writer, name: `Unannounced-${tag}` });
      });

      it('a rule on one locale writes no other: shared values and links (update, PUT) and a publish carrying them → 403, nothing changes', async () => {
        const role = await app.http.post('/api/role', { name: `fr-${tag}` });
        expect(role.status, role.text).to.equal(200);
        const FR = { localeName: { $eq: 'fr' } };
        for (const a of ['find', 'findOne', 'findDrafts', 'update', 'publish']) {
          const res = await app.http.post('/api/access-rule', { roleId: role.body.data.id, action: `page.${a}`, where: FR });
          expect(res.status, res.text).to.equal(200);
        }
        const label = await app.http.post('/api/label', { name: `L-${tag}` });
        expect(label.status, label.text).to.equal(200);
        const translator = await app.createUser({ roles: [`fr-${tag}`, 'authenticated'] });
        const en = (await app.http.post('/api/page', { title: `Hello-${tag}`, price: 10, labels: [label.body.data.id] })).body.data.id;
        expect((await app.http.post(`/api/page/${en}/publish`)).status).to.equal(200);
        const made = await app.http.post(`/api/page/${en}/localizations?locale=fr`, { title: `Bonjour-${tag}` });
        expect(made.status, made.text).to.equal(200);
        const fr = made.body.data.id;
        const message = `this update changes values every locale of the entry shares, and page ${en} is outside your rule for page.update`;
        for (const body of [{ price: 99 }, { labels: [] }, { title: `Salut-${tag}`, price: 99 }]) {
          const res = await translator.http.patch(`/api/page/${fr}`, body);
          expect(res.status, `${JSON.stringify(body)}: ${res.text}`).to.equal(403);
          expect(res.body.error.message).to.equal(message);
        }
        const put = await translator.http.put(`/api/page/${fr}`, { title: `Salut-${tag}` });
        expect(put.status, put.text).to.equal(403);
        // its own values it may write, and publish while that carries no shared value to another locale
        expect((await translator.http.patch(`/api/page/${fr}`, { title: `Salut-${tag}`, body: 'texte' })).status).to.equal(200);
        expect((await translator.http.post(`/api/page/${fr}/publish`)).status).to.equal(200);
        const draft = await app.http.get(`/api/page/${en}?status=draft&populate[0]=labels`);
        expect(draft.body).to.include({ price: 10, title: `Hello-${tag}` });
        expect(draft.body.labels).to.have.length(1);
        // the admin changes the shared price (both drafts); the translator's publish would carry it into the English copy
        expect((await app.http.patch(`/api/page/${en}`, { price: 20 })).status).to.equal(200);
        const publish = await translator.http.post(`/api/page/${fr}/publish`);
        expect(publish.status, publish.text).to.equal(403);
        expect(publish.body.error.message).to.equal(`this publish changes values every locale of the entry shares, and page ${en} is outside your rule for page.publish`);
        for (const locale of ['en', 'fr']) expect((await app.anon.get(`/api/page/${en}?locale=${locale}`)).body.price, locale).to.equal(10);
        // once English is published, French may follow
        expect((await app.http.post(`/api/page/${en}/publish`)).status).to.equal(200);
        expect((await translator.http.post(`/api/page/${fr}/publish`)).status).to.equal(200);
        expect((await app.anon.get(`/api/page/${en}?locale=fr`)).body.price).to.equal(20);
      });

      it('a PUT (it clears what it omits) is refused under an update list that leaves out a write-only field', async () => {
        const role = await app.http.post('/api/role', { name: `putter-${tag}` });
        expect(role.status, role.text).to.equal(200);
        // every attribute but the private secretNote
        const res = await app.http.post('/api/access-rule', { roleId: role.body.data.id, action: 'page.update', where: null, fields: ['title', 'body', 'price', 'meta', 'labels', 'writer'] });
        expect(res.status, res.text).to.equal(200);
        const putter = await app.createUser({ roles: [`putter-${tag}`] });
        const made = await app.http.post('/api/page', { title: `S-${tag}`, secretNote: 'keep me' });
        expect(made.status, made.text).to.equal(200);
        const id = made.body.data.id;
        const put = await putter.http.put(`/api/page/${id}`, { title: `S2-${tag}` });
        expect(put.status, put.text).to.equal(403);
        expect(put.body.error.message).to.equal('field secretNote is not writable under page.update (a PUT writes every field; use PATCH)');
        const patch = await putter.http.patch(`/api/page/${id}`, { secretNote: 'overwritten' });
        expect(patch.status, patch.text).to.equal(403);
        // nothing written: the private value is read from the table (no answer shows it)
        const model = app.deps.registry.get('page')!;
        const column = (model.byName.get('secretNote') as { column: string }).column;
        const row = await app.deps.db(model.table).where('id', id).first(column, 'title');
        expect(row).to.deep.equal({ [column]: 'keep me', title: `S-${tag}` });
        expect((await putter.http.patch(`/api/page/${id}`, { body: 'fine' })).status).to.equal(200);
      });
    });
  });
}
