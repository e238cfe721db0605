/** Issue 17: the response cache's pure parts: canonical keys, the statement → models map, the memory store's bounds, settings. */
import { expect } from 'chai';
import { loadConfig } from '../../../config';
import { canonicalQuery } from '../../../core/cache/key';
import { entryTtlMs, KEY_MEMO_MAX, KEY_MEMO_MAX_BYTES, KEY_MEMO_MAX_RAW, ResponseCache } from '../../../core/cache/response-cache';
import { ENTRY_OVERHEAD_BYTES, MemoryStore } from '../../../core/cache/memory-store';
import { ALL } from '../../../core/cache/store';
import { keysOfStatement, MEDIA, type TableMap, tableMap, WriteTracker } from '../../../core/cache/write-tracker';
import { join } from 'node:path';
import knex from 'knex';
import { findRootDir } from '../../../config';
import { loadRegistry } from '../../../core/registry';
import { FIND_PARAMS, parseListQuery } from '../../../core/query/parse';
import qs from 'qs';

const parsed = (s: string) => parseListQuery(qs.parse(s), FIND_PARAMS);

describe('response cache: canonical query', () => {
  it('ignores parameter order and $and order, keeps sort and populate order', () => {
    const a = parsed('filters[a][$eq]=1&filters[b][$gt]=2&sort[0]=a&sort[1]=b&limit=5');
    const b = parsed('limit=5&sort[0]=a&sort[1]=b&filters[b][$gt]=2&filters[a][$eq]=1');
    expect(canonicalQuery(a)).to.equal(canonicalQuery(b));
    expect(canonicalQuery(parsed('sort[0]=b&sort[1]=a'))).to.not.equal(canonicalQuery(parsed('sort[0]=a&sort[1]=b')));
    expect(canonicalQuery(parsed('populate[0]=x&populate[1]=y'))).to.not.equal(canonicalQuery(parsed('populate[0]=y&populate[1]=x')));
    expect(canonicalQuery(parsed('filters[a][$eq]=1'))).to.not.equal(canonicalQuery(parsed('filters[a][$eq]=2')));
    expect(canonicalQuery(parsed('showSoftDeleted=inclusive'))).to.not.equal(canonicalQuery(parsed('')));
  });
});

describe('response cache: statements → generation keys', () => {
  const map: TableMap = {
    writes: new Map([
      ['fee_types', ['fee-type']],
      ['institutes', ['institute']],
      ['roles_permissions', ['role', 'permission']],
      ['media_files', [MEDIA]],
    ]),
    deletes: new Map([['institutes', ['fee-type']]]),
  };
  const cases: [string, readonly string[]][] = [
    ['select * from "fee_types"', []],
    ['BEGIN;', []],
    ['insert into "fee_types" ("a") values (?)', ['fee-type']],
    ['insert into `fee_types` (`a`) values (?)', ['fee-type']],
    ['update "public"."institutes" set "a" = ?', ['institute']],
    ['delete from "institutes" where "id" = ?', ['institute', 'fee-type']],
    ['delete from `roles_permissions` where 1', ['role', 'permission']],
    ['insert into "media_files" ("a") values (?)', [MEDIA]],
    ['insert into "knex_migrations" ("name") values (?)', []],
    ['alter table "fee_types" add column "x" integer', [ALL]],
    ['with x as (delete from "fee_types" returning *) select * from x', [ALL]],
  ];
  for (const [sql, keys] of cases) it(sql, () => expect(keysOfStatement(sql, map)).to.deep.equal(keys));
});

describe('response cache: the tables of a registry → generation keys', () => {
  // tests/fixtures/cache-chain-models: room → campus ON DELETE CASCADE, desk → room ON DELETE SET NULL.
  const root = findRootDir(__dirname);
  const registry = loadRegistry([{ dir: join(root, 'tests', 'fixtures', 'cache-chain-models'), plugin: null }], root);
  const map = tableMap(registry);
  const deleteFrom = (model: string): string[] => [...keysOfStatement(`delete from "${registry.get(model)!.table}" where "id" = ?`, map)].sort();
  const cases: [string, string[]][] = [
    ['campus', ['campus', 'desk', 'room']], // its rooms go (cascade), and with them their desks' room (set null)
    ['room', ['campus', 'desk', 'room']],
    ['desk', ['desk', 'room']],
  ];
  for (const [model, keys] of cases) it(`a DELETE on ${model}'s table touches ${keys.join(', ')}`, () => expect(deleteFrom(model)).to.deep.equal(keys));
  it('an UPDATE touches the model alone', () => {
    expect(keysOfStatement(`update "${registry.get('campus')!.table}" set "city" = ?`, map)).to.deep.equal(['campus']);
  });
});

