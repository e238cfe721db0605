/**
 * Issue 15, event pipeline: one outbox event per committed record change, written in the change's
 * transaction (every write path: JSON, multipart, bulk, PATCH, PUT, delete, recover), none for a
 * failed or rolled-back write; subscribers learn of committed events on this node and on another.
 */
import { expect } from 'chai';
import { DIALECTS } from '../../helpers/dialects';
import { png, sendForm } from '../../helpers/multipart';
import { startTestApp, type TestApp } from '../../helpers/test-app';
import type { StoredEvent } from '../../../core/events/types';
import { appendEvents } from '../../../core/events/outbox';
import { pruneEvents } from '../../../core/events/prune';
import { createTestDatabase, type TestDatabase } from '../../helpers/test-db';

for (const dialect of DIALECTS) {
  describe(`events: the transactional outbox [${dialect}]`, () => {
    let app: TestApp;
    let database: TestDatabase;
    let instituteId: number;
    let mark = 0;

    /** Events committed since the last call. */
    const fresh = async (): Promise<StoredEvent[]> => {
      const list = await app.deps.events.readAfter(mark, 10_000);
      if (list.length > 0) mark = list[list.length - 1].id;
      return list;
    };
    const findOne = async (model: string, id: number, query = ''): Promise<Record<string, unknown>> => {
      const res = await app.http.get(`/api/${model}/${id}${query}`);
      expect(res.status).to.equal(200);
      return res.body;
    };

    before(async () => {
      database = await createTestDatabase(dialect);
      app = await startTestApp(dialect, { database });
      instituteId = (await app.http.post('/api/institute', { name: 'Springfield High', code: 'SPH' })).body.data.id;
      mark = await app.deps.events.latestId();
    });
    after(async () => {
      await app?.close();
      await database?.drop();
    });

    it('a JSON create: one record.create with the record as FindOne answers it, the actor and the time', async () => {
      const res = await app.http.post('/api/fee-type', { feeType: 'Tuition', instituteId, latePaymentFees: 12.5 });
      expect(res.status).to.equal(200);
      const id = res.body.data.id;
      const [e, ...rest] = await fresh();
      expect(rest).to.deep.equal([]);
      expect(e).to.include({ type: 'record.create', model: 'fee-type', recordId: id });
      expect(e.actor).to.deep.equal({ userId: app.admin!.id, apiTokenId: null });
      expect(e.record).to.deep.equal(await findOne('fee-type', id));
      expect(Date.parse(e.time)).to.be.closeTo(Date.now(), 60_000);
    });

    it('a multipart create and update: one event each, the file in the record', async () => {
      const url = `${app.url}/api/institute`;
      const created = await sendForm(url, 'POST', { data: { name: 'With Logo', code: 'LOGO' } }, [{ part: 'logo', bytes: png('a'), type: 'image/png', name: 'a.png' }], app.fetch, app.admin!.accessToken);
      expect(created.status).to.equal(200);
      const id = created.body.data.id;
      const updated = await sendForm(`${url}/${id}`, 'PATCH', { data: { city: 'Shelbyville' } }, [{ part: 'logo', bytes: png('b'), type: 'image/png', name: 'b.png' }], app.fetch, app.admin!.accessToken);
      expect(updated.status).to.equal(200);
      const events = await fresh();
      expect(events.map((e) => [e.type, e.model, e.recordId])).to.deep.equal([
        ['record.create', 'institute', id],
        ['record.update', 'institute', id],
      ]);
      expect(events[1].record).to.deep.equal(await findOne('institute', id));
      expect(events[0].record).to.include({ name: 'With Logo', city: null });
    });

    it('PATCH and PUT: one record.update each, with the record after the change', async () => {
      const id = (await app.http.post('/api/fee-type', { feeType: 'Bus', instituteId })).body.data.id;
      await fresh();
      expect((await app.http.patch(`/api/fee-type/${id}`, { latePaymentFees: 3 })).status).to.equal(200);
      expect((await app.http.put(`/api/fee-type/${id}`, { feeType: 'Bus 2' })).status).to.equal(200);
      const [patched, put] = await fresh();
      expect(patched).to.include({ type: 'record.update', recordId: id });
      expect(patched.record).to.include({ latePaymentFees: 3, feeType: 'Bus' });
      expect(put).to.include({ type: 'record.update', recordId: id });
      expect(put.record).to.deep.equal(await findOne('fee-type', id));
      expect(put.record).to.include({ feeType: 'Bus 2', instituteId: null });
    });

    it('bulk create, delete and recover: one event per record, in the order of the call', async () => {
      const res = await app.http.post('/api/fee-type/bulk', [{ feeType: 'B1' }, { feeType: 'B2' }, { feeType: 'B3' }]);
      expect(res.status).to.equal(200);
      const ids: number[] = res.body.data.map((r: { id: number }) => r.id);
      const created = await fresh();
      expect(created.map((e) => [e.type, e.recordId])).to.deep.equal(ids.map((id: number) => ['record.create', id]));
      expect((await app.http.del('/api/fee-type/bulk', [ids[0], ids[1]])).status).to.equal(200);
      const deleted = await fresh();
      expect(deleted.map((e) => [e.type, e.recordId])).to.deep.equal([
        ['record.delete', ids[0]],
        ['record.delete', ids[1]],
      ]);
      // a soft-deleted record: the event shows it archived, as FindOne with showSoftDeleted does
      expect(deleted[0].record).to.deep.equal(await findOne('fee-type', ids[0], '?showSoftDeleted=inclusive'));
      expect(deleted[0].record!.deletedAt).to.be.a('string');
      expect((await app.http.post('/api/fee-type/recover/bulk', [ids[0], ids[1]])).status).to.equal(200);
      const recovered = await fresh();
      expect(recovered.map((e) => [e.type, e.recordId])).to.deep.equal([
        ['record.recover', ids[0]],
        ['record.recover', ids[1]],
      ]);
      expect(recovered[1].record).to.deep.equal(await findOne('fee-type', ids[1]));
    });

    it('delete and recover of one record; a hard delete carries the record as it was', async () => {
      const id = (await app.http.post('/api/fee-type', { feeType: 'Lab' })).body.data.id;
      const inst = (await app.http.post('/api/institute', { name: 'Gone School', code: 'GONE' })).body.data.id;
      const before = await findOne('institute', inst);
      await fresh();
      expect((await app.http.del(`/api/fee-type/${id}`)).status).to.equal(200);
      expect((await app.http.post(`/api/fee-type/recover/${id}`)).status).to.equal(200);
      expect((await app.http.del(`/api/institute/${inst}`)).status).to.equal(200);
      const events = await fresh();
      expect(events.map((e) => [e.type, e.model, e.recordId])).to.deep.equal([
        ['record.delete', 'fee-type', id],
        ['record.recover', 'fee-type', id],
        ['record.delete', 'institute', inst],
      ]);
      expect(events[2].record).to.deep.equal(before);
    });

    it('no event for a failed or rolled-back write (validation, unique conflict, bulk with one bad item, missing id)', async () => {
      await app.http.post('/api/fee-type', { feeType: 'Unique One' });
      await fresh();
      expect((await app.http.post('/api/fee-type', { feeType: 42 })).status).to.equal(422);
      expect((await app.http.post('/api/fee-type', { feeType: 'Unique One' })).status).to.equal(409);
      // the first two items are inserted, then the third conflicts: the whole call rolls back
      expect((await app.http.post('/api/fee-type/bulk', [{ feeType: 'R1' }, { feeType: 'R2' }, { feeType: 'Unique One' }])).status).to.equal(409);
      expect((await app.http.patch('/api/fee-type/999999', { feeType: 'x' })).status).to.equal(404);
      expect((await app.http.del('/api/fee-type/bulk', [999998, 999999])).status).to.equal(404);
      // a multipart create that fails after its file was taken
      const bad = await sendForm(`${app.url}/api/institute`, 'POST', { data: { name: 'Springfield High', code: 'DUP' } }, [{ part: 'logo', bytes: png('c'), type: 'image/png', name: 'c.png' }], app.fetch, app.admin!.accessToken);
      expect(bad.status).to.equal(409);
      expect(await fresh()).to.deep.equal([]);
      expect((await app.http.get('/api/fee-type?filters[feeType][$eq]=R1')).body.meta.totalRecords).to.equal(0);
    });

    it('private fields never: a user written through the record API', async () => {
      const res = await app.http.post('/api/user', { username: 'evented', email: 'evented@example.test', password: 'a-long-password', fullName: 'E' });
      expect(res.status).to.equal(200);
      const events = await fresh();
      expect(events.map((e) => e.type)).to.deep.equal(['record.create', 'user.create']);
      const created = events.find((e) => e.type === 'record.create' && e.model === 'user');
      expect(created?.recordId).to.equal(res.body.data.id);
      expect(created!.record).to.deep.equal(await findOne('user', res.body.data.id));
      expect(created!.record).to.not.have.any.keys('password', 'usernameKey', 'emailKey', 'mobileKey', 'pendingVerification');
      expect(JSON.stringify(created)).to.not.match(/\$2[aby]\$/);
    });

    it('identity events: user.create and user.delete with the record events, session.revoke on logout', async () => {
      const res = await app.http.post('/api/user', { username: 'idevents', email: 'idevents@example.test', password: 'a-long-password' });
      const id = res.body.data.id;
      const created = await fresh();
      expect(created.map((e) => [e.type, e.model, e.recordId])).to.deep.equal([
        ['record.create', 'user', id],
        ['user.create', 'user', id],
      ]);
      expect(created[1].record).to.deep.equal(created[0].record);
      expect(created[1].actor).to.deep.equal({ userId: app.admin!.id, apiTokenId: null });
      expect((await app.http.del(`/api/user/${id}`)).status).to.equal(200);
      expect((await fresh()).map((e) => [e.type, e.recordId])).to.deep.equal([
        ['record.delete', id],
        ['user.delete', id],
      ]);
      // an account the identity service creates itself (sign-up, CLI): announced as the record API's create
      const u = await app.createUser();
      const signUp = (await fresh()).filter((e) => e.type === 'user.create' || e.type === 'record.create');
      expect(signUp.map((e) => [e.type, e.model, e.recordId, e.actor])).to.deep.equal([
        ['record.create', 'user', u.id, null],
        ['user.create', 'user', u.id, null],
      ]);
      // as FindOne answered it then (signing in has since set lastLoginProvider)
      const { lastLoginProvider: _l, updatedAt: _u, ...now } = await findOne('user', u.id);
      expect(signUp[0].record).to.deep.include(now);
      expect(signUp[1].record).to.deep.equal(signUp[0].record);
      expect((await app.anon.post('/api/iam/logout', { refreshToken: u.refreshToken })).status).to.equal(200);
      const revoked = await fresh();
      expect(revoked.map((e) => e.type)).to.deep.equal(['session.revoke']);
      expect(revoked[0].record).to.include({ userId: u.id, reason: 'logout' });
      expect(revoked[0].actor, 'the owner signs out').to.deep.equal({ userId: u.id, apiTokenId: null });
      // a second logout revokes nothing: no event
      await app.anon.post('/api/iam/logout', { refreshToken: u.refreshToken });
      expect(await fresh()).to.deep.equal([]);
    });

    it("identity flows that change an account announce it (record.update), by its owner; the owner's sign-outs are the owner's", async () => {
      const u = await app.createUser();
      const owner = { userId: u.id, apiTokenId: null };
      // the first sign-in set lastLoginProvider: a record.update of the account, as FindOne answers it
      const signedIn = (await fresh()).filter((e) => e.type === 'record.update');
      expect(signedIn.map((e) => [e.model, e.recordId, e.actor])).to.deep.equal([['user', u.id, owner]]);
      expect(signedIn[0].record).to.deep.equal(await findOne('user', u.id));
      // signing in again changes nothing: no event
      await app.signIn(u.username, u.password);
      expect(await fresh()).to.deep.equal([]);
      const changed = await u.http.post('/api/iam/change-password', { currentPassword: u.password, newPassword: 'another-long-password-2' });
      expect(changed.status, changed.text).to.equal(200);
      const list = await fresh();
      expect(list.map((e) => [e.type, e.actor])).to.deep.equal([
        ['record.update', owner],
        ['session.revoke', owner],
        ['session.revoke', owner],
      ]);
      expect(list[0].record).to.deep.equal(await findOne('user', u.id));
      // an admin's deactivation ends the sessions: the admin's revokes
      const again = await app.signIn(u.username, 'another-long-password-2');
      await fresh();
      expect((await app.http.patch(`/api/user/${again.id}`, { active: false })).status).to.equal(200);
      const deactivated = await fresh();
      expect(deactivated.map((e) => [e.type, e.actor])).to.deep.equal([
        ['record.update', { userId: app.admin!.id, apiTokenId: null }],
        ['session.revoke', { userId: app.admin!.id, apiTokenId: null }],
      ]);
    });

    it('an API token is the actor of its writes', async () => {
      const token = await app.http.post('/api/iam/api-tokens', { name: 'evented-token', kind: 'full-access' });
      expect(token.status).to.equal(200);
      const withToken = app.http.withToken(token.body.data.accessKey ?? token.body.data.token ?? token.body.data.secret);
      const res = await withToken.post('/api/fee-type', { feeType: 'By Token' });
      expect(res.status).to.equal(200);
      const e = (await fresh()).find((x) => x.recordId === res.body.data.id && x.model === 'fee-type');
      expect(e?.actor).to.deep.equal({ userId: null, apiTokenId: token.body.data.id });
    });

    it('a subscriber gets each committed event once, and nothing of a failed write', async () => {
      const got: StoredEvent[] = [];
      const stop = app.deps.events.subscribe((e) => void got.push(e));
      try {
        await new Promise((r) => setTimeout(r, 100)); // the hub has read where the outbox ends
        const res = await app.http.post('/api/fee-type', { feeType: 'Live' });
        expect((await app.http.post('/api/fee-type', { feeType: 'Live' })).status).to.equal(409);
        const t0 = Date.now();
        while (got.length === 0 && Date.now() - t0 < 2000) await new Promise((r) => setTimeout(r, 10));
        await new Promise((r) => setTimeout(r, 300));
        expect(got.map((e) => [e.type, e.recordId])).to.deep.equal([['record.create', res.body.data.id]]);
      } finally {
        stop();
      }
    });

    it('EVENTS_RETENTION: an event older than the retention is pruned; one exactly at the limit stays', async () => {
      const now = new Date();
      const retention = 7 * 86_400_000;
      const e = { type: 'record.update' as const, model: 'retention-test', recordId: 1, actor: null, record: null };
      const [past] = await appendEvents(app.deps.db, app.deps.dialect, [e], new Date(now.getTime() - retention - 1));
      const [limit] = await appendEvents(app.deps.db, app.deps.dialect, [e], new Date(now.getTime() - retention));
      const [fresh1] = await appendEvents(app.deps.db, app.deps.dialect, [e], now);
      expect(await pruneEvents(app.deps.db, retention, now)).to.equal(1 + 0);
      const left = (await app.deps.events.readAfter(past - 1, 10)).map((x) => x.id);
      expect(left).to.include.members([limit, fresh1]);
      expect(left).to.not.include(past);
      mark = await app.deps.events.latestId();
    });

    it('signals other nodes through PostgreSQL LISTEN/NOTIFY, or polls on SQLite', () => {
      expect(app.deps.events.signalKind).to.equal(dialect === 'postgres' ? 'postgres' : 'none');
    });

    it('with REDIS_URL two nodes signal through Redis pub/sub: an event reaches the other within a second', async function () {
      this.timeout(60_000);
      const shared = await createTestDatabase(dialect);
      const env = { REDIS_URL: 'redis://127.0.0.1:6379', EVENTS_POLL_INTERVAL: '5s' };
      const a = await startTestApp(dialect, { database: shared, env });
      const b = await startTestApp(dialect, { database: shared, env });
      try {
        expect(b.deps.events.signalKind).to.equal('redis');
        const got: StoredEvent[] = [];
        const stop = b.deps.events.subscribe((e) => void got.push(e));
        await new Promise((r) => setTimeout(r, 300));
        const t0 = Date.now();
        const res = await a.http.post('/api/fee-type', { feeType: 'Via Redis' });
        while (!got.some((e) => e.recordId === res.body.data.id) && Date.now() - t0 < 3000) await new Promise((r) => setTimeout(r, 5));
        const took = Date.now() - t0;
        stop();
        expect(got.map((e) => [e.type, e.recordId])).to.deep.include(['record.create', res.body.data.id]);
        // polling alone would take up to 5 s here
        expect(took).to.be.below(1000);
      } finally {
        await a.close();
        await b.close();
        await shared.drop();
      }
    });

    it('another node sharing the database learns of the event within a second', async function () {
      this.timeout(60_000);
      const other = await startTestApp(dialect, { database });
      try {
        const got: StoredEvent[] = [];
        const stop = other.deps.events.subscribe((e) => void got.push(e));
        await new Promise((r) => setTimeout(r, 300));
        const t0 = Date.now();
        const res = await app.http.post('/api/fee-type', { feeType: 'Across' });
        while (!got.some((e) => e.recordId === res.body.data.id) && Date.now() - t0 < 3000) await new Promise((r) => setTimeout(r, 5));
        const took = Date.now() - t0;
        stop();
        expect(got.map((e) => e.recordId)).to.include(res.body.data.id);
        expect(took).to.be.below(1000);
      } finally {
        await other.close();
      }
    });
  });
}
