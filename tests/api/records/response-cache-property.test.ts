/**
 * Issue 17: the response cache never changes an answer. Two services on ONE database, one with
 * CACHE=memory and one with CACHE=off; random interleavings (fast-check) of writes through the cached
 * service (create, update, relation changes, delete, recover, a role's permissions changed, an
 * institute's city changed under a relation filter, a populated record changed) and reads by two
 * callers (admin; a user whose role is changed) on lists, relation filters, dotted sorts, populate
 * (both directions), grouped lists, archived records and findOne: every read answers the same status
 * and the same bytes on both services, and the cached service really answers from its cache.
 * Both databases, over HTTP.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { DIALECTS } from '../../helpers/dialects';
import { client, type Client, type Reply } from '../../helpers/http';
import { makeRole } from '../../helpers/roles';
import { createTestDatabase, type TestDatabase } from '../../helpers/test-db';
import { startTestApp, type TestApp } from '../../helpers/test-app';

const CITIES = ['Bern', 'Basel', 'Genf'];
const READS = [
  () => '/api/fee-type?sort[0]=id&limit=5&populate[0]=institute',
  () => '/api/fee-type?filters[institute][city][$eq]=Bern&sort[0]=-latePaymentFees&limit=5',
  () => '/api/fee-type?filters[partPaymentAllowed][$eq]=true&filters[latePaymentFees][$gt]=50&sort[0]=-latePaymentFees&limit=10&populate[0]=institute',
  // the same query, parameters in another order: the same canonical key
  () => '/api/fee-type?populate[0]=institute&limit=10&sort[0]=-latePaymentFees&filters[latePaymentFees][$gt]=50&filters[partPaymentAllowed][$eq]=true',
  () => '/api/fee-type?sort[0]=institute.name&sort[1]=id&limit=20',
  () => '/api/fee-type?showSoftDeleted=inclusive&sort[0]=id&limit=50',
  () => '/api/fee-type?groupBy[0]=latePaymentFeesType&aggregates[0]=latePaymentFees:sum&populateGroup=true',
  () => '/api/institute?sort[0]=id&populate[0]=feeTypes&limit=20',
  () => '/api/institute?filters[feeTypes][partPaymentAllowed][$eq]=true&sort[0]=id',
] as const;

type Op =
  | { kind: 'read'; who: 0 | 1; path: number; id: number }
  | { kind: 'createFee'; inst: number; fees: number; part: boolean }
  | { kind: 'updateFee'; fee: number; fees: number; part: boolean }
  | { kind: 'moveFee'; fee: number; inst: number }
  | { kind: 'deleteFee'; fee: number }
  | { kind: 'recoverFee'; fee: number }
  | { kind: 'createInstitute'; city: number }
  | { kind: 'moveInstitute'; inst: number; city: number }
  | { kind: 'toggleInstituteFind' };

const idx = fc.nat({ max: 1000 });
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 8, arbitrary: fc.record({ kind: fc.constant('read' as const), who: fc.constantFrom(0 as const, 1 as const), path: fc.nat({ max: READS.length }), id: idx }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('createFee' as const), inst: idx, fees: fc.integer({ min: 0, max: 100 }), part: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('updateFee' as const), fee: idx, fees: fc.integer({ min: 0, max: 100 }), part: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('moveFee' as const), fee: idx, inst: idx }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('deleteFee' as const), fee: idx }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('recoverFee' as const), fee: idx }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('createInstitute' as const), city: fc.nat({ max: CITIES.length - 1 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('moveInstitute' as const), inst: idx, city: fc.nat({ max: CITIES.length - 1 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('toggleInstituteFind' as const) }) },
);

/** The role cache of the Authorizer (identity plugin) lives 500 ms in each service: wait it out after a role change. */
const ROLE_CACHE_MS = 600;
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