describe('response cache: memory store bounds', () => {
  const answer = (n: number) => ({ etag: '"t"', body: Buffer.alloc(n, 97) });

  it('CACHE_MAX_BYTES: entries up to the bound are kept; past it the least recently used go, without error', async () => {
    const per = 100 + ENTRY_OVERHEAD_BYTES;
    const s = new MemoryStore({ maxEntries: 100, maxBytes: 3 * per, maxEntryBytes: 1000, ttlMs: 60_000 });
    for (const k of ['a', 'b', 'c']) await s.store(k, ['m'], ['0'], answer(100));
    expect(s.size).to.deep.equal({ entries: 3, bytes: 3 * per });
    expect((await s.lookup('a', ['m'])).hit).to.not.equal(null); // a is now the most recent
    await s.store('d', ['m'], ['0'], answer(100));
    expect(s.size).to.deep.equal({ entries: 3, bytes: 3 * per });
    expect((await s.lookup('b', ['m'])).hit).to.equal(null);
    expect((await s.lookup('a', ['m'])).hit).to.not.equal(null);
  });

  it('CACHE_MAX_ENTRY_BYTES: an answer of that size is kept, one byte more is not', async () => {
    const s = new MemoryStore({ maxEntries: 10, maxBytes: 1 << 20, maxEntryBytes: 100, ttlMs: 60_000 });
    await s.store('ok', [], [], answer(100));
    await s.store('big', [], [], answer(101));
    expect((await s.lookup('ok', [])).hit).to.not.equal(null);
    expect((await s.lookup('big', [])).hit).to.equal(null);
  });

  it('CACHE_TTL: an entry expires; a bump of one of its models drops it', async () => {
    let now = 0;
    const s = new MemoryStore({ maxEntries: 10, maxBytes: 1 << 20, maxEntryBytes: 1000, ttlMs: 1000 }, () => now);
    const { gens } = await s.lookup('k', ['m', 'n']);
    await s.store('k', ['m', 'n'], gens, answer(1));
    now = 999;
    expect((await s.lookup('k', ['m', 'n'])).hit).to.not.equal(null);
    now = 1000;
    expect((await s.lookup('k', ['m', 'n'])).hit).to.equal(null);
    await s.store('k', ['m', 'n'], (await s.lookup('k', ['m', 'n'])).gens, answer(1));
    await s.bump(['n']);
    expect((await s.lookup('k', ['m', 'n'])).hit).to.equal(null);
    expect(s.size.entries).to.equal(0);
  });
});

describe('response cache: settings', () => {
  const base = { IAM_JWT_SECRET: 'x'.repeat(32) };
  it('CACHE defaults to off; memory and redis (with REDIS_URL) are accepted; limits read', () => {
    expect(loadConfig(base).cache.mode).to.equal('off');
    const c = loadConfig({ ...base, CACHE: 'memory', CACHE_TTL: '30s', CACHE_MAX_ENTRIES: '7', CACHE_MAX_BYTES: '9000', CACHE_MAX_ENTRY_BYTES: '800' }).cache;
    expect(c).to.deep.equal({ mode: 'memory', ttlMs: 30_000, maxEntries: 7, maxBytes: 9000, maxEntryBytes: 800 });
    expect(loadConfig({ ...base, CACHE: 'redis', REDIS_URL: 'redis://127.0.0.1:6379' }).cache.mode).to.equal('redis');
  });
  it('a bad mode, redis without REDIS_URL, a zero limit: one clear error naming the setting', () => {
    expect(() => loadConfig({ ...base, CACHE: 'disk' })).to.throw(/CACHE: "disk" is not a cache mode/);
    expect(() => loadConfig({ ...base, CACHE: 'redis' })).to.throw(/CACHE: redis needs REDIS_URL/);
    expect(() => loadConfig({ ...base, CACHE: 'memory', CACHE_MAX_ENTRIES: '0' })).to.throw(/CACHE_MAX_ENTRIES/);
    expect(() => loadConfig({ ...base, CACHE: 'memory', CACHE_TTL: '0' })).to.throw(/CACHE_TTL/);
  });
});

describe('response cache: the write tracker (SQLite in memory)', () => {
  const map: TableMap = { writes: new Map([['things', ['thing']]]), deletes: new Map() };
  const setup = async () => {
    const db = knex({ client: 'sqlite3', connection: { filename: ':memory:' }, useNullAsDefault: true });
    await db.schema.createTable('things', (t) => t.increments('id'));
    const bumps: string[][] = [];
    const tracker = new WriteTracker(db, map, async (keys) => void bumps.push([...keys]), () => undefined);
    return { db, bumps, tracker };
  };

  it('inside a request: collected, bumped once when the request has finished, before it returns', async () => {
    const { db, bumps, tracker } = await setup();
    await tracker.around(async () => {
      await db('things').insert({});
      await db.transaction(async (trx) => trx('things').insert({}));
      await db('things').select();
      expect(bumps).to.deep.equal([]);
    });
    expect(bumps).to.deep.equal([['thing']]);
    await tracker.close();
    await db.destroy();
  });

  it('outside a request, or after the request finished (fire and forget): bumped at once', async () => {
    const { db, bumps, tracker } = await setup();
    await db('things').insert({});
    expect(bumps.length).to.be.greaterThan(0);
    bumps.length = 0;
    let late: Promise<unknown> = Promise.resolve();
    await tracker.around(async () => {
      late = new Promise((r) => setTimeout(r, 10)).then(() => db('things').insert({}));
    });
    await late;
    expect(bumps[0]).to.deep.equal(['thing']);
    await tracker.close();
    await db.destroy();
  });

  it('a transaction outside a request: the bump delayed past its COMMIT is sent when the tracker closes (a CLI command ending), not lost', async () => {
    const { db, bumps, tracker } = await setup();
    await db.transaction(async (trx) => trx('things').insert({}));
    const sent = bumps.length;
    expect(sent).to.be.greaterThan(0);
    await tracker.close();
    expect(bumps.length, 'the delayed bump, at close').to.equal(sent + 1);
    expect(bumps[sent]).to.deep.equal(['thing']);
    await db.destroy();
  });
});

