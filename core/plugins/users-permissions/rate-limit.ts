/**
 * Fixed-window counters per client address and per normalized account identifier (429 with
 * Retry-After). In process by default; in Redis when REDIS_URL is set, so several nodes share them.
 */
import { Redis } from 'ioredis';
import { RateLimitedError } from '../../errors/errors';
import type { IamConfig } from '../../../config/schema';

export interface CounterStore {
  /** Counts one hit; answers the count in the window and the ms until the window ends. */
  hit(key: string, windowMs: number): Promise<{ count: number; resetMs: number }>;
  close(): Promise<void>;
}

export function memoryCounters(): CounterStore {
  const windows = new Map<string, { count: number; resetAt: number }>();
  return {
    async hit(key, windowMs) {
      const now = Date.now();
      let w = windows.get(key);
      if (!w || w.resetAt <= now) {
        if (windows.size > 100_000) for (const [k, v] of windows) if (v.resetAt <= now) windows.delete(k);
        w = { count: 0, resetAt: now + windowMs };
        windows.set(key, w);
      }
      w.count += 1;
      return { count: w.count, resetMs: w.resetAt - now };
    },
    async close() {},
  };
}

/** `namespace`: services sharing one database share counters; other deployments on the same Redis do not. */
export function redisCounters(url: string, namespace: string): CounterStore {
  const redis = new Redis(url, { lazyConnect: false, maxRetriesPerRequest: 2, enableOfflineQueue: true });
  return {
    async hit(key, windowMs) {
      const k = `ris:${namespace}:rl:${key}`;
      const res = await redis.multi().incr(k).pexpire(k, windowMs, 'NX').pttl(k).exec();
      const count = Number(res?.[0]?.[1] ?? 1);
      const ttl = Number(res?.[2]?.[1] ?? windowMs);
      return { count, resetMs: ttl > 0 ? ttl : windowMs };
    },
    async close() {
      redis.disconnect();
    },
  };
}

export type Bucket = 'authenticate' | 'register' | 'otp' | 'forgot-password' | 'refresh';

export class RateLimiter {
  constructor(private readonly store: CounterStore, private readonly limits: IamConfig['rateLimit']) {}

  /** One hit per address and per identifier (when given); over the limit → 429. */
  async check(bucket: Bucket, clientIp: string, identifier: string | null): Promise<void> {
    const windowMs = Math.max(1, this.limits.windowSeconds * 1000);
    const checks: [string, number][] = [[`${bucket}:ip:${clientIp}`, this.limits.perAddress]];
    if (identifier) checks.push([`${bucket}:id:${identifier}`, this.limits.perAccount]);
    for (const [key, limit] of checks) {
      const { count, resetMs } = await this.store.hit(key, windowMs);
      if (count > limit) throw new RateLimitedError('too many attempts; try again later', Math.ceil(resetMs / 1000));
    }
  }

  close(): Promise<void> {
    return this.store.close();
  }
}
