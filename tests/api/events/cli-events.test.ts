/**
 * Issue 15, events the admin CLI appends (user:create and user:import: a record.create and a user.create per
 * account, as POST /api/user; user:set-password, role:create, role:grant --where, role:revoke): each carries
 * the record as FindOne answers it (what GET /api/{model}/{id} answers an admin, private fields never) and gets the deliveries a server's write would get. The CLI
 * sends nothing itself: it inserts them pending, and a running server node claims and sends them (told by
 * the CLI's signal: PostgreSQL NOTIFY, Redis; else by its own periodic look).
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import type { StoredEvent } from '../../../core/events/types';
import { DIALECTS } from '../../helpers/dialects';
import { ROOT, startTestApp, type TestApp } from '../../helpers/test-app';
import { createTestDatabase, type TestDatabase } from '../../helpers/test-db';
import { startReceiver, type Receiver } from '../../helpers/webhook-receiver';

const FAST = {
  WEBHOOK_ALLOW_HOSTS: '127.0.0.1',
  WEBHOOK_BACKOFF_BASE: '40ms',
  WEBHOOK_BACKOFF_MAX: '200ms',
  WEBHOOK_POLL_INTERVAL: '50ms',
  WEBHOOK_TIMEOUT: '2s',
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

for (const dialect of DIALECTS) {
  describe(`events: the admin CLI's writes [${dialect}]`, function () {
    this.timeout(60_000);
    let database: TestDatabase;
    let app: TestApp;
    let rx: Receiver;

    // Spawned asynchronously: a synchronous spawn would freeze this process and the app's server with it.
    const cli = (...args: string[]) =>
      new Promise<{ code: number | null; out: string; err: string }>((resolve, reject) => {
        const child = spawn(process.execPath, [join(ROOT, 'dist', 'admin-cli', 'index.js'), ...args], { env: { ...process.env, ...app.env }, timeout: 30_000 });
        let out = '';
        let err = '';
        child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
        child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
        child.on('error', reject);
        child.on('close', (code) => resolve({ code, out, err }));
      });
    const ok = async (...args: string[]) => {
      const r = await cli(...args);
      expect(r.code, `${args.join(' ')}: ${r.err}`).to.equal(0);
      return r;
    };
    const addHook = async (events: string[], model?: string): Promise<number> => {
      const res = await app.http.post('/api/webhook', { name: `cli-hook-${Date.now().toString(36)}-${events.join('')}`, url: `${rx.url}/in`, events, ...(model && { model }) });
      expect(res.status, res.text).to.equal(200);
      return res.body.data.id;
    };
    const disable = (id: number) => app.http.patch(`/api/webhook/${id}`, { enabled: false });
    const deliveriesOf = async (webhookId: number) => (await app.http.get(`/api/webhook-delivery?filters[webhookId][$eq]=${webhookId}&sort[0]=id&limit=100`)).body.records as Record<string, unknown>[];
    const eventsAfter = async (mark: number, model: string): Promise<StoredEvent[]> => (await app.deps.events.readAfter(mark, 10_000)).filter((e) => e.model === model);
    const userId = async (username: string): Promise<number> => (await app.http.get(`/api/user?filters[username][$eq]=${username}`)).body.records[0].id;
    /** The event's record is FindOne's answer to an admin (no private field: the answer has none). */
    const expectFindOne = async (e: StoredEvent) => {
      const read = await app.http.get(`/api/${e.model}/${e.recordId}`);
      expect(read.status, read.text).to.equal(200);
      expect(e.record, `${e.type} ${e.model} ${e.recordId}`).to.deep.equal(read.body);
    };
    /** The receiver got each event once, as the outbox holds it, and its deliveries succeeded. */
    const expectDelivered = async (webhookId: number, events: readonly StoredEvent[]) => {
      const ids = events.map((e) => e.id);
      await rx.until((r) => ids.every((id) => r.some((x) => x.json?.data?.eventId === id)), 10_000);
      for (const e of events) {
        const got = rx.received.filter((x) => x.json?.data?.eventId === e.id);
        expect(got, `${e.type} ${e.id}`).to.have.length(1);
        expect(got[0].json).to.deep.equal({ type: e.type, timestamp: e.time, data: { eventId: e.id, model: e.model, recordId: e.recordId, actor: null, record: e.record } });
      }
      const t0 = Date.now();
      for (;;) {
        const mine = (await deliveriesOf(webhookId)).filter((d) => ids.includes(d.eventId as number));
        if (mine.length === ids.length && mine.every((d) => d.status === 'succeeded')) break;
        if (Date.now() - t0 > 5000) throw new Error(`deliveries not settled: ${JSON.stringify(mine.map((d) => d.status))}`);
        await sleep(50);
      }
    };

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
    beforeEach(() => rx.received.splice(0));

    it('user:create: user.create carries the FindOne answer and a running server delivers it to a webhook on user.*', async () => {
      const hook = await addHook(['user.*']);
      const mark = await app.deps.events.latestId();
      await ok('user:create', '--username', 'clievents1', '--email', 'clievents1@example.test', '--password', 'cli-events-1', '--full-name', 'Cli Events', '--roles', 'admin,authenticated');
      const id = await userId('clievents1');
      const events = await eventsAfter(mark, 'user');
      // as POST /api/user announces an account: its record.create, then the identity event
      expect(events.map((e) => [e.type, e.recordId, e.actor])).to.deep.equal([['record.create', id, null], ['user.create', id, null]]);
      for (const e of events) await expectFindOne(e);
      expect(events[0].record).to.include({ id, username: 'clievents1', fullName: 'Cli Events', emailVerified: true });
      expect(events[0].record).to.not.have.any.keys('password', 'usernameKey', 'emailKey');
      await expectDelivered(hook, events.filter((e) => e.type === 'user.create'));
      await disable(hook);
    });

    it('user:create and user:import: a webhook on record.* of model user gets the accounts as it gets those of POST /api/user', async () => {
      const hook = await addHook(['record.*'], 'user');
      const mark = await app.deps.events.latestId();
      await ok('user:create', '--username', 'clirecord1', '--email', 'clirecord1@example.test', '--password', 'cli-record-1');
      const file = join(database.dir, 'cli-events-record.json');
      writeFileSync(file, JSON.stringify([{ username: 'clirecord2', email: 'clirecord2@example.test', password: 'cli-record-2' }]));
      await ok('user:import', file, '--no-progress');
      const created = (await eventsAfter(mark, 'user')).filter((e) => e.type === 'record.create');
      expect(created.map((e) => [e.recordId, e.actor])).to.deep.equal([[await userId('clirecord1'), null], [await userId('clirecord2'), null]]);
      for (const e of created) await expectFindOne(e);
      await expectDelivered(hook, created);
      await disable(hook);
    });

    it('a user command that fails announces nothing (duplicate, unknown role rolled back, failed import, unknown user)', async () => {
      await ok('user:create', '--username', 'clifail1', '--email', 'clifail1@example.test', '--password', 'cli-fail-1');
      const mark = await app.deps.events.latestId();
      const failed = async (...args: string[]) => expect((await cli(...args)).code, args.join(' ')).to.not.equal(0);
      await failed('user:create', '--username', 'CLIFAIL1', '--email', 'clifail2@example.test', '--password', 'cli-fail-2');
      // the account row is inserted, then its roles fail: the transaction (and its events) roll back
      await failed('user:create', '--username', 'clifail3', '--email', 'clifail3@example.test', '--password', 'cli-fail-3', '--roles', 'no-such-role');
      const file = join(database.dir, 'cli-events-fail.json');
      writeFileSync(file, JSON.stringify([{ username: 'clifail4', email: 'clifail4@example.test', password: 'cli-fail-4' }, { username: 'clifail5', email: 'clifail5@example.test', password: 'short' }]));
      await failed('user:import', file, '--no-progress');
      await failed('user:set-password', '--user', 'nobody-here', '--password', 'cli-fail-6');
      await failed('role:create', '--name', 'admin');
      expect(await app.deps.events.readAfter(mark, 10_000)).to.deep.equal([]);
      expect((await app.http.get('/api/user?filters[username][$in][0]=clifail3&filters[username][$in][1]=clifail4')).body.records).to.deep.equal([]);
    });

    it('user:import and user:set-password: every event carries the FindOne answer and is delivered (a webhook on *)', async () => {
      const hook = await addHook(['*'], 'user');
      const sessions = await addHook(['session.revoke']);
      const file = join(database.dir, 'cli-events-import.json');
      writeFileSync(file, JSON.stringify([
        { username: 'cliimport1', email: 'cliimport1@example.test', password: 'cli-import-1', fullName: 'Import One' },
        { username: 'cliimport2', email: 'cliimport2@example.test', password: 'cli-import-2', roles: ['admin'] },
      ]));
      let mark = await app.deps.events.latestId();
      await ok('user:import', file, '--no-progress');
      const imported = await eventsAfter(mark, 'user');
      const [one, two] = [await userId('cliimport1'), await userId('cliimport2')];
      expect(imported.map((e) => [e.type, e.recordId])).to.deep.equal([['record.create', one], ['user.create', one], ['record.create', two], ['user.create', two]]);
      for (const e of imported) await expectFindOne(e);
      await expectDelivered(hook, imported);

      const signedIn = await app.signIn('cliimport1', 'cli-import-1');
      mark = await app.deps.events.latestId();
      rx.received.splice(0);
      await ok('user:set-password', '--user', 'cliimport1', '--password', 'cli-import-new-1');
      const changed = await eventsAfter(mark, 'user');
      expect(changed.map((e) => [e.type, e.recordId])).to.deep.equal([['record.update', signedIn.id]]);
      await expectFindOne(changed[0]);
      await expectDelivered(hook, changed);
      const revoked = await eventsAfter(mark, 'session');
      expect(revoked.map((e) => e.type)).to.deep.equal(['session.revoke']);
      expect(revoked[0].record).to.include({ userId: signedIn.id, reason: 'password-set-by-admin' });
      await expectDelivered(sessions, revoked);
      await disable(hook);
      await disable(sessions);
    });

    it('role:create, role:grant --where and role:revoke announce the role and the access rule as the record API would', async () => {
      const roles = await addHook(['record.*'], 'role');
      const rules = await addHook(['record.*'], 'access-rule');
      let mark = await app.deps.events.latestId();
      await ok('role:create', '--name', 'cli-events-role', '--description', 'made by the CLI');
      const created = await eventsAfter(mark, 'role');
      expect(created.map((e) => e.type)).to.deep.equal(['record.create']);
      expect(created[0].record).to.include({ name: 'cli-events-role', description: 'made by the CLI' });
      await expectFindOne(created[0]);
      await expectDelivered(roles, created);

      mark = await app.deps.events.latestId();
      await ok('role:grant', '--role', 'cli-events-role', '--permission', 'institute.find', '--where', '{"city":{"$eq":"Springfield"}}', '--fields', 'name,city');
      const granted = await eventsAfter(mark, 'access-rule');
      expect(granted.map((e) => e.type)).to.deep.equal(['record.create']);
      await expectFindOne(granted[0]);
      await expectDelivered(rules, granted);

      const before = (await app.http.get(`/api/access-rule/${granted[0].recordId}`)).body;
      mark = await app.deps.events.latestId();
      await ok('role:revoke', '--role', 'cli-events-role', '--permission', 'institute.find');
      const removed = await eventsAfter(mark, 'access-rule');
      expect(removed.map((e) => [e.type, e.recordId])).to.deep.equal([['record.delete', granted[0].recordId]]);
      expect(removed[0].record).to.deep.equal(before);
      await expectDelivered(rules, removed);
      await disable(roles);
      await disable(rules);
    });

    it('with REDIS_URL, an idle server node hears of the CLI\'s deliveries by its signal, not at its slow look (30 s)', async () => {
      const redis = { ...FAST, REDIS_URL: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379' };
      await app.close();
      app = await startTestApp(dialect, { database, env: redis });
      const hook = await addHook(['user.create']);
      await sleep(300); // the dispatcher has found nothing to send: idle until a signal or IDLE_POLL_MS
      const t0 = Date.now();
      const r = await cli('user:create', '--username', 'cliredis1', '--email', 'cliredis1@example.test', '--password', 'cli-redis-1');
      expect(r.code, r.err).to.equal(0);
      const id = await userId('cliredis1');
      await rx.until((got) => got.some((x) => x.json?.data?.recordId === id), 5000);
      expect(Date.now() - t0).to.be.below(10_000);
      await disable(hook);
    });

    it('the CLI sends nothing itself: with no delivering node its deliveries wait, pending, for one', async () => {
      const quiet = await startTestApp(dialect, { database, env: { ...FAST, WEBHOOK_DELIVERY: 'false' } });
      await app.close();
      try {
        app = quiet;
        const hook = await addHook(['user.create']);
        await ok('user:create', '--username', 'clievents2', '--email', 'clievents2@example.test', '--password', 'cli-events-2');
        const id = await userId('clievents2');
        await sleep(300);
        expect(rx.received.filter((x) => x.json?.data?.recordId === id)).to.have.length(0);
        const waiting = await deliveriesOf(hook);
        expect(waiting.map((d) => [d.recordId, d.status, d.attemptCount])).to.deep.equal([[id, 'pending', 0]]);
        // a delivering node claims it
        app = await startTestApp(dialect, { database, env: FAST });
        await rx.until((r) => r.some((x) => x.json?.data?.recordId === id), 10_000);
        expect(rx.received.filter((x) => x.json?.data?.recordId === id).map((x) => x.json.type)).to.deep.equal(['user.create']);
        await disable(hook);
      } finally {
        await quiet.close();
      }
    });
  });
}
