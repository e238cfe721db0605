/**
 * Fixed-window counters per client address and per normalized account identifier (429 with
 * Retry-After). In process by default; in Redis when REDIS_URL is set, so several nodes share them
 * (in process again while Redis cannot be reached).
 */
import type { Redis, RedisOptions } from 'ioredis';

/** ioredis, loaded on the first client: ~20 MB of memory a deployment without REDIS_URL never uses. */
function redisClient(url: string, options: RedisOptions): Redis {
  const { Redis: Client } = require('ioredis') as typeof import('ioredis');
  return new Client(url, options);
}
import type { Logger } from 'pino';
import { RateLimitedError } from '../../errors/errors';
import type { IamConfig } from '../../../config/schema';

export interface CounterStore {
  /** Counts one hit; answers the count in the window and the ms until the window ends. */
  hit(key: string, windowMs: number): Promise<{ count: number; resetMs: number }>;
  close(): Promise<void>;
}

/**
 * Windows kept in process at most. Every bucket has the same window length, so the map, kept in
 * order of window start, is also in order of expiry: expired windows are dropped from its front as
 * new ones open, and a flood of distinct identifiers from many addresses evicts the oldest live
 * windows instead of growing the process (about 180 bytes a window measured: ~18 MiB at the bound).
 */
export const MEMORY_COUNTERS_MAX = 100_000;

export function memoryCounters(maxWindows = MEMORY_COUNTERS_MAX): CounterStore {
  const windows = new Map<string, { count: number; resetAt: number }>();
  return {
    async hit(key, windowMs) {
      const now = Date.now();
      let w = windows.get(key);
      if (!w || w.resetAt <= now) {
        windows.delete(key); // re-inserted last, so the map stays in order of window start
        for (const [k, v] of windows) {
          if (v.resetAt > now && windows.size < maxWindows) break;
          windows.delete(k);
        }
        w = { count: 0, resetAt: now + windowMs };
        windows.set(key, w);
      }
      w.count += 1;
      return { count: w.count, resetMs: w.resetAt - now };
    },
    async close() {},
  };
}

/** A Redis command (the counting transaction) not answered in this time counts as a failure. */
export const REDIS_COMMAND_TIMEOUT_MS = 300;
/** After a failure, count in process this long before asking Redis again (a hung Redis costs each caller nothing). */
export const REDIS_RETRY_AFTER_MS = 1000;

/**
 * `namespace`: services sharing one database share counters; other deployments on the same Redis do
 * not. While Redis cannot be reached (down, hung, not yet connected) the node counts in process, as
 * without REDIS_URL, so sign-ins keep working and are still limited per node; the outage is logged
 * once, and its end too.
 */
export function redisCounters(url: string, namespace: string, log: Pick<Logger, 'warn' | 'info'>): CounterStore {
  const redis = redisClient(url, { enableOfflineQueue: false, commandTimeout: REDIS_COMMAND_TIMEOUT_MS, maxRetriesPerRequest: 1 });
  const local = memoryCounters();
  let retryAt = 0;
  let degraded = false;
  const degrade = (err: unknown): void => {
    retryAt = Date.now() + REDIS_RETRY_AFTER_MS;
    if (degraded) return;
    degraded = true;
    log.warn({ err }, 'rate limits: Redis unavailable, counting in this process until it is back');
  };
  redis.on('error', degrade);
  redis.on('ready', () => {
    if (!degraded) return;
    degraded = false;
    retryAt = 0;
    log.info('rate limits: Redis is back, counters shared again');
  });
  return {
    async hit(key, windowMs) {
      if (redis.status !== 'ready' || Date.now() < retryAt) return local.hit(key, windowMs);
      const k = `ris:${namespace}:rl:${key}`;
      try {
        const res = await redis.multi().incr(k).pexpire(k, windowMs, 'NX').pttl(k).exec();
        const count = Number(res?.[0]?.[1] ?? 1);
        const ttl = Number(res?.[2]?.[1] ?? windowMs);
        return { count, resetMs: ttl > 0 ? ttl : windowMs };
      } catch (err) {
        degrade(err);
        return local.hit(key, windowMs);
      }
    },
    async close() {
      redis.disconnect();
    },
  };
}

/** One bucket per kind of public identity call; `logout` too, so no public endpoint reads bodies unlimited. */
export type Bucket = 'authenticate' | 'register' | 'otp' | 'forgot-password' | 'refresh' | 'logout';

export class RateLimiter {
  constructor(private readonly store: CounterStore, private readonly limits: IamConfig['rateLimit']) {}

  /** One hit per address and per identifier (when given); over the limit → 429. */
  async check(bucket: Bucket, clientIp: string, identifier: string | null): Promise<void> {
    await this.checkAddress(bucket, clientIp);
    if (identifier) await this.checkAccount(bucket, identifier);
  }

  /** One hit for the client address; over the limit → 429. */
  checkAddress(bucket: Bucket, clientIp: string): Promise<void> {
    return this.hit(`${bucket}:ip:${clientIp}`, this.limits.perAddress);
  }

  /** One hit for an account (or an identifier naming none); over the limit → 429. */
  checkAccount(bucket: Bucket, key: string): Promise<void> {
    return this.hit(`${bucket}:id:${key}`, this.limits.perAccount);
  }

  private async hit(key: string, limit: number): Promise<void> {
    const windowMs = Math.max(1, this.limits.windowSeconds * 1000);
    const { count, resetMs } = await this.store.hit(key, windowMs);
    if (count > limit) throw new RateLimitedError('too many attempts; try again later', Math.ceil(resetMs / 1000));
  }

  close(): Promise<void> {
    return this.store.close();
  }
}