// memory: one cached service takes the writes and the reads. redis: the writes go through a SECOND
// cached instance, so every read on the first depends on purges that crossed Redis.
for (const [dialect, mode] of DIALECTS.flatMap((d) => (['memory', 'redis'] as const).map((m) => [d, m] as const))) {
  describe(`Response cache: the same answers as without it, random interleavings [${dialect}, CACHE=${mode}]`, function () {
    this.timeout(600_000);
    let database: TestDatabase;
    let cached: TestApp;
    let plain: TestApp;
    let writer: TestApp;
    const readers: [Client, Client][] = [];
    let roleId = 0;
    let granted = true;
    const perms = new Map<string, number>();
    const fees: number[] = [];
    const institutes: number[] = [];
    let serial = 0;

    before(async () => {
      database = await createTestDatabase(dialect);
      const env: Record<string, string> = mode === 'memory' ? { CACHE: 'memory' } : { CACHE: 'redis', REDIS_URL };
      cached = await startTestApp(dialect, { database, env });
      plain = await startTestApp(dialect, { database, env: { CACHE: 'off' } });
      writer = mode === 'memory' ? cached : await startTestApp(dialect, { database, env });
      const found = await cached.http.get('/api/permission?filters[action][$in][0]=fee-type.find&filters[action][$in][1]=fee-type.findOne&filters[action][$in][2]=institute.find&limit=10');
      for (const p of found.body.records as { id: number; action: string }[]) perms.set(p.action, p.id);
      roleId = await makeRole(cached, 'cache-prop-reader', ['fee-type.find', 'fee-type.findOne', 'institute.find']);
      const user = await cached.createUser({ roles: ['cache-prop-reader'] });
      readers.push([cached.http, client(plain.url, plain.admin!.accessToken)]);
      readers.push([user.http, client(plain.url, user.accessToken)]);
      for (const city of CITIES) {
        const r = await cached.http.post('/api/institute', { name: `Seed ${city}`, code: `SEED-${city}`, city });
        expect(r.status, r.text).to.equal(200);
        institutes.push(r.body.data.id);
      }
    });
    after(async () => {
      if (writer && writer !== cached) await writer.close();
      await cached?.close();
      await plain?.close();
      await database?.drop();
    });

    const pick = (list: readonly number[], i: number): number => (list.length ? list[i % list.length] : 999_999);
    const expectOk = (r: Reply, what: string): void => {
      expect([200, 400, 404, 409, 422], `${what}: ${r.text}`).to.include(r.status);
    };

    async function run(op: Op): Promise<void> {
      const admin = writer.http;
      switch (op.kind) {
        case 'read': {
          const [c, p] = readers[op.who];
          const path = op.path === READS.length ? `/api/fee-type/${pick(fees, op.id)}?populate[0]=institute` : READS[op.path]();
          const first = await c.get(path);
          const again = await c.get(path);
          const reference = await p.get(path);
          expect(first.status, `${path}: ${first.text}`).to.equal(reference.status);
          expect(first.text, path).to.equal(reference.text);
          expect(again.text, `${path} (again)`).to.equal(reference.text);
          if (reference.status === 200) expect(first.headers.get('etag')).to.equal(reference.headers.get('etag'));
          return;
        }
        case 'createFee': {
          const r = await admin.post('/api/fee-type', { feeType: `Fee ${++serial}`, instituteId: pick(institutes, op.inst), latePaymentFees: op.fees, partPaymentAllowed: op.part, latePaymentFeesType: op.fees % 2 ? 'fixed' : 'percentage' });
          expect(r.status, r.text).to.equal(200);
          fees.push(r.body.data.id);
          return;
        }
        case 'updateFee':
          return expectOk(await admin.patch(`/api/fee-type/${pick(fees, op.fee)}`, { latePaymentFees: op.fees, partPaymentAllowed: op.part }), 'update');
        case 'moveFee':
          return expectOk(await admin.patch(`/api/fee-type/${pick(fees, op.fee)}`, { instituteId: pick(institutes, op.inst) }), 'move');
        case 'deleteFee':
          return expectOk(await admin.del(`/api/fee-type/${pick(fees, op.fee)}`), 'delete');
        case 'recoverFee':
          return expectOk(await admin.post(`/api/fee-type/recover/${pick(fees, op.fee)}`), 'recover');
        case 'createInstitute': {
          const r = await admin.post('/api/institute', { name: `Inst ${++serial}`, code: `I${serial}`, city: CITIES[op.city] });
          expect(r.status, r.text).to.equal(200);
          institutes.push(r.body.data.id);
          return;
        }
        case 'moveInstitute':
          return expectOk(await admin.patch(`/api/institute/${pick(institutes, op.inst)}`, { city: CITIES[op.city] }), 'city');
        case 'toggleInstituteFind': {
          granted = !granted;
          const actions = ['fee-type.find', 'fee-type.findOne', ...(granted ? ['institute.find'] : [])];
          const r = await admin.patch(`/api/role/${roleId}`, { permissions: actions.map((a) => perms.get(a)) });
          expect(r.status, r.text).to.equal(200);
          await sleep(ROLE_CACHE_MS);
          return;
        }
      }
    }

    it('every read answers as the cache-off service does (status, bytes, ETag)', async () => {
      const hitsBefore = cached.deps.responseCache!.stats.hits;
      await fc.assert(
        fc.asyncProperty(fc.array(opArb, { minLength: 5, maxLength: 30 }), async (ops) => {
          for (const op of ops) await run(op);
        }),
        { numRuns: 30, seed: Number(process.env.CACHE_PROPERTY_SEED ?? Date.now() % 2 ** 31), verbose: 1 },
      );
      expect(cached.deps.responseCache!.stats.hits - hitsBefore, 'the cached service answered from its cache').to.be.greaterThan(50);
      expect(plain.deps.responseCache).to.equal(null);
    });
  });
}