describe('response cache: entry lifetime with presigned URLs', () => {
  const base = { IAM_JWT_SECRET: 'x'.repeat(32), CACHE: 'memory', CACHE_TTL: '10m' };
  it('CACHE_TTL, except with a private S3 bucket: at most half of S3_SIGNED_URL_TTL', () => {
    expect(entryTtlMs(loadConfig(base))).to.equal(600_000);
    expect(entryTtlMs(loadConfig({ ...base, UPLOADS_DRIVER: 's3', S3_BUCKET: 'b', S3_SIGNED_URL_TTL: '15m' }))).to.equal(450_000);
    expect(entryTtlMs(loadConfig({ ...base, UPLOADS_DRIVER: 's3', S3_BUCKET: 'b', S3_SIGNED_URL_TTL: '30m' }))).to.equal(600_000);
    expect(entryTtlMs(loadConfig({ ...base, UPLOADS_DRIVER: 's3', S3_BUCKET: 'b', S3_PUBLIC_URL: 'https://cdn.example.test' }))).to.equal(600_000);
  });
});

describe('response cache: the raw query string → key memo is bounded by bytes', () => {
  // One user sending many distinct long query strings (up to MAX_QUERY_STRING, 32 KiB each) must not make
  // the memo hold KEY_MEMO_MAX of them (~134 MB): it holds at most KEY_MEMO_MAX_BYTES (2 bytes per character).
  const root = findRootDir(__dirname);
  const registry = loadRegistry([{ dir: join(root, 'tests', 'fixtures', 'cache-chain-models'), plugin: null }], root);
  const setup = () => {
    const db = knex({ client: 'sqlite3', connection: { filename: ':memory:' }, useNullAsDefault: true });
    const store = new MemoryStore({ maxEntries: 10, maxBytes: 1 << 20, maxEntryBytes: 1000, ttlMs: 60_000 });
    const cache = new ResponseCache(store, new WriteTracker(db, tableMap(registry), async () => undefined, () => undefined), registry);
    const memo = (cache as unknown as { keyMemo: Map<string, string> }).keyMemo;
    const memoBytes = (): number => [...memo].reduce((n, [k, v]) => n + 2 * (k.length + v.length), 0);
    const query = parsed('limit=5');
    const read = (raw: string) => cache.answer({ model: registry.get('campus')!, kind: 'find', id: null, query, reads: [], scope: { key: '', models: [] }, raw }, async () => ({ etag: '"e"', body: Buffer.from('[]') }));
    return { db, cache, memo, memoBytes, read };
  };

  it('a raw query string of KEY_MEMO_MAX_RAW characters is remembered, one longer is not', async () => {
    const { db, cache, memo, read } = setup();
    await read('x'.repeat(KEY_MEMO_MAX_RAW));
    expect(memo.size).to.equal(1);
    await read('y'.repeat(KEY_MEMO_MAX_RAW + 1));
    expect(memo.size).to.equal(1);
    // not remembered, still the same key: the second read of it is a hit
    const hits = cache.stats.hits;
    await read('y'.repeat(KEY_MEMO_MAX_RAW + 1));
    expect(cache.stats.hits).to.equal(hits + 1);
    await cache.close();
    await db.destroy();
  });

  it('many distinct long query strings: the memo never holds more than KEY_MEMO_MAX_BYTES', async () => {
    const { db, cache, memo, memoBytes, read } = setup();
    let most = 0;
    for (let i = 0; i < KEY_MEMO_MAX + 10; i++) {
      await read(`${i}&`.padEnd(KEY_MEMO_MAX_RAW, 'q'));
      if (i % 64 === 0) most = Math.max(most, memoBytes());
    }
    most = Math.max(most, memoBytes());
    expect(most).to.be.greaterThan(KEY_MEMO_MAX_BYTES / 2);
    expect(most).to.be.at.most(KEY_MEMO_MAX_BYTES);
    expect(memo.size).to.be.greaterThan(0);
    await cache.close();
    await db.destroy();
  });

  it('short query strings: still up to KEY_MEMO_MAX of them', async () => {
    const { db, cache, memo, read } = setup();
    for (let i = 0; i < KEY_MEMO_MAX; i++) await read(`limit=${i}`);
    expect(memo.size).to.equal(KEY_MEMO_MAX);
    await read('limit=-1');
    expect(memo.size).to.equal(1);
    await cache.close();
    await db.destroy();
  });
});
