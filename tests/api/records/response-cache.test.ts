/**
 * Issue 17: the response cache over HTTP, both databases.
 * - CACHE=memory: a repeated read is answered from the cache (same bytes, same ETag, 304 still works);
 *   a write is seen by the writer's next read at once (the model, a model it filters / populates
 *   through, a relation change, a delete); a hit bypasses neither authentication nor permission checks;
 *   CACHE_MAX_ENTRIES and CACHE_MAX_ENTRY_BYTES hold at the limit and past it, without errors; a DELETE
 *   whose foreign-key actions reach further in a chain (cascade, then set null) purges every model changed.
 * - CACHE=redis: two service instances on one database and one Redis: a write on one is seen by a read
 *   on the other within one second (at once, in fact: generation counters in Redis).
 */
import { join } from 'node:path';
import { expect } from 'chai';
import { DIALECTS } from '../../helpers/dialects';
import { client } from '../../helpers/http';
import { userWith } from '../../helpers/roles';
import { createTestDatabase, type TestDatabase } from '../../helpers/test-db';
import { ROOT, startTestApp, type TestApp } from '../../helpers/test-app';
import type { MemoryStore } from '../../../core/cache/memory-store';
import { COMMIT_SETTLE_MS } from '../../../core/cache/write-tracker';
import { png, sendForm } from '../../helpers/multipart';

const settle = (): Promise<void> => new Promise((r) => setTimeout(r, COMMIT_SETTLE_MS + 100));
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const LIST = '/api/fee-type?filters[institute][city][$eq]=Bern&sort[0]=id&populate[0]=institute&limit=50';

/** The same database, reached through a URL spelled otherwise. */
function otherSpelling(url: string): string {
  if (url.startsWith('sqlite:')) return url.replace(/\/([^/]+)$/, '/./$1');
  if (url.startsWith('mysql:')) return /:3306\//.test(url) ? url.replace(':3306/', '/') : url.replace(/@([^/:]+)\//, '@$1:3306/');
  return `${url}${url.includes('?') ? '&' : '?'}application_name=node-b`;
}

