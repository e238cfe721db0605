/**
 * CACHE_MAX_BYTES for CACHE=redis: the answers of one namespace (every node of the deployment) hold at
 * most that many bytes (stored value + ENTRY_OVERHEAD_BYTES each), the oldest stored going first. Not
 * Redis's maxmemory: the same Redis holds rate-limit counters and token revocations that must never be
 * evicted, and one user's distinct query strings must not grow it without bound.
 *
 * Bookkeeping, next to the entries `<prefix>e:<key>` (each SET with PX ttl):
 * - `<prefix>order`: ZSET, key → the Redis time (ms) it was stored;
 * - `<prefix>sizes`: HASH, key → bytes it counts;
 * - `<prefix>bytes`: the sum of `sizes`.
 * One Lua script per store, atomic across nodes: drop the key's previous answer; drop answers past
 * their TTL (their entries expired by PX; their bytes leave the total here, and anyway they are the
 * oldest, so the eviction below would reach them first); drop the oldest until the new one fits; SET it.
 * The time is Redis's (TIME), so the nodes' clocks do not matter. The bookkeeping keys expire when no
 * answer was stored for a TTL (every entry has expired by then). Reads do not touch the bookkeeping:
 * a read stays one round trip, and the order is the order of storing (an entry lives at most CACHE_TTL).
 *
 * Entry keys of evicted answers are named inside the script (not in KEYS): fine for a single Redis or a
 * replica set, not for Redis Cluster (the service does not use Cluster).
 */
import type { Redis } from 'ioredis';

/** Answers past their TTL dropped from the bookkeeping per store, at most (the rest on later stores, or by eviction). */
export const EXPIRED_PER_STORE = 1000;

const STORE_LUA = `
if redis.replicate_commands then redis.replicate_commands() end
local order, sizes, total, entry = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local member, value, ttl, max, overhead, prefix = ARGV[1], ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5]), ARGV[6]
local size = string.len(value) + overhead
if size > max then return 0 end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local before = tonumber(redis.call('GET', total) or '0')
local used = before
local function drop(m)
  used = used - tonumber(redis.call('HGET', sizes, m) or '0')
  redis.call('HDEL', sizes, m)
  redis.call('ZREM', order, m)
  redis.call('DEL', prefix .. m)
end
if redis.call('ZSCORE', order, member) then drop(member) end
local expired = redis.call('ZRANGEBYSCORE', order, '-inf', string.format('%.0f', now - ttl), 'LIMIT', 0, ${EXPIRED_PER_STORE})
for _, m in ipairs(expired) do drop(m) end
while used + size > max do
  local oldest = redis.call('ZRANGE', order, 0, 0)
  if #oldest == 0 then used = 0 break end
  drop(oldest[1])
end
redis.call('SET', entry, value, 'PX', ttl)
redis.call('ZADD', order, string.format('%.0f', now), member)
redis.call('HSET', sizes, member, size)
used = used + size
redis.call('INCRBY', total, used - before)
for _, k in ipairs({order, sizes, total}) do
  if redis.call('PTTL', k) < ttl then redis.call('PEXPIRE', k, ttl) end
end
return 1
`;

export interface BudgetKeys {
  /** `ris:<namespace>:cache:`; entries are `<prefix>e:<key>`. */
  readonly prefix: string;
}

export interface BudgetLimits {
  readonly ttlMs: number;
  readonly maxBytes: number;
  readonly overheadBytes: number;
}

type WithStore = Redis & { risCacheStore(...args: (string | Buffer | number)[]): Promise<number> };

/** The budgeted store of one namespace on `redis` (defines the script once per client; EVALSHA after the first call). */
export class RedisBudget {
  private readonly redis: WithStore;
  private readonly order: string;
  private readonly sizes: string;
  private readonly total: string;
  private readonly entries: string;

  constructor(redis: Redis, keys: BudgetKeys, private readonly limits: BudgetLimits) {
    if (!('risCacheStore' in redis)) redis.defineCommand('risCacheStore', { numberOfKeys: 4, lua: STORE_LUA });
    this.redis = redis as WithStore;
    this.order = `${keys.prefix}order`;
    this.sizes = `${keys.prefix}sizes`;
    this.total = `${keys.prefix}bytes`;
    this.entries = `${keys.prefix}e:`;
  }

  /** Bytes `value` counts against CACHE_MAX_BYTES. */
  sizeOf(value: Buffer): number {
    return value.length + this.limits.overheadBytes;
  }

  /** Stores `value` under `key` for the TTL, evicting the oldest answers until the namespace is within budget. False: larger than the budget, not stored. */
  async store(key: string, value: Buffer): Promise<boolean> {
    if (this.sizeOf(value) > this.limits.maxBytes) return false;
    const l = this.limits;
    const done = await this.redis.risCacheStore(this.order, this.sizes, this.total, this.entries + key, key, value, l.ttlMs, l.maxBytes, l.overheadBytes, this.entries);
    return done === 1;
  }

  /** Answers counted and their bytes, as the bookkeeping has them (tests, monitoring). */
  async usage(): Promise<{ entries: number; bytes: number }> {
    const res = await this.redis.pipeline().zcard(this.order).get(this.total).exec();
    if (!res || res[0][0] || res[1][0]) throw res?.[0][0] ?? res?.[1][0] ?? new Error('no answer');
    return { entries: Number(res[0][1]), bytes: Number(res[1][1] ?? 0) };
  }
}
