/**
 * CACHE=redis: answers and generations shared by every node on REDIS_URL (DESIGN-NOTES: Response cache).
 *
 * Generation counters, not pub/sub: the generations live in one Redis hash; a write HINCRBYs the
 * models it touched once it has committed, before its answer goes out; a read fetches the generations
 * it depends on and the entry in ONE round trip (a pipeline of HMGET + GET) and serves the entry only
 * when the generations stored with it are the ones it just read. A write is therefore visible to the
 * next read on every node at once (not just within a second), and no message can be lost: there is no
 * subscription to drop. Entries expire after CACHE_TTL (PX); the answers of the namespace (every node)
 * hold at most CACHE_MAX_BYTES, the oldest evicted first by one Lua script per store (redis-budget.ts),
 * not by Redis's maxmemory policy (the same Redis holds rate-limit counters and revocations); an answer
 * larger than CACHE_MAX_ENTRY_BYTES is not stored. A read does not touch that bookkeeping.
 *
 * While Redis cannot be reached a read is computed as with CACHE=off (and not stored) and a write's
 * bump is lost; so when the connection is back the node bumps the ALL generation, dropping every entry.
 * Until then another node may serve an answer this node's writes changed: the outage is logged.
 */
import type { Redis } from 'ioredis';
import { redisClient } from './lazy-redis';
import { ENTRY_OVERHEAD_BYTES } from './memory-store';
import { RedisBudget } from './redis-budget';
import type { Logger } from 'pino';
import { ALL, type CacheStore, type CachedAnswer, type Lookup, sameGens } from './store';

/** A Redis command not answered in this time counts as a failure (the read runs uncached). */
export const CACHE_REDIS_TIMEOUT_MS = 300;

export class RedisStore implements CacheStore {
  readonly kind = 'redis' as const;
  private readonly redis: Redis;
  private readonly genKey: string;
  private readonly prefix: string;
  private readonly budget: RedisBudget;
  private lostBumps = false;

  constructor(
    url: string,
    namespace: string,
    private readonly limits: { readonly ttlMs: number; readonly maxEntryBytes: number; readonly maxBytes: number },
    private readonly log: Pick<Logger, 'warn' | 'info'>,
  ) {
    this.redis = redisClient(url, { enableOfflineQueue: false, commandTimeout: CACHE_REDIS_TIMEOUT_MS, maxRetriesPerRequest: 1 });
    this.genKey = `ris:${namespace}:cache:gen`;
    this.prefix = `ris:${namespace}:cache:e:`;
    this.budget = new RedisBudget(this.redis, { prefix: `ris:${namespace}:cache:` }, { ttlMs: limits.ttlMs, maxBytes: limits.maxBytes, overheadBytes: ENTRY_OVERHEAD_BYTES });
    this.redis.on('error', (err) => this.failed(err));
    this.redis.on('ready', () => {
      if (!this.lostBumps) return;
      this.redis
        .hincrby(this.genKey, ALL, 1)
        .then(() => {
          this.lostBumps = false;
          this.log.info('response cache: Redis is back; every cached answer dropped');
        })
        .catch((err: unknown) => this.failed(err));
    });
  }

  private failed(err: unknown): void {
    if (!this.lostBumps) this.log.warn({ err }, 'response cache: Redis unavailable; reads run uncached, writes cannot purge other nodes until it is back');
    this.lostBumps = true;
  }

  async lookup(key: string, models: readonly string[]): Promise<Lookup> {
    if (this.redis.status !== 'ready') return { gens: [], hit: null, storable: false };
    try {
      const res = await this.redis.pipeline().hmget(this.genKey, ...models).getBuffer(this.prefix + key).exec();
      if (!res || res[0][0] || res[1][0]) throw res?.[0][0] ?? res?.[1][0] ?? new Error('no answer');
      const gens = (res[0][1] as (string | null)[]).map((g) => g ?? '0');
      const raw = res[1][1] as Buffer | null;
      return { gens, hit: raw ? decode(raw, gens) : null };
    } catch (err) {
      this.failed(err);
      return { gens: [], hit: null, storable: false };
    }
  }

  async store(key: string, _models: readonly string[], gens: readonly string[], answer: CachedAnswer): Promise<void> {
    if (answer.body.length > this.limits.maxEntryBytes || this.redis.status !== 'ready') return;
    try {
      await this.budget.store(key, encode(gens, answer));
    } catch (err) {
      this.failed(err);
    }
  }

  /** The namespace's answers and their bytes as counted against CACHE_MAX_BYTES. */
  usage(): Promise<{ entries: number; bytes: number }> {
    return this.budget.usage();
  }

  async bump(models: Iterable<string>): Promise<void> {
    const list = [...models];
    if (list.length === 0) return;
    try {
      const p = this.redis.multi();
      for (const m of list) p.hincrby(this.genKey, m, 1);
      await p.exec();
    } catch (err) {
      this.failed(err);
    }
  }

  async close(): Promise<void> {
    this.redis.disconnect();
  }
}

/** `<gens JSON>\n<etag>\n<body>`. */
function encode(gens: readonly string[], a: CachedAnswer): Buffer {
  return Buffer.concat([Buffer.from(`${JSON.stringify(gens)}\n${a.etag}\n`), a.body]);
}

function decode(raw: Buffer, gens: readonly string[]): CachedAnswer | null {
  const nl1 = raw.indexOf(10);
  const nl2 = nl1 < 0 ? -1 : raw.indexOf(10, nl1 + 1);
  if (nl2 < 0) return null;
  let stored: unknown;
  try {
    stored = JSON.parse(raw.subarray(0, nl1).toString());
  } catch {
    return null;
  }
  if (!Array.isArray(stored) || !sameGens(stored as string[], gens)) return null;
  return { etag: raw.subarray(nl1 + 1, nl2).toString(), body: raw.subarray(nl2 + 1) };
}
