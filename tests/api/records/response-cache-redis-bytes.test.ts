/**
 * Issue 17: CACHE_MAX_BYTES bounds CACHE=redis too. The same Redis holds rate-limit counters and token
 * revocations that must never be evicted, so the response cache cannot lean on a maxmemory policy: the
 * answers of one deployment's namespace (all nodes together) hold at most CACHE_MAX_BYTES (stored value
 * bytes + 512 per entry), the oldest going first.
 * - The store itself: at the limit every entry is kept; one past it the oldest goes and the newer ones
 *   still serve; expired entries leave the total; a re-stored key counts once; Redis down: no error.
 * - Over HTTP on three databases: two nodes on one database and one Redis, each reading distinct query
 *   strings (one user's distinct keys): the namespace's stored bytes never pass the budget, the oldest
 *   answers are gone and the newest still answer from the cache.
 */
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import type { Redis } from 'ioredis';
import { DIALECTS } from '../../helpers/dialects';
import { client } from '../../helpers/http';
import { createTestDatabase, type TestDatabase } from '../../helpers/test-db';
import { startTestApp, type TestApp } from '../../helpers/test-app';
import { redisClient } from '../../../core/cache/lazy-redis';
import { ENTRY_OVERHEAD_BYTES } from '../../../core/cache/memory-store';
import { RedisStore } from '../../../core/cache/redis-store';
import { COMMIT_SETTLE_MS } from '../../../core/cache/write-tracker';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const settle = (): Promise<void> => new Promise((r) => setTimeout(r, COMMIT_SETTLE_MS + 100));
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const quiet = { warn: () => undefined, info: () => undefined };

/** What the namespace's answers hold in Redis: entries and their bytes as CACHE_MAX_BYTES counts them (value + 512 each). */
async function stored(redis: Redis, namespace: string): Promise<{ entries: number; bytes: number }> {
  let entries = 0;
  let bytes = 0;
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `ris:${namespace}:cache:e:*`, 'COUNT', 1000);
    cursor = next;
    for (const k of keys) {
      const len = await redis.strlen(k);
      if (len === 0) continue; // expired between SCAN and STRLEN
      entries++;
      bytes += len + ENTRY_OVERHEAD_BYTES;
    }
  } while (cursor !== '0');
  return { entries, bytes };
}

async function dropNamespace(redis: Redis, namespace: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `ris:${namespace}:*`, 'COUNT', 1000);
    cursor = next;
    if (keys.length > 0) await redis.del(...keys);
  } while (cursor !== '0');
}

