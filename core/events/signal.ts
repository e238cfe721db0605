/**
 * The cross-node "new events committed" signal. It carries no event (consumers read the outbox), so a
 * lost signal only delays: the hub also polls. Redis pub/sub when REDIS_URL is set; else PostgreSQL
 * LISTEN/NOTIFY (database/dialects/postgres-notify.ts); else none (SQLite: one node, in-process poke).
 */
import { Redis } from 'ioredis';
import type { Logger } from 'pino';

export interface EventSignal {
  /** Which mechanism (logged at start, shown in DEPLOYMENT.md). */
  readonly kind: 'redis' | 'postgres' | 'none';
  /** Tell every node (this one too, or not: the hub pokes itself) that events were committed. */
  publish(): void;
  /** Calls `fn` when another node (or this one) says events were committed. */
  listen(fn: () => void): void;
  close(): Promise<void>;
}

export function noSignal(): EventSignal {
  return { kind: 'none', publish() {}, listen() {}, async close() {} };
}

export function redisSignal(url: string, namespace: string, log: Logger): EventSignal {
  const channel = `ris:${namespace}:events`;
  // Connections open on first use: a CLI run that writes nothing opens none.
  let pub: Redis | null = null;
  let sub: Redis | null = null;
  let warned = false;
  const unavailable = (err: unknown): void => {
    if (warned) return;
    warned = true;
    log.warn({ err }, 'events: Redis signal unavailable; nodes learn of events by polling meanwhile');
  };
  const publisher = (): Redis => {
    if (!pub) {
      pub = new Redis(url, { maxRetriesPerRequest: 2, enableOfflineQueue: false });
      pub.on('error', unavailable);
      pub.on('ready', () => (warned = false));
    }
    return pub;
  };
  return {
    kind: 'redis',
    publish() {
      const p = publisher();
      if (p.status === 'ready') p.publish(channel, '1').catch(unavailable);
    },
    listen(fn) {
      if (sub) return;
      publisher(); // connected before the first publish, which fails at once while connecting
      sub = new Redis(url, { maxRetriesPerRequest: 2 });
      sub.on('error', unavailable);
      sub.subscribe(channel).catch(unavailable);
      sub.on('message', () => fn());
    },
    async close() {
      pub?.disconnect();
      sub?.disconnect();
    },
  };
}
