/**
 * A pool whose every connection is held by work on a live server (long reads near QUERY_TIMEOUT,
 * waits on a lock) is busy, not lost. knex says the same for both ("Timeout acquiring a connection"),
 * so a request past the pool answered 503 "the database is unavailable", the caller gate failed the
 * caller's line as for an outage, and /health/ready said the database was gone while it answered.
 *
 * Here the acquire of a pooled knex (PostgreSQL, MariaDB/MySQL) is wrapped: a slot not had in time
 * while the liveness watchdog (liveness.ts) does not suspect the server becomes a PoolBusyError, which
 * the dialects classify as `busy` (503 ServiceBusyError, `Retry-After: 1`, naming DATABASE_POOL_MAX).
 * Under a hang the watchdog is probing or has found the server silent: the timeout stays an outage.
 * /health/ready asks the server on a connection of its own when the pool has no free slot (`pool.probe`).
 */
import type { Knex } from 'knex';
import { type LivenessLog, type PoolEvents, type ProbeResult, watchLiveness } from './liveness';

export class PoolBusyError extends Error {
  override readonly name = 'PoolBusyError';
  constructor(readonly poolMax: number) {
    super(`every one of the ${poolMax} pooled database connections stayed in use`);
  }
}

export function isPoolBusy(err: unknown): err is PoolBusyError {
  return typeof err === 'object' && err !== null && (err as { name?: unknown }).name === 'PoolBusyError';
}

/** What the rest of the service may ask of a pooled database. */
export interface PoolWatch {
  readonly max: number;
  /** No free connection: every one is in use and the pool may make no more. */
  full(): boolean;
  /** Asks the server on a connection of its own, outside the pool. */
  probe(): Promise<ProbeResult>;
}

const watches = new WeakMap<Knex, PoolWatch>();

/** The watch of a pooled database (none for SQLite, which runs in the process). */
export function poolWatchOf(db: Knex): PoolWatch | undefined {
  return watches.get(db);
}

/** The part of tarn's pool this reads. */
interface TarnCounts {
  numUsed(): number;
  numFree(): number;
  numPendingCreates(): number;
}

interface AcquiringClient {
  acquireConnection(): Promise<unknown>;
  pool?: TarnCounts;
}

/**
 * Wraps `db`'s acquire (knex's Client.acquireConnection, which every query and transaction goes
 * through) so that a timed-out acquire on a live server throws PoolBusyError, and records the watch.
 */
export function reportBusyPool(db: Knex, max: number, suspects: () => boolean, probe: () => Promise<ProbeResult>): void {
  const client = db.client as unknown as AcquiringClient;
  const acquire = client.acquireConnection.bind(client);
  client.acquireConnection = async () => {
    try {
      return await acquire();
    } catch (e) {
      if ((e as { name?: unknown }).name === 'KnexTimeoutError' && !suspects()) throw new PoolBusyError(max);
      throw e;
    }
  };
  watches.set(db, {
    max,
    full() {
      const pool = client.pool;
      return pool !== undefined && pool.numFree() === 0 && pool.numUsed() + pool.numPendingCreates() >= max;
    },
    probe,
  });
}

/**
 * What every pooled database gets (PostgreSQL, MariaDB): the hang watchdog on its pool (liveness.ts), and
 * the busy report that asks it (`reportBusyPool`). `probe` asks the server on a connection of its own.
 */
export function watchPool(db: Knex, poolMax: number, probe: () => Promise<ProbeResult>, timing: { readonly suspectMs: number; readonly probeGapMs: number }, log?: LivenessLog): void {
  const pool: unknown = db.client.pool;
  if (!pool || typeof (pool as { on?: unknown }).on !== 'function') return;
  const liveness = watchLiveness(pool as PoolEvents, probe, { ...timing, tickMs: 100 }, log);
  reportBusyPool(db, poolMax, liveness.suspects, probe);
}