describe('Response cache, CACHE=redis: CACHE_MAX_BYTES, the store', () => {
  let redis: Redis;
  const namespaces: string[] = [];
  const answer = (n: number) => ({ etag: '"t"', body: Buffer.alloc(n, 97) });
  const fresh = (): string => {
    const ns = `test-bytes-${randomBytes(6).toString('hex')}`;
    namespaces.push(ns);
    return ns;
  };
  /** A store; `limits` is a variable so the test also compiles against a store that ignores maxBytes. */
  const storeOf = (ns: string, maxBytes: number, ttlMs = 60_000): RedisStore => {
    const limits = { ttlMs, maxEntryBytes: 10_000, maxBytes };
    return new RedisStore(REDIS_URL, ns, limits, quiet);
  };
  const ready = async (s: RedisStore): Promise<void> => {
    for (let i = 0; i < 100 && (await s.lookup('probe', ['m'])).storable === false; i++) await sleep(10);
  };
  /** Bytes one stored answer of `n` body bytes counts: value (`["0"]\n"t"\n` + body) + 512. */
  const per = (n: number): number => Buffer.byteLength('["0"]\n"t"\n') + n + ENTRY_OVERHEAD_BYTES;

  before(() => {
    redis = redisClient(REDIS_URL, { maxRetriesPerRequest: 1 });
  });
  after(async () => {
    for (const ns of namespaces) await dropNamespace(redis, ns);
    redis.disconnect();
  });

  it('at the limit every answer is kept; one past it the oldest goes and the newer ones still serve', async () => {
    const ns = fresh();
    const s = storeOf(ns, 3 * per(1000));
    try {
      await ready(s);
      for (const k of ['a', 'b', 'c']) await s.store(k, ['m'], ['0'], answer(1000));
      expect(await stored(redis, ns)).to.deep.equal({ entries: 3, bytes: 3 * per(1000) });
      for (const k of ['a', 'b', 'c']) expect((await s.lookup(k, ['m'])).hit, `${k} at the limit`).to.not.equal(null);
      await s.store('d', ['m'], ['0'], answer(1000));
      expect(await stored(redis, ns)).to.deep.equal({ entries: 3, bytes: 3 * per(1000) });
      expect((await s.lookup('a', ['m'])).hit, 'the oldest went').to.equal(null);
      for (const k of ['b', 'c', 'd']) expect((await s.lookup(k, ['m'])).hit?.body.length, `${k} still serves`).to.equal(1000);
      // one bigger answer makes room for itself: as many of the oldest go as it needs
      await s.store('e', ['m'], ['0'], answer(2500));
      const after = await stored(redis, ns);
      expect(after.bytes).to.be.at.most(3 * per(1000));
      expect((await s.lookup('b', ['m'])).hit).to.equal(null);
      expect((await s.lookup('c', ['m'])).hit).to.equal(null);
      expect((await s.lookup('e', ['m'])).hit?.body.length).to.equal(2500);
    } finally {
      await s.close();
    }
  });

  it('many distinct keys from two nodes: the namespace never holds more than the budget', async () => {
    const ns = fresh();
    const budget = 20 * per(1000);
    const a = storeOf(ns, budget);
    const b = storeOf(ns, budget);
    try {
      await ready(a);
      await ready(b);
      for (let i = 0; i < 100; i++) {
        await Promise.all([a.store(`a${i}`, ['m'], ['0'], answer(500 + (i % 7) * 100)), b.store(`b${i}`, ['m'], ['0'], answer(1000 - (i % 5) * 100))]);
        if (i % 10 === 9) expect((await stored(redis, ns)).bytes, `after ${i + 1} rounds`).to.be.at.most(budget);
      }
      expect((await a.lookup('b99', ['m'])).hit, 'the newest, stored by the other node').to.not.equal(null);
      expect((await b.lookup('a0', ['m'])).hit, 'the oldest').to.equal(null);
      expect(await a.usage(), 'the bookkeeping counts what Redis holds').to.deep.equal(await stored(redis, ns));
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('a key stored again counts once; an answer larger than the budget is not stored', async () => {
    const ns = fresh();
    const s = storeOf(ns, 2 * per(1000));
    try {
      await ready(s);
      for (let i = 0; i < 5; i++) await s.store('same', ['m'], ['0'], answer(1000));
      await s.store('other', ['m'], ['0'], answer(1000));
      expect(await stored(redis, ns)).to.deep.equal({ entries: 2, bytes: 2 * per(1000) });
      expect((await s.lookup('same', ['m'])).hit).to.not.equal(null);
      const tooBig = storeOf(ns, per(1000) - 1);
      try {
        await ready(tooBig);
        await tooBig.store('big', ['m'], ['0'], answer(1000));
        expect((await tooBig.lookup('big', ['m'])).hit).to.equal(null);
      } finally {
        await tooBig.close();
      }
    } finally {
      await s.close();
    }
  });

  it('answers expired by CACHE_TTL leave the total: after they expire, a full budget of new ones is kept', async () => {
    const ns = fresh();
    const s = storeOf(ns, 3 * per(1000), 200);
    try {
      await ready(s);
      for (const k of ['a', 'b', 'c']) await s.store(k, ['m'], ['0'], answer(1000));
      await sleep(300);
      expect(await stored(redis, ns)).to.deep.equal({ entries: 0, bytes: 0 });
      await s.store('d', ['m'], ['0'], answer(1000));
      expect(await s.usage()).to.deep.equal({ entries: 1, bytes: per(1000) });
    } finally {
      await s.close();
    }
  });

  it('Redis unreachable: a read is not storable, a store is skipped, neither throws', async () => {
    const ns = fresh();
    const limits = { ttlMs: 60_000, maxEntryBytes: 10_000, maxBytes: 1 << 20 };
    const s = new RedisStore('redis://127.0.0.1:1', ns, limits, quiet);
    try {
      expect((await s.lookup('a', ['m'])).storable).to.equal(false);
      await s.store('a', ['m'], ['0'], answer(10));
      expect(await stored(redis, ns)).to.deep.equal({ entries: 0, bytes: 0 });
    } finally {
      await s.close();
    }
  });
});

for (const dialect of DIALECTS) {
  describe(`Response cache, CACHE=redis: CACHE_MAX_BYTES over HTTP, two nodes [${dialect}]`, () => {
    let database: TestDatabase;
    let a: TestApp;
    let b: TestApp;
    let redis: Redis;
    let namespace: string;
    let budget: number;
    // One record with a long name; every path below answers the same bytes under a different key.
    let instituteId: number;
    const path = (i: number): string => `/api/institute?filters[code][$eq]=BYTES&filters[id][$ne]=${100000 + i}`;

    before(async () => {
      redis = redisClient(REDIS_URL, { maxRetriesPerRequest: 1 });
      database = await createTestDatabase(dialect);
      // A first node measures what one answer costs; then two nodes share a budget of exactly three.
      const probe = await startTestApp(dialect, { database, env: { CACHE: 'redis', REDIS_URL } });
      try {
        namespace = probe.deps.config.redisNamespace;
        const inst = await probe.http.post('/api/institute', { name: 'B'.repeat(250), code: 'BYTES', city: 'Bern' });
        instituteId = inst.body.data.id;
        await settle();
        await dropNamespace(redis, namespace);
        expect((await probe.http.get(path(0))).status).to.equal(200);
        const one = await stored(redis, namespace);
        expect(one.entries).to.equal(1);
        budget = 3 * one.bytes;
      } finally {
        await probe.close();
      }
      await dropNamespace(redis, namespace);
      const env = { CACHE: 'redis', REDIS_URL, CACHE_MAX_BYTES: String(budget) };
      a = await startTestApp(dialect, { database, env });
      b = await startTestApp(dialect, { database, env });
      await settle();
    });
    after(async () => {
      await a?.close();
      await b?.close();
      await database?.drop();
      if (namespace) await dropNamespace(redis, namespace);
      redis?.disconnect();
    });

    it('at the limit three answers are kept; one past it the oldest goes, the newer ones are hits on both nodes', async () => {
      expect(instituteId).to.be.a('number');
      const onB = client(b.url, b.admin!.accessToken);
      const hits = (): number => a.deps.responseCache!.stats.hits + b.deps.responseCache!.stats.hits;
      const first = await a.http.get(path(1));
      expect(first.status).to.equal(200);
      expect((await onB.get(path(2))).text).to.equal(first.text);
      expect((await a.http.get(path(3))).text).to.equal(first.text);
      expect(await stored(redis, namespace)).to.deep.equal({ entries: 3, bytes: budget });
      let h = hits();
      for (const i of [3, 2, 1]) expect((await onB.get(path(i))).text).to.equal(first.text);
      expect(hits() - h, 'at the limit all three are hits').to.equal(3);

      expect((await onB.get(path(4))).status).to.equal(200);
      expect(await stored(redis, namespace)).to.deep.equal({ entries: 3, bytes: budget });
      h = hits();
      for (const i of [4, 3, 2]) expect((await a.http.get(path(i))).text).to.equal(first.text);
      expect(hits() - h, 'the three newest are hits').to.equal(3);
      h = hits();
      expect((await a.http.get(path(1))).text).to.equal(first.text);
      expect(hits() - h, 'the oldest went').to.equal(0);
    });

    it('one user reading many distinct query strings cannot make the namespace hold more than CACHE_MAX_BYTES', async () => {
      for (let i = 10; i < 60; i++) {
        const r = await (i % 2 ? a.http : client(b.url, b.admin!.accessToken)).get(path(i));
        expect(r.status).to.equal(200);
      }
      const now = await stored(redis, namespace);
      expect(now.bytes).to.be.at.most(budget);
      expect(now.entries).to.equal(3);
      const h = a.deps.responseCache!.stats.hits;
      await a.http.get(path(59));
      expect(a.deps.responseCache!.stats.hits, 'the newest still serves').to.equal(h + 1);
    });
  });
}
