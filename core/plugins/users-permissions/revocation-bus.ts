/**
 * With REDIS_URL set, a revocation is published to every process sharing the database, which drops
 * the cached actors at once (without Redis, the ≤ 0.5 s cache bounds the delay instead). Revoked and
 * regenerated API tokens travel on the same channel (`apiTokenIds`).
 */
import type { Redis, RedisOptions } from 'ioredis';

/** ioredis, loaded on the first client: ~20 MB of memory a deployment without REDIS_URL never uses. */
function redisClient(url: string, options: RedisOptions): Redis {
  const { Redis: Client } = require('ioredis') as typeof import('ioredis');
  return new Client(url, options);
}
import type { Logger } from 'pino';


export interface RevocationBus {
  publish(sessionIds: readonly number[], userId: number | null, apiTokenIds?: readonly number[]): void;
  close(): Promise<void>;
}

export function redisRevocationBus(url: string, namespace: string, onMessage: (sessionIds: readonly number[], userId: number | null, apiTokenIds: readonly number[]) => void, log: Logger): RevocationBus {
  const CHANNEL = `ris:${namespace}:iam:revoked`;
  // Publishes fail at once while Redis is away (no offline queue growing through an outage); the
  // subscriber keeps its one SUBSCRIBE queued until the first connection and resubscribes by itself.
  const pub = redisClient(url, { maxRetriesPerRequest: 2, enableOfflineQueue: false });
  const sub = redisClient(url, { maxRetriesPerRequest: 2 });
  let down = false;
  const unavailable = (err: unknown): void => {
    if (down) return;
    down = true;
    log.warn({ err }, 'identity: Redis revocation bus unavailable; revocations reach other nodes through the 0.5 s cache meanwhile');
  };
  const back = (): void => {
    if (!down || pub.status !== 'ready' || sub.status !== 'ready') return;
    down = false;
    log.info('identity: Redis revocation bus is back');
  };
  for (const r of [pub, sub]) {
    r.on('error', unavailable);
    r.on('ready', back);
  }
  sub.subscribe(CHANNEL).catch(unavailable);
  sub.on('message', (_channel: string, text: string) => {
    try {
      const m = JSON.parse(text) as { sessionIds?: unknown; userId?: unknown; apiTokenIds?: unknown };
      const numbers = (v: unknown): number[] => (Array.isArray(v) ? v.map(Number).filter(Number.isSafeInteger) : []);
      onMessage(numbers(m.sessionIds), typeof m.userId === 'number' ? m.userId : null, numbers(m.apiTokenIds));
    } catch {
      /* not ours */
    }
  });
  return {
    publish(sessionIds, userId, apiTokenIds = []) {
      pub.publish(CHANNEL, JSON.stringify({ sessionIds, userId, apiTokenIds })).catch(unavailable);
    },
    async close() {
      pub.disconnect();
      sub.disconnect();
    },
  };
}
