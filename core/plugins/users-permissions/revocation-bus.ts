/**
 * With REDIS_URL set, a revocation is published to every process sharing the database, which drops
 * the cached actors at once (without Redis, the ≤ 0.5 s cache bounds the delay instead).
 */
import { Redis } from 'ioredis';
import type { Logger } from 'pino';


export interface RevocationBus {
  publish(sessionIds: readonly number[], userId: number | null): void;
  close(): Promise<void>;
}

export function redisRevocationBus(url: string, namespace: string, onMessage: (sessionIds: readonly number[], userId: number | null) => void, log: Logger): RevocationBus {
  const CHANNEL = `ris:${namespace}:iam:revoked`;
  const pub = new Redis(url, { maxRetriesPerRequest: 2 });
  const sub = new Redis(url, { maxRetriesPerRequest: 2 });
  const quiet = (err: unknown): void => log.warn({ err }, 'identity: redis revocation bus');
  pub.on('error', quiet);
  sub.on('error', quiet);
  sub.subscribe(CHANNEL).catch(quiet);
  sub.on('message', (_channel: string, text: string) => {
    try {
      const m = JSON.parse(text) as { sessionIds?: unknown; userId?: unknown };
      const ids = Array.isArray(m.sessionIds) ? m.sessionIds.map(Number).filter(Number.isSafeInteger) : [];
      onMessage(ids, typeof m.userId === 'number' ? m.userId : null);
    } catch {
      /* not ours */
    }
  });
  return {
    publish(sessionIds, userId) {
      pub.publish(CHANNEL, JSON.stringify({ sessionIds, userId })).catch(quiet);
    },
    async close() {
      pub.disconnect();
      sub.disconnect();
    },
  };
}
