/**
 * Issue 15, webhooks: admin-only `/api/webhook` (secret shown once) and `/api/webhook-delivery`,
 * Standard Webhooks signatures checked with the independent `standardwebhooks` package, retries with
 * backoff against a receiver that fails then recovers, failure after WEBHOOK_RETRY_FOR and resend,
 * order per record, model and event filters, the SSRF guard, the YAML file, two nodes (each event once).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { Webhook as Verifier } from 'standardwebhooks';
import { DIALECTS } from '../../helpers/dialects';
import { startTestApp, type TestApp } from '../../helpers/test-app';
import { createTestDatabase, type TestDatabase } from '../../helpers/test-db';
import { startReceiver, type Receiver } from '../../helpers/webhook-receiver';

const FAST = {
  WEBHOOK_ALLOW_HOSTS: '127.0.0.1',
  WEBHOOK_BACKOFF_BASE: '40ms',
  WEBHOOK_BACKOFF_MAX: '200ms',
  WEBHOOK_POLL_INTERVAL: '50ms',
  WEBHOOK_TIMEOUT: '2s',
  WEBHOOK_RETRY_FOR: '1500ms',
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

for (const dialect of DIALECTS) {
  describe(`webhooks [${dialect}]`, function () {
    this.timeout(60_000);
    let app: TestApp;
    let database: TestDatabase;
    let rx: Receiver;

    before(async () => {
      rx = await startReceiver();
      database = await createTestDatabase(dialect);
      app = await startTestApp(dialect, { database, env: FAST });
    });
    after(async () => {
      await app?.close();
      await database?.drop();
      await rx?.close();
    });
    beforeEach(() => {
      rx.received.splice(0);
      rx.respond = () => 200;
    });
    // a test that failed half-way leaves no webhook behind to muddle the next one
    afterEach(async () => {
      for (const w of (await app.http.get('/api/webhook?filters[enabled][$eq]=true&limit=100')).body.records) await disable(w.id);
    });

    let hookSeq = 0;
    const addHook = async (body: Record<string, unknown> = {}): Promise<{ id: number; secret: string }> => {
      hookSeq += 1;
      const res = await app.http.post('/api/webhook', { name: `hook-${hookSeq}`, url: `${rx.url}/in`, events: ['*'], ...body });
      expect(res.status, res.text).to.equal(200);
      return { id: res.body.data.id, secret: res.body.data.secret };
    };
    const disable = (id: number) => app.http.patch(`/api/webhook/${id}`, { enabled: false });
    const deliveriesOf = async (webhookId: number) => (await app.http.get(`/api/webhook-delivery?filters[webhookId][$eq]=${webhookId}&sort[0]=id&limit=100`)).body.records as any[];
    const settle = async (webhookId: number, count: number, statuses = ['succeeded', 'failed'], timeoutMs = 10_000) => {
      const t0 = Date.now();
      for (;;) {
        const list = await deliveriesOf(webhookId);
        if (list.length >= count && list.every((d) => statuses.includes(d.status))) return list;
        if (Date.now() - t0 > timeoutMs) throw new Error(`deliveries not settled: ${JSON.stringify(list.map((d) => d.status))}`);
        await sleep(50);
      }
    };

    it('is admin-only; the secret (whsec_) is answered once, at creation', async () => {
      const user = await app.createUser();
      expect((await user.http.get('/api/webhook')).status).to.equal(403);
      expect((await user.http.get('/api/webhook-delivery')).status).to.equal(403);
      expect((await app.anon.post('/api/webhook', { name: 'x', url: `${rx.url}/x`, events: ['*'] })).status).to.equal(401);
      const { id, secret } = await addHook();
      expect(secret).to.match(/^whsec_[A-Za-z0-9+/]+=*$/);
      const read = await app.http.get(`/api/webhook/${id}`);
      expect(read.status).to.equal(200);
      expect(read.body).to.not.have.property('secret');
      expect(read.body).to.include({ enabled: true, source: 'api' });
      expect(JSON.stringify((await app.http.get('/api/webhook')).body)).to.not.contain(secret);
      await disable(id);
    });

    it('refuses a bad url or event type (422), and a private destination unless WEBHOOK_ALLOW_HOSTS opens it', async () => {
      const bad = await app.http.post('/api/webhook', { name: 'bad', url: 'ftp://example.com', events: ['*'] });
      expect(bad.status).to.equal(422);
      expect(bad.body.error.details.fields).to.have.property('url');
      const ev = await app.http.post('/api/webhook', { name: 'bad', url: 'https://example.com', events: ['record.explode'] });
      expect(ev.status).to.equal(422);
      expect(ev.body.error.details.fields).to.have.property('events');
      // a model filter naming no model would never match; a URL the parser would trim is not the one stored
      const model = await app.http.post('/api/webhook', { name: 'bad', url: 'https://example.com', events: ['*'], model: 'nope-model' });
      expect(model.status).to.equal(422);
      expect(model.body.error.details.fields.model[0]).to.contain('nope-model');
      const spaced = await app.http.post('/api/webhook', { name: 'bad', url: ' https://example.com/hook', events: ['*'] });
      expect(spaced.status).to.equal(422);
      expect(spaced.body.error.details.fields).to.have.property('url');
      expect((await app.http.get('/api/webhook?filters[name][$eq]=bad')).body.records).to.have.length(0);
      // IPv6 forms that carry a blocked IPv4 address: compatible, mapped, translated, NAT64, 6to4
      const embedded = ['http://[::7f00:1]:4555/', 'http://[::127.0.0.1]/', 'http://[::ffff:0:127.0.0.1]/', 'http://[::ffff:0:a00:1]/', 'http://[64:ff9b::a9fe:a9fe]/', 'http://[2002:7f00:1::]/', 'http://[2002:a9fe:a9fe::1]/'];
      for (const url of ['http://10.1.2.3/x', 'http://169.254.169.254/latest/meta-data', 'http://[::1]:8080/', 'http://192.168.0.10/', ...embedded]) {
        const res = await app.http.post('/api/webhook', { name: 'private', url, events: ['*'] });
        expect(res.status, url).to.equal(422);
        expect(res.body.error.message).to.contain('WEBHOOK_ALLOW_HOSTS');
      }
    });

    it('refuses (422 details.fields) a webhook that could never fire: a webhook model, an event type its model never carries, an event type twice; on create, bulk and update', async () => {
      const body = { url: 'https://hooks.example.com/in' };
      const refused = async (res: any, field: string, text: string) => {
        expect(res.status, res.text).to.equal(422);
        expect(res.body.error.message).to.match(new RegExp(`^invalid webhook: ${field} `));
        expect(Object.keys(res.body.error.details.fields)).to.deep.equal([field]);
        expect(res.body.error.details.fields[field][0]).to.contain(text);
      };
      for (const model of ['webhook', 'webhook-delivery']) await refused(await app.http.post('/api/webhook', { name: 'never', ...body, events: ['*'], model }), 'model', `no webhook is sent events of "${model}"`);
      await refused(await app.http.post('/api/webhook', { name: 'never', ...body, events: ['session.revoke'], model: 'fee-type' }), 'events', '"session.revoke" never carries model "fee-type"');
      await refused(await app.http.post('/api/webhook', { name: 'never', ...body, events: ['user.*'], model: 'institute' }), 'events', '"user.*" never carries model "institute"');
      // fee-type is not draft-enabled (no publish), institute has no soft delete (no recover)
      await refused(await app.http.post('/api/webhook', { name: 'never', ...body, events: ['record.create', 'record.publish'], model: 'fee-type' }), 'events', '"record.publish" never carries');
      await refused(await app.http.post('/api/webhook', { name: 'never', ...body, events: ['record.recover'], model: 'institute' }), 'events', '"record.recover" never carries');
      await refused(await app.http.post('/api/webhook', { name: 'never', ...body, events: ['record.create', 'record.update', 'record.create'] }), 'events', 'lists "record.create" more than once');
      const bulk = await app.http.post('/api/webhook/bulk', [{ name: 'never-1', ...body, events: ['*'] }, { name: 'never-2', ...body, events: ['session.revoke'], model: 'user' }]);
      expect(bulk.status).to.equal(422);
      expect(bulk.body.error.details.errors[0]).to.include({ index: 1 });
      expect(bulk.body.error.details.errors[0].fields).to.have.property('events');
      expect((await app.http.get('/api/webhook?filters[name][$startsWith]=never')).body.records).to.have.length(0);
      // what can fire is taken: a model's own events, identity events with their model, patterns
      for (const [events, model] of [[['user.create', 'record.update'], 'user'], [['session.revoke'], 'session'], [['record.*'], 'fee-type'], [['record.recover'], 'fee-type'], [['*'], 'institute']] as const) {
        const ok = await app.http.post('/api/webhook', { name: `fires-${model}-${events.join()}`, ...body, events, model });
        expect(ok.status, ok.text).to.equal(200);
        await disable(ok.body.data.id);
      }
      // an update is checked against what it leaves as stored: the model changed under user events, events under a model
      const { id } = await addHook({ url: body.url, events: ['user.create'], model: 'user' });
      await refused(await app.http.patch(`/api/webhook/${id}`, { model: 'institute' }), 'model', '"user.create" never carries model "institute"');
      await refused(await app.http.patch(`/api/webhook/${id}`, { events: ['session.revoke'] }), 'events', '"session.revoke" never carries model "user"');
      await refused(await app.http.patch(`/api/webhook/${id}`, { model: 'webhook' }), 'model', 'no webhook is sent events of "webhook"');
      expect((await app.http.patch(`/api/webhook/${id}`, { model: null })).status).to.equal(200);
      expect((await app.http.patch(`/api/webhook/${id}`, { events: ['session.revoke'] })).status).to.equal(200);
      await disable(id);
    });

    it('enabled is a boolean, never null: null or a non-boolean answers 422 details.fields.enabled (create, bulk, PATCH, PUT); left out it is true', async () => {
      const body = { url: 'https://hooks.example.com/in', events: ['*'] };
      for (const enabled of [null, 'false', 0]) {
        const res = await app.http.post('/api/webhook', { name: 'enabled-bad', ...body, enabled });
        expect(res.status, JSON.stringify(enabled)).to.equal(422);
        expect(res.body.error.name).to.equal('ValidationError');
        expect(res.body.error.details.fields).to.deep.equal({ enabled: ['must be boolean'] });
      }
      const bulk = await app.http.post('/api/webhook/bulk', [{ name: 'enabled-bulk-1', ...body }, { name: 'enabled-bulk-2', ...body, enabled: null }]);
      expect(bulk.status).to.equal(422);
      expect(bulk.body.error.details.errors).to.deep.equal([{ index: 1, fields: { enabled: ['must be boolean'] } }]);
      expect((await app.http.get('/api/webhook?filters[name][$startsWith]=enabled-')).body.records).to.have.length(0);
      const created = await app.http.post('/api/webhook', { name: 'enabled-default', ...body });
      expect(created.status, created.text).to.equal(200);
      expect(created.body.data.enabled).to.equal(true);
      const id = created.body.data.id as number;
      const patched = await app.http.patch(`/api/webhook/${id}`, { enabled: null });
      expect(patched.status).to.equal(422);
      expect(patched.body.error.details.fields).to.deep.equal({ enabled: ['must be boolean'] });
      expect((await app.http.put(`/api/webhook/${id}`, { name: 'enabled-default', ...body, enabled: null })).status).to.equal(422);
      expect((await app.http.get(`/api/webhook/${id}`)).body.enabled).to.equal(true);
      expect((await app.http.patch(`/api/webhook/${id}`, { enabled: false })).body.data.enabled).to.equal(false);
      // a PUT that leaves it out writes its default, as for any attribute with a default
      const put = await app.http.put(`/api/webhook/${id}`, { name: 'enabled-default', ...body });
      expect(put.status, put.text).to.equal(200);
      expect(put.body.data.enabled).to.equal(true);
      await disable(id);
    });

    it('delivers each committed event signed per Standard Webhooks (verified with the standardwebhooks package)', async () => {
      const { id, secret } = await addHook({ events: ['record.create', 'record.update'] });
      const created = await app.http.post('/api/fee-type', { feeType: 'Signed' });
      await app.http.patch(`/api/fee-type/${created.body.data.id}`, { latePaymentFees: 5 });
      await app.http.del(`/api/fee-type/${created.body.data.id}`); // not subscribed
      await rx.until((r) => r.length >= 2);
      await sleep(200);
      expect(rx.received).to.have.length(2);
      const verifier = new Verifier(secret);
      for (const r of rx.received) {
        const payload = verifier.verify(r.body, { 'webhook-id': String(r.headers['webhook-id']), 'webhook-timestamp': String(r.headers['webhook-timestamp']), 'webhook-signature': String(r.headers['webhook-signature']) });
        expect(payload).to.deep.equal(r.json);
      }
      // a tampered body or another secret does not verify
      const r0 = rx.received[0];
      const h = { 'webhook-id': String(r0.headers['webhook-id']), 'webhook-timestamp': String(r0.headers['webhook-timestamp']), 'webhook-signature': String(r0.headers['webhook-signature']) };
      expect(() => verifier.verify(r0.body.replace('Signed', 'Forged'), h)).to.throw();
      expect(() => new Verifier('whsec_' + Buffer.alloc(32, 7).toString('base64')).verify(r0.body, h)).to.throw();
      const [c, u] = rx.received.map((r) => r.json);
      expect(c.type).to.equal('record.create');
      expect(u.type).to.equal('record.update');
      expect(c.data).to.include({ model: 'fee-type', recordId: created.body.data.id });
      expect(c.data.actor).to.deep.equal({ userId: app.admin!.id, apiTokenId: null });
      const [event] = await app.deps.events.readAfter(c.data.eventId - 1, 1);
      expect(c.data.record).to.deep.equal(event.record);
      const list = await settle(id, 2);
      expect(list.map((d) => [d.eventType, d.status, d.attemptCount])).to.deep.equal([
        ['record.create', 'succeeded', 1],
        ['record.update', 'succeeded', 1],
      ]);
      expect(list[0].attempts[0]).to.include({ status: 200, error: null, response: 'answer 200' });
      expect(list[0].attempts[0].durationMs).to.be.a('number');
      expect(list[0]).to.not.have.any.keys('leaseToken', 'leaseUntil');
      await disable(id);
    });

    it('keeps connections to a receiver open between deliveries; one it closed meanwhile costs no failed attempt', async () => {
      const { id } = await addHook({ events: ['record.create'] });
      const before = rx.connections;
      for (let i = 0; i < 12; i++) await app.http.post('/api/fee-type', { feeType: `Pooled ${i}` });
      await rx.until((r) => r.length >= 12);
      // WEBHOOK_CONCURRENCY (8) connections at most, not one per delivery
      expect(rx.connections - before).to.be.at.most(8);
      // The receiver now closes every idle connection at once: a delivery on a pooled connection the
      // receiver has closed is sent again on a new one, in the same attempt.
      rx.keepAliveTimeout(1);
      try {
        for (let i = 0; i < 6; i++) {
          await app.http.post('/api/fee-type', { feeType: `Closed ${i}` });
          await sleep(20);
        }
        const list = await settle(id, 18);
        expect(list.map((d) => [d.status, d.attemptCount])).to.deep.equal(list.map(() => ['succeeded', 1]));
        expect(rx.received).to.have.length(18);
      } finally {
        rx.keepAliveTimeout(5000);
      }
      await disable(id);
    });

    it('retries with backoff against a receiver that fails then recovers; every attempt recorded', async () => {
      const { id } = await addHook({ events: ['record.create'], model: 'institute' });
      rx.respond = (_r, n) => (n < 3 ? { status: 503, body: `down ${n}` } : 200);
      const t0 = Date.now();
      await app.http.post('/api/institute', { name: 'Retry School', code: 'RETRY' });
      const [d] = await settle(id, 1);
      expect(d.status).to.equal('succeeded');
      expect(d.attemptCount).to.equal(4);
      expect(d.attempts.map((a: any) => a.status)).to.deep.equal([503, 503, 503, 200]);
      expect(d.attempts[0]).to.include({ error: 'receiver answered 503', response: 'down 0' });
      // backoff 40 ms · 2^n with jitter ≥ 50 %: at least 20 + 40 + 80 ms between the four attempts
      const times = rx.received.map((r) => r.at);
      expect(times[3] - times[0]).to.be.at.least(140);
      // msg_<delivery id>_<event time in ms>: the same on every attempt, not the same as another deployment's delivery d.id
      expect(rx.received.map((r) => r.headers['webhook-id'])).to.deep.equal(Array(4).fill(`msg_${d.id}_${Date.parse(rx.received[0].json.timestamp)}`));
      expect(Date.now() - t0).to.be.below(8000);
      await disable(id);
    });

    it('WEBHOOK_TIMEOUT (2 s here): an answer within it counts; one past it is a failed attempt naming the setting', async () => {
      const { id } = await addHook({ events: ['record.create'], model: 'institute' });
      rx.respond = (_r, n) => (n === 0 ? { status: 200, delayMs: 1500 } : n === 1 ? { status: 200, delayMs: 2600 } : 200);
      await app.http.post('/api/institute', { name: 'Slow School', code: 'SLOW1' });
      const [inTime] = await settle(id, 1);
      expect(inTime).to.include({ status: 'succeeded', attemptCount: 1 });
      expect(inTime.attempts[0].durationMs).to.be.within(1400, 2000);
      await app.http.post('/api/institute', { name: 'Slower School', code: 'SLOW2' });
      // (its retry falls past WEBHOOK_RETRY_FOR, 1.5 s here: failed)
      const [, late] = await settle(id, 2);
      expect(late).to.include({ status: 'failed', attemptCount: 1 });
      expect(late.attempts[0]).to.include({ status: null, error: 'timed out after 2000 ms (WEBHOOK_TIMEOUT)' });
      expect(late.attempts[0].durationMs).to.be.within(1900, 2500);
    });

    it('marks a delivery failed after WEBHOOK_RETRY_FOR; an admin resends it (only a failed one)', async () => {
      const { id } = await addHook({ events: ['record.create'], model: 'institute' });
      rx.respond = () => 500;
      await app.http.post('/api/institute', { name: 'Down School', code: 'DOWN' });
      const [d] = await settle(id, 1, ['failed']);
      expect(d.attemptCount).to.be.at.least(3);
      expect(d.lastError).to.equal('receiver answered 500');
      // the case-insensitive operators see the status and error the attempts wrote (their folded shadow columns)
      const byFold = async (q: string) => (await app.http.get(`/api/webhook-delivery?filters[webhookId][$eq]=${id}&${q}`)).body.records.map((r: any) => r.id);
      expect(await byFold('filters[status][$eqi]=FAILED')).to.deep.equal([d.id]);
      expect(await byFold('filters[status][$eqi]=pending')).to.deep.equal([]);
      expect(await byFold('filters[lastError][$containsi]=ANSWERED 500')).to.deep.equal([d.id]);
      expect((await app.http.post('/api/webhook-delivery', { status: 'pending' })).status).to.equal(405);
      expect((await app.http.patch(`/api/webhook-delivery/${d.id}`, { status: 'succeeded' })).status).to.equal(422);
      rx.respond = () => 204;
      const resent = await app.http.patch(`/api/webhook-delivery/${d.id}`, { status: 'pending' });
      expect(resent.status).to.equal(200);
      const [again] = await settle(id, 1, ['succeeded']);
      expect(again.attempts.at(-1).status).to.equal(204);
      expect(await byFold('filters[status][$eqi]=Succeeded')).to.deep.equal([d.id]);
      expect(await byFold('filters[lastError][$containsi]=answered')).to.deep.equal([]);
      expect((await app.http.patch(`/api/webhook-delivery/${d.id}`, { status: 'pending' })).status).to.equal(409);
      await disable(id);
    });

    it('refuses (409) to resend a delivery whose webhook is disabled or deleted, saying which; the delivery stays failed', async () => {
      const { id } = await addHook({ events: ['record.create'], model: 'institute' });
      rx.respond = () => 500;
      await app.http.post('/api/institute', { name: 'Gone School', code: 'GONE1' });
      await app.http.post('/api/institute', { name: 'Gone School 2', code: 'GONE2' });
      const [d1, d2] = await settle(id, 2, ['failed']);
      rx.respond = () => 204;
      await disable(id);
      const off = await app.http.patch(`/api/webhook-delivery/${d1.id}`, { status: 'pending' });
      expect(off.status, off.text).to.equal(409);
      expect(off.body.error.message).to.match(new RegExp(`delivery ${d1.id} cannot be resent: its webhook "hook-\\d+" \\(${id}\\) is disabled; enable it first`));
      expect((await app.http.get(`/api/webhook-delivery/${d1.id}`)).body).to.include({ status: 'failed', attemptCount: d1.attemptCount });
      // on again, it is resent
      expect((await app.http.patch(`/api/webhook/${id}`, { enabled: true })).status).to.equal(200);
      expect((await app.http.patch(`/api/webhook-delivery/${d1.id}`, { status: 'pending' })).status).to.equal(200);
      const [again] = await settle(id, 2);
      expect(again).to.include({ id: d1.id, status: 'succeeded' });
      expect([200, 204]).to.include((await app.http.del(`/api/webhook/${id}`)).status);
      const gone = await app.http.patch(`/api/webhook-delivery/${d2.id}`, { status: 'pending' });
      expect(gone.status, gone.text).to.equal(409);
      expect(gone.body.error.message).to.equal(`delivery ${d2.id} cannot be resent: its webhook ${id} was deleted`);
      expect((await app.http.get(`/api/webhook-delivery/${d2.id}`)).body).to.include({ status: 'failed', attemptCount: d2.attemptCount });
    });

    it('sends nothing for a write that rolled back (bulk with a conflicting item); the next write is sent', async () => {
      const { id } = await addHook({ events: ['record.create'], model: 'fee-type' });
      expect((await app.http.post('/api/fee-type', { feeType: 'Rollback Taken' })).status).to.equal(200);
      await rx.until((r) => r.length >= 1);
      rx.received.splice(0);
      const bulk = await app.http.post('/api/fee-type/bulk', Array.from({ length: 12 }, (_, i) => ({ feeType: i === 11 ? 'Rollback Taken' : `Rollback ${i}` })));
      expect(bulk.status).to.equal(409);
      await sleep(300);
      expect(rx.received).to.deep.equal([]);
      expect((await deliveriesOf(id)).filter((d) => d.status !== 'succeeded')).to.deep.equal([]);
      const next = (await app.http.post('/api/fee-type', { feeType: 'Rollback After' })).body.data.id;
      await rx.until((r) => r.some((x) => x.json.data.recordId === next));
      await disable(id);
    });

    it('an event appended in a savepoint is sent once the outer transaction commits, and never if it rolls back', async () => {
      const { id } = await addHook({ events: ['record.create'], model: 'fee-type' });
      const append = (trx: any, recordId: number) => app.deps.events!.append(trx, [{ type: 'record.create', model: 'fee-type', recordId, actor: null, record: { id: recordId } }]);
      const sentFor = (recordId: number) => rx.received.filter((r) => r.json.data.recordId === recordId);
      await app.deps.db.transaction(async (outer) => {
        await outer.transaction((inner) => append(inner, 900001));
        await sleep(300); // the savepoint is released, the write not committed: nothing goes out
        expect(sentFor(900001)).to.deep.equal([]);
      });
      app.deps.events!.committed();
      await rx.until(() => sentFor(900001).length === 1);
      const rolledBack = app.deps.db.transaction(async (outer) => {
        await outer.transaction((inner) => append(inner, 900002));
        throw new Error('roll back');
      });
      const failure = await rolledBack.then(() => null, (e: Error) => e.message);
      expect(failure).to.equal('roll back');
      await sleep(300);
      expect(sentFor(900002)).to.deep.equal([]);
      expect((await deliveriesOf(id)).map((d) => d.recordId)).to.deep.equal([900001]);
      await disable(id);
    });

    it('on a fresh node, a record\'s writes in quick succession are all sent in order, each soon after the one it waited for', async () => {
      // a node of its own, idle since it started: nothing else keeps it looking
      const db2 = await createTestDatabase(dialect);
      const node = await startTestApp(dialect, { database: db2, env: FAST });
      try {
        const hook = await node.http.post('/api/webhook', { name: 'quick', url: `${rx.url}/quick`, events: ['record.create', 'record.update'], model: 'fee-type' });
        expect(hook.status, hook.text).to.equal(200);
        await sleep(300);
        const id = (await node.http.post('/api/fee-type', { feeType: 'Quick' })).body.data.id;
        // each update's delivery is inserted while the one before it is unfinished: it waits for it
        for (let i = 1; i <= 3; i++) expect((await node.http.patch(`/api/fee-type/${id}`, { latePaymentFees: i })).status).to.equal(200);
        const mine = () => rx.received.filter((r) => r.path === '/quick');
        await rx.until(() => mine().length >= 4, 5000);
        expect(mine().map((r) => r.json.data.record.latePaymentFees ?? null)).to.deep.equal([null, 1, 2, 3]);
        // well under the idle node's own look (IDLE_POLL_MS, 30 s; 2 s on SQLite)
        const at = mine().map((r) => r.at);
        expect(at[3] - at[0]).to.be.below(1500);
      } finally {
        await node.close();
        await db2.drop();
      }
    });

    it('keeps the order per record while retrying; other records are not held up', async () => {
      const { id } = await addHook({ events: ['record.create', 'record.update'], model: 'fee-type' });
      const a = (await app.http.post('/api/fee-type', { feeType: 'Ordered A' })).body.data.id;
      const b = (await app.http.post('/api/fee-type', { feeType: 'Ordered B' })).body.data.id;
      await settle(id, 2);
      rx.received.splice(0);
      // record A's first update fails twice; its later updates wait for it, record B's go through
      let failuresLeft = 2;
      rx.respond = (r) => (r.json.data.recordId === a && r.json.data.record.latePaymentFees === 1 && failuresLeft-- > 0 ? 500 : 200);
      for (let i = 1; i <= 3; i++) {
        await app.http.patch(`/api/fee-type/${a}`, { latePaymentFees: i });
        await app.http.patch(`/api/fee-type/${b}`, { latePaymentFees: i });
      }
      await settle(id, 8, ['succeeded']);
      const ok = (rid: number) => rx.received.filter((r) => r.json.data.recordId === rid).map((r) => r.json.data.record.latePaymentFees);
      expect(ok(a)).to.deep.equal([1, 1, 1, 2, 3]);
      expect(ok(b)).to.deep.equal([1, 2, 3]);
      // B was not held up by A's retries: each of its deliveries went out at the first attempt
      const list = await deliveriesOf(id);
      expect(list.filter((d) => d.recordId === b).map((d) => d.attemptCount)).to.deep.equal([1, 1, 1, 1]);
      expect(list.filter((d) => d.recordId === a).map((d) => d.attemptCount)).to.deep.equal([1, 3, 1, 1]);
      await disable(id);
    });

    it('filters by event type pattern and model; identity events too', async () => {
      const { id } = await addHook({ events: ['user.*'] });
      await app.http.post('/api/institute', { name: 'Quiet School', code: 'QUIET' });
      const u = await app.createUser();
      await app.anon.post('/api/iam/logout', { refreshToken: u.refreshToken });
      await settle(id, 1);
      await sleep(200);
      expect(rx.received.map((r) => r.json.type)).to.deep.equal(['user.create']);
      await disable(id);
      const s = await addHook({ events: ['session.revoke'] });
      const v = await app.createUser();
      await app.anon.post('/api/iam/logout', { refreshToken: v.refreshToken });
      await settle(s.id, 1);
      expect(rx.received.at(-1)!.json).to.deep.include({ type: 'session.revoke' });
      expect(rx.received.at(-1)!.json.data.record).to.include({ userId: v.id, reason: 'logout' });
      await disable(s.id);
    });

    it('SSRF: a name resolving to loopback is refused after DNS; a redirect is not followed', async () => {
      const port = new URL(rx.url).port;
      const local = await addHook({ url: `http://localhost:${port}/in`, events: ['record.create'], model: 'institute' });
      rx.respond = () => ({ status: 302, headers: { location: `${rx.url}/elsewhere` } });
      const redirect = await addHook({ events: ['record.create'], model: 'institute' });
      await app.http.post('/api/institute', { name: 'SSRF School', code: 'SSRF' });
      const [l] = await settle(local.id, 1, ['failed', 'pending']);
      const t0 = Date.now();
      let ld = l;
      while (ld.attemptCount === 0 && Date.now() - t0 < 5000) [ld] = await deliveriesOf(local.id);
      expect(ld.attempts[0].error).to.match(/^refused: destination localhost \(.*127\.0\.0\.1.*\) is in a private/);
      let [r] = await deliveriesOf(redirect.id);
      while (r.attemptCount === 0 && Date.now() - t0 < 5000) [r] = await deliveriesOf(redirect.id);
      expect(r.attempts[0]).to.include({ status: 302, error: 'redirect (302) not followed' });
      expect(rx.received.map((x) => x.headers.host)).to.not.include(`localhost:${port}`);
      expect(rx.received.map((x) => x.path)).to.not.include('/elsewhere');
      await disable(local.id);
      await disable(redirect.id);
    });

    it('two nodes on one database: each event is delivered once', async () => {
      const other = await startTestApp(dialect, { database, env: FAST });
      try {
        const { id } = await addHook({ events: ['record.create'], model: 'fee-type' });
        const writes = [];
        for (let i = 0; i < 30; i++) writes.push((i % 2 ? app : other).http.post('/api/fee-type', { feeType: `Two nodes ${i}` }));
        await Promise.all(writes);
        await settle(id, 30, ['succeeded']);
        await sleep(300);
        const ids = rx.received.filter((r) => String(r.json?.data?.record?.feeType).startsWith('Two nodes')).map((r) => r.headers['webhook-id']);
        expect(ids).to.have.length(30);
        expect(new Set(ids).size).to.equal(30);
        await disable(id);
      } finally {
        await other.close();
      }
    });

    it('a write on a node that sends nothing (WEBHOOK_DELIVERY=false) is delivered by another node', async () => {
      const quiet = await startTestApp(dialect, { database, env: { ...FAST, WEBHOOK_DELIVERY: 'false' } });
      try {
        const { id } = await addHook({ events: ['record.create'], model: 'fee-type' });
        const created = (await quiet.http.post('/api/fee-type', { feeType: 'From the quiet node' })).body.data.id;
        // the sending node learns of it by the other node's signal (PostgreSQL), or by its own look
        // every 2 s where there is none (SQLite, MariaDB without Redis)
        await rx.until((r) => r.some((x) => x.json?.data?.recordId === created), 5000);
        const [d] = await settle(id, 1, ['succeeded']);
        expect(d).to.include({ recordId: created, attemptCount: 1 });
        await disable(id);
      } finally {
        await quiet.close();
      }
    });

    it('webhooks declared in WEBHOOK_CONFIG_FILE are created at start and signed with their secret', async () => {
      const secret = 'whsec_' + Buffer.alloc(32, 9).toString('base64');
      const file = join(database.dir, 'webhooks.yaml');
      writeFileSync(file, `webhooks:\n  - name: from-git\n    url: ${rx.url}/git\n    events: [record.create]\n    model: institute\n    secretEnv: TEST_GIT_WEBHOOK_SECRET\n`);
      process.env.TEST_GIT_WEBHOOK_SECRET = secret;
      const other = await startTestApp(dialect, { database, env: { ...FAST, WEBHOOK_CONFIG_FILE: file, WEBHOOK_DELIVERY: 'false' } });
      try {
        const list = (await other.http.get('/api/webhook?filters[name][$eq]=from-git')).body.records;
        expect(list).to.have.length(1);
        expect(list[0]).to.include({ source: 'config', url: `${rx.url}/git`, enabled: true });
        // the delivering node is `app` (WEBHOOK_DELIVERY=false on the other)
        await other.http.post('/api/institute', { name: 'Git School', code: 'GIT' });
        await rx.until((r) => r.some((x) => x.path === '/git'));
        const got = rx.received.find((x) => x.path === '/git')!;
        expect(got.json.data.record.code).to.equal('GIT');
        new Verifier(secret).verify(got.body, { 'webhook-id': String(got.headers['webhook-id']), 'webhook-timestamp': String(got.headers['webhook-timestamp']), 'webhook-signature': String(got.headers['webhook-signature']) });
        await disable(list[0].id);
      } finally {
        delete process.env.TEST_GIT_WEBHOOK_SECRET;
        await other.close();
      }
    });
  });
}
