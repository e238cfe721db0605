/**
 * The outbox keeps events for EVENTS_RETENTION (default 7 days): resume (`readAfter`) and webhook
 * deliveries read them within that window; older ones are deleted in batches by every node (deleting
 * is idempotent, so nodes need no coordination).
 */
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { toIsoTimestamp } from '../registry/attribute-kinds';
import { EVENTS_TABLE } from './table';

/** Rows one prune statement deletes (a large backlog goes in several statements, none holding locks long). */
export const PRUNE_BATCH = 5000;

/**
 * A consumer's rows that live as long as their events (webhook deliveries): deletes those created before
 * `before` (an ISO timestamp) in batches of at most PRUNE_BATCH; returns how many.
 */
export type PruneStep = (db: Knex, before: string) => Promise<number>;

/** Deletes rows of `table` matching `where` (its `id` column ordering the batches), PRUNE_BATCH at a time; returns how many. */
export async function pruneInBatches(db: Knex, table: string, where: (qb: Knex.QueryBuilder) => void): Promise<number> {
  let total = 0;
  for (;;) {
    const ids = (await db(table).where(where).orderBy('id').limit(PRUNE_BATCH).pluck('id')) as (number | string)[];
    if (ids.length === 0) return total;
    total += Number(await db(table).whereIn('id', ids).delete());
    if (ids.length < PRUNE_BATCH) return total;
  }
}

/**
 * Deletes events created more than `retentionMs` before `now` (an event exactly at the limit stays), then
 * runs `steps` with the same limit; returns how many events went.
 */
export async function pruneEvents(db: Knex, retentionMs: number, now: Date = new Date(), steps: readonly PruneStep[] = []): Promise<number> {
  const before = toIsoTimestamp(new Date(now.getTime() - retentionMs));
  const total = await pruneInBatches(db, EVENTS_TABLE, (qb) => qb.where('created_at', '<', before));
  for (const step of steps) await step(db, before);
  return total;
}

/** Prunes now and then every `everyMs` (unref'd); returns the stop function. */
export function startPruning(db: Knex, retentionMs: number, everyMs: number, log: Logger, steps: readonly PruneStep[] = []): () => void {
  const run = (): void => {
    pruneEvents(db, retentionMs, new Date(), steps).then(
      (n) => n > 0 && log.info({ deleted: n }, 'events: pruned outbox rows older than EVENTS_RETENTION'),
      (err: unknown) => log.warn({ err }, 'events: pruning the outbox failed; retrying later'),
    );
  };
  const first = setTimeout(run, Math.min(everyMs, 60_000));
  first.unref();
  const timer = setInterval(run, everyMs);
  timer.unref();
  return () => {
    clearTimeout(first);
    clearInterval(timer);
  };
}