for (const dialect of DIALECTS) {
  describe(`Response cache, CACHE=memory [${dialect}]`, () => {
    let app: TestApp;
    let instituteId: number;
    let feeId: number;
    const stats = () => app.deps.responseCache!.stats;

    before(async () => {
      app = await startTestApp(dialect, { env: { CACHE: 'memory', CACHE_MAX_ENTRIES: '3', CACHE_MAX_ENTRY_BYTES: '4000' } });
      const inst = await app.http.post('/api/institute', { name: 'Cache School', code: 'CACHE', city: 'Bern' });
      instituteId = inst.body.data.id;
      const fee = await app.http.post('/api/fee-type', { feeType: 'Cached fee', instituteId, latePaymentFees: 5 });
      feeId = fee.body.data.id;
      // The test app writes its admin outside any request (roles links): those are bumped again
      // COMMIT_SETTLE_MS later, which would turn the first hit below into a miss.
      await settle();
    });
    after(async () => app?.close());

    it('a repeated read is a hit: same bytes, same ETag, and If-None-Match still answers 304', async () => {
      const a = await app.http.get(LIST);
      const hits = stats().hits;
      const b = await app.http.get(LIST);
      expect(stats().hits).to.equal(hits + 1);
      expect(b.text).to.equal(a.text);
      expect(b.headers.get('etag')).to.equal(a.headers.get('etag'));
      const c = await app.http.get(LIST, { headers: { 'if-none-match': a.headers.get('etag')! } });
      expect(c.status).to.equal(304);
      expect(c.text).to.equal('');
    });

    it('the same query with its parameters in another order is the same entry', async () => {
      await app.http.get('/api/fee-type?filters[latePaymentFees][$gt]=1&filters[partPaymentAllowed][$eq]=false&limit=5');
      const hits = stats().hits;
      await app.http.get('/api/fee-type?limit=5&filters[partPaymentAllowed][$eq]=false&filters[latePaymentFees][$gt]=1');
      expect(stats().hits).to.equal(hits + 1);
    });

    it('read-your-writes: the model, a related model filtered and populated through, a relation change, a delete', async () => {
      const before = (await app.http.get(LIST)).body.records.length;
      await app.http.post('/api/fee-type', { feeType: 'Second fee', instituteId, latePaymentFees: 6 });
      expect((await app.http.get(LIST)).body.records.length).to.equal(before + 1);
      // the related model: its name is populated, its city filtered on
      await app.http.patch(`/api/institute/${instituteId}`, { name: 'Renamed School' });
      expect((await app.http.get(LIST)).body.records[0].institute.name).to.equal('Renamed School');
      await app.http.patch(`/api/institute/${instituteId}`, { city: 'Basel' });
      expect((await app.http.get(LIST)).body.records).to.have.length(0);
      await app.http.patch(`/api/institute/${instituteId}`, { city: 'Bern' });
      expect((await app.http.get(LIST)).body.records).to.have.length(before + 1);
      // a relation change, seen from the other side (populate of the inverse relation)
      const other = await app.http.post('/api/institute', { name: 'Other School', code: 'OTHER', city: 'Genf' });
      const inverse = `/api/institute/${other.body.data.id}?populate[0]=feeTypes`;
      expect((await app.http.get(inverse)).body.feeTypes).to.have.length(0);
      await app.http.patch(`/api/fee-type/${feeId}`, { instituteId: other.body.data.id });
      expect((await app.http.get(inverse)).body.feeTypes).to.have.length(1);
      // a delete, on findOne
      expect((await app.http.get(`/api/fee-type/${feeId}`)).status).to.equal(200);
      await app.http.del(`/api/fee-type/${feeId}`);
      expect((await app.http.get(`/api/fee-type/${feeId}`)).status).to.equal(404);
    });

    it('its media: a file uploaded to a record is seen by the next read (list and findOne with populateMedia)', async () => {
      const inst = await app.http.post('/api/institute', { name: 'Media School', code: 'MEDIA', city: 'Chur' });
      const id = inst.body.data.id as number;
      const one = `/api/institute/${id}?populateMedia[0]=logo`;
      const list = '/api/institute?filters[city][$eq]=Chur&populateMedia[0]=logo';
      expect((await app.http.get(one)).text).to.not.contain('cache.png');
      expect((await app.http.get(list)).text).to.not.contain('cache.png');
      const hits = stats().hits;
      await app.http.get(one);
      expect(stats().hits).to.equal(hits + 1);
      const up = await sendForm(`${app.url}/api/institute/${id}`, 'PATCH', { data: {} }, [{ part: 'logo', bytes: png('cache'), type: 'image/png', name: 'cache.png' }], fetch, app.admin!.accessToken);
      expect(up.status, JSON.stringify(up.body)).to.equal(200);
      expect((await app.http.get(one)).text).to.contain('"name":"cache.png"');
      expect((await app.http.get(list)).text).to.contain('"name":"cache.png"');
    });

    it('a hit bypasses neither authentication nor the permission checks', async () => {
      const path = '/api/fee-type?sort[0]=id&limit=5&populate[0]=institute';
      const reader = await userWith(app, 'cache-reader', ['fee-type.find', 'institute.find']);
      const narrow = await userWith(app, 'cache-narrow', ['fee-type.find']);
      expect((await reader.http.get(path)).status).to.equal(200);
      expect((await reader.http.get(path)).status).to.equal(200);
      expect((await narrow.http.get(path)).status, 'populate needs institute.find').to.equal(403);
      expect((await app.anon.get(path)).status).to.be.oneOf([401, 403]);
      expect((await app.anon.withToken('not-a-token').get(path)).status).to.equal(401);
    });

    it('CACHE_MAX_ENTRIES: at most that many answers kept, the least recently used dropped, no error', async () => {
      await settle(); // the users made just before were written outside a request
      const store = app.deps.responseCache!.store as MemoryStore;
      for (let i = 1; i <= 5; i++) expect((await app.http.get(`/api/fee-type?limit=${i}`)).status).to.equal(200);
      expect(store.size.entries).to.equal(3);
      const hits = stats().hits;
      await app.http.get('/api/fee-type?limit=5');
      expect(stats().hits, 'the most recent one is still there').to.equal(hits + 1);
      await app.http.get('/api/fee-type?limit=1');
      expect(stats().hits, 'the oldest one went').to.equal(hits + 1);
    });

    it('CACHE_MAX_ENTRY_BYTES: an answer at the bound is kept, one past it is computed every time', async () => {
      const small = await startTestApp(dialect, { env: { CACHE: 'memory', CACHE_MAX_ENTRY_BYTES: '400' } });
      try {
        await settle();
        const hits = (): number => small.deps.responseCache!.stats.hits;
        const probe = await small.http.post('/api/institute', { name: 'n', code: 'PROBE', city: 'Zug' });
        const path = `/api/institute/${probe.body.data.id}`;
        const base = (await small.http.get(path)).text.length - 1;
        for (const [bytes, kept] of [[400, true], [401, false]] as const) {
          await small.http.patch(path, { name: 'x'.repeat(bytes - base) });
          const first = await small.http.get(path);
          expect(Buffer.byteLength(first.text)).to.equal(bytes);
          const before = hits();
          const again = await small.http.get(path);
          expect(again.status).to.equal(200);
          expect(again.text).to.equal(first.text);
          expect(hits() - before, `${bytes} bytes`).to.equal(kept ? 1 : 0);
        }
      } finally {
        await small.close();
      }
    });
    it('CACHE_MAX_BYTES counts what the kept answers hold in memory: no answer keeps a larger buffer alive', async () => {
      const own = await startTestApp(dialect, { env: { CACHE: 'memory' } });
      try {
        await settle();
        const store = own.deps.responseCache!.store as MemoryStore;
        // A small answer (Node's 8 KiB buffer pool) and one of more than 2,000 objects (a 256 KiB serializer chunk).
        const many = Array.from({ length: 2100 }, () => ({}));
        const user = await own.http.patch(`/api/user/${own.admin!.id}`, { customPayload: many });
        expect(user.status, user.text).to.equal(200);
        const paths = ['/api/institute?limit=1', `/api/user/${own.admin!.id}`];
        for (const path of paths) expect((await own.http.get(path)).status, path).to.equal(200);
        expect(store.size.entries).to.equal(paths.length);
        expect(store.heldBytes, `counted ${store.size.bytes}`).to.be.at.most(store.size.bytes);
        const again = await own.http.get(`/api/user/${own.admin!.id}`);
        expect(again.body.customPayload).to.deep.equal(many);
      } finally {
        await own.close();
      }
    });
  });

  describe(`Response cache, CACHE=memory, a write outside any request that waits for a lock held elsewhere [${dialect}]`, () => {
    let database: TestDatabase;
    let app: TestApp;
    /** Another process on the same database, without the cache (it holds the lock; the reference answers). */
    let other: TestApp;
    before(async () => {
      database = await createTestDatabase(dialect);
      app = await startTestApp(dialect, { database, env: { CACHE: 'memory' } });
      other = await startTestApp(dialect, { database, env: { CACHE: 'off' } });
    });
    after(async () => {
      await app?.close();
      await other?.close();
      await database?.drop();
    });

    it('an answer read while it waits is not served once it has committed (a background job, the CLI)', async () => {
      const made = await app.http.post('/api/institute', { name: 'Locked School', code: 'LOCKED', city: 'Before' });
      expect(made.status, made.text).to.equal(200);
      const id = made.body.data.id as number;
      const path = `/api/institute/${id}`;
      await settle();
      let release = (): void => undefined;
      const released = new Promise<void>((r) => (release = r));
      let locked = (): void => undefined;
      const isLocked = new Promise<void>((r) => (locked = r));
      // SQLite: the database's write lock (an UPDATE leaving the row as it is); elsewhere the row's lock.
      const holder = other.deps.db.transaction(async (trx) => {
        if (dialect === 'sqlite') await trx('institute').where({ id }).update({ code: 'LOCKED' });
        else await trx('institute').where({ id }).forUpdate().select('id');
        locked();
        await released;
      });
      await isLocked;
      // Not in a request: bumped when sent, but it commits only once the lock is free.
      const write = app.deps.db('institute').where({ id }).update({ city: 'After' }).then(() => undefined);
      await new Promise((r) => setTimeout(r, COMMIT_SETTLE_MS + 200));
      expect((await app.http.get(path)).body.city, 'read while the write waits').to.equal('Before');
      release();
      await holder;
      await write;
      const reference = await client(other.url, app.admin!.accessToken).get(path);
      expect(reference.body.city).to.equal('After');
      expect((await app.http.get(path)).text).to.equal(reference.text);
    });
  });

  describe(`Response cache, CACHE=memory, a DELETE that cascades in several steps [${dialect}]`, () => {
    let app: TestApp;
    before(async () => {
      app = await startTestApp(dialect, { contentTypesDir: join(ROOT, 'tests', 'fixtures', 'cache-chain-models'), env: { CACHE: 'memory' } });
      await settle();
    });
    after(async () => app?.close());

    it('campus → room (ON DELETE CASCADE) → desk (ON DELETE SET NULL): the desk answers show the room gone', async () => {
      const campus = await app.http.post('/api/campus', { name: 'Doomed', city: 'Bern' });
      expect(campus.status, campus.text).to.equal(200);
      const room = await app.http.post('/api/room', { name: 'Doomed room', campusId: campus.body.data.id });
      expect(room.status, room.text).to.equal(200);
      const desk = await app.http.post('/api/desk', { label: 'Standing desk', roomId: room.body.data.id });
      expect(desk.status, desk.text).to.equal(200);
      const paths = ['/api/desk?sort[0]=id', `/api/desk/${desk.body.data.id}`, '/api/room?sort[0]=id'];
      const hits = app.deps.responseCache!.stats.hits;
      for (let i = 0; i < 2; i++) for (const path of paths) expect((await app.http.get(path)).status, path).to.equal(200);
      expect(app.deps.responseCache!.stats.hits - hits, 'the second round is answered from the cache').to.equal(paths.length);

      expect((await app.http.del(`/api/campus/${campus.body.data.id}`)).status).to.equal(200);
      expect((await app.http.get('/api/room?sort[0]=id')).body.records, 'the room went with its campus').to.deep.equal([]);
      expect((await app.http.get('/api/desk?sort[0]=id')).body.records.map((d: { roomId: number | null }) => d.roomId)).to.deep.equal([null]);
      expect((await app.http.get(`/api/desk/${desk.body.data.id}`)).body.roomId).to.equal(null);
    });
  });

  describe(`Response cache, CACHE=redis, two instances [${dialect}]`, () => {
    let database: TestDatabase;
    let a: TestApp;
    let b: TestApp;

    before(async () => {
      database = await createTestDatabase(dialect);
      const env = { CACHE: 'redis', REDIS_URL };
      a = await startTestApp(dialect, { database, env });
      // the second node reaches the same database through a DATABASE_URL spelled otherwise (a connection
      // parameter, the default port, a path segment): it is the same deployment, sharing the same keys
      b = await startTestApp(dialect, { database, env: { ...env, DATABASE_URL: otherSpelling(database.env.DATABASE_URL) } });
      await settle();
    });
    after(async () => {
      await a?.close();
      await b?.close();
      await database?.drop();
    });

    it('a write on one instance is seen by a read on the other within one second; hits on both', async () => {
      const onB = client(b.url, b.admin!.accessToken);
      const inst = await a.http.post('/api/institute', { name: 'Redis School', code: 'REDIS', city: 'Bern' });
      const instituteId = inst.body.data.id as number;
      await a.http.post('/api/fee-type', { feeType: 'Redis fee 1', instituteId });
      const first = await onB.get(LIST);
      expect(first.body.records).to.have.length(1);
      const hitsB = b.deps.responseCache!.stats.hits;
      expect((await onB.get(LIST)).text).to.equal(first.text);
      expect(b.deps.responseCache!.stats.hits).to.equal(hitsB + 1);
      const hitsA = a.deps.responseCache!.stats.hits;
      expect((await a.http.get(LIST)).text, 'the entry B stored is shared').to.equal(first.text);
      expect(a.deps.responseCache!.stats.hits).to.equal(hitsA + 1);

      const checks: [() => Promise<unknown>, (n: number, city: string) => boolean][] = [
        [() => a.http.post('/api/fee-type', { feeType: 'Redis fee 2', instituteId }), (n) => n === 2],
        [() => a.http.patch(`/api/institute/${instituteId}`, { city: 'Basel' }), (n) => n === 0],
        [() => a.http.patch(`/api/institute/${instituteId}`, { city: 'Bern' }), (n) => n === 2],
      ];
      for (const [write, seen] of checks) {
        await write();
        const t0 = Date.now();
        let ok = false;
        while (!ok && Date.now() - t0 < 1000) {
          const r = await onB.get(LIST);
          ok = seen(r.body.records.length, r.body.records[0]?.institute?.city);
          if (!ok) await new Promise((res) => setTimeout(res, 20));
        }
        expect(ok, 'seen on the other instance within 1 s').to.equal(true);
        expect(Date.now() - t0).to.be.lessThan(1000);
      }
    });
  });
}
