/**
 * The cross-node "new events committed" signal. It carries no event (consumers read the outbox), so a
 * lost signal only delays: the hub also polls. Redis pub/sub when REDIS_URL is set; else PostgreSQL
 * LISTEN/NOTIFY (database/dialects/postgres-notify.ts); else none (SQLite: one node, in-process poke).
 * A signal names the process that sent it, which passes over its own (it woke its consumers at commit).
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { type ListenTarget, listenPostgres, notifyCommitted, type PgListener } from '../../database/dialects/postgres-notify';

export interface EventSignal {
  /** Which mechanism (logged at start, shown in DEPLOYMENT.md). */
  readonly kind: 'redis' | 'postgres' | 'none';
  /** Tell every other node that events were committed. */
  publish(): void;
  /** Calls `fn` when another node says events were committed (or when they may have been unheard: a reconnect). */
  listen(fn: () => void): void;
  close(): Promise<void>;
}

/** A signal sent at most once at a time (see `coalesced`). */
export interface Coalesced {
  /** Asks for a send: now, or once more after the one under way (and the gap after it). */
  request(): void;
  /** Resolves when no send is under way or asked for (close waits for it). */
  idle(): Promise<void>;
}

/**
 * Sends of the cross-node signal start at least this far apart: the commits made meanwhile share the next
 * one. Without the gap a NOTIFY followed each round trip, 0.65 per create at 700 creates/s (each NOTIFY
 * is a statement and a commit of its own); other nodes learn of a commit at most this much later.
 */
export const SIGNAL_MIN_GAP_MS = 10;

/**
 * `send` at most once at a time, and sends starting at least `minGapMs` apart: requests while one is
 * under way (or in the gap after it) are folded into one more send after it, which covers every commit
 * made before it starts. Many commits cost one signal.
 */
export function coalesced(send: () => Promise<void>, minGapMs = 0): Coalesced {
  let running: Promise<void> | null = null;
  /** A send waiting for the gap to pass: resolves once it has started. */
  let waiting: Promise<void> | null = null;
  let again = false;
  let lastStart = -Infinity;
  const run = (): void => {
    again = false;
    lastStart = Date.now();
    running = send()
      .catch(() => undefined)
      .finally(() => {
        running = null;
        if (again) start();
      });
  };
  /** Runs now, or when the gap since the last send has passed. */
  const start = (): void => {
    const wait = lastStart + minGapMs - Date.now();
    if (wait <= 0) return run();
    waiting = new Promise<void>((resolve) =>
      setTimeout(() => {
        waiting = null;
        run();
        resolve();
      }, wait),
    );
  };
  return {
    request() {
      if (running || waiting) again = true;
      else start();
    },
    async idle() {
      while (running || waiting) await (running ?? waiting);
    },
  };
}

export function noSignal(): EventSignal {
  return { kind: 'none', publish() {}, listen() {}, async close() {} };
}

/** Names this process's signals. */
const newOrigin = (): string => randomBytes(8).toString('hex');

/**
 * How long a send waits for a Redis publisher connection still being made: the first signal of a
 * process that never listens (an admin CLI run: its only signal) would otherwise be dropped, and the
 * server nodes would learn of its events at their slow look (the webhook dispatcher's IDLE_POLL_MS).
 */
export const REDIS_READY_WAIT_MS = 2000;

/** Resolves once `r` is ready, or has ended, or after `ms`, whichever comes first. */
function readyWithin(r: Redis, ms: number): Promise<void> {
  if (r.status === 'ready') return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      r.off('ready', done);
      r.off('end', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    r.once('ready', done);
    r.once('end', done);
  });
}

export function redisSignal(url: string, namespace: string, log: Logger): EventSignal {
  const channel = `ris:${namespace}:events`;
  const origin = newOrigin();
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
  const signal = coalesced(async () => {
    const p = publisher();
    await readyWithin(p, REDIS_READY_WAIT_MS);
    if (p.status === 'ready') await p.publish(channel, origin).catch(unavailable);
  }, SIGNAL_MIN_GAP_MS);
  return {
    kind: 'redis',
    publish: () => signal.request(),
    listen(fn) {
      if (sub) return;
      publisher(); // connected before the first publish, which fails at once while connecting
      sub = new Redis(url, { maxRetriesPerRequest: 2 });
      sub.on('error', unavailable);
      sub.subscribe(channel).catch(unavailable);
      sub.on('message', (_channel: string, from: string) => {
        if (from !== origin) fn();
      });
    },
    async close() {
      await signal.idle();
      pub?.disconnect();
      sub?.disconnect();
    },
  };
}

/**
 * PostgreSQL LISTEN/NOTIFY: `publish` sends a NOTIFY through `db`'s pool after the commit (coalesced);
 * one dedicated connection per node listens.
 */
export function postgresSignal(db: Knex, target: ListenTarget, log: Logger): EventSignal {
  const origin = newOrigin();
  let listener: PgListener | null = null;
  let warned = false;
  const signal = coalesced(async () => {
    try {
      await notifyCommitted(db, target.channel, origin);
      warned = false;
    } catch (err) {
      if (!warned) log.warn({ err }, 'events: NOTIFY failed; nodes learn of events by polling meanwhile');
      warned = true;
    }
  }, SIGNAL_MIN_GAP_MS);
  return {
    kind: 'postgres',
    publish: () => signal.request(),
    listen(fn) {
      listener ??= listenPostgres(
        target,
        (from) => {
          if (from !== origin) fn();
        },
        log,
      );
    },
    async close() {
      await signal.idle();
      await listener?.close();
    },
  };
}
