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

/** Deletes events created more than `retentionMs` before `now` (an event exactly at the limit stays); returns how many. */
export async function pruneEvents(db: Knex, retentionMs: number, now: Date = new Date()): Promise<number> {
  const before = toIsoTimestamp(new Date(now.getTime() - retentionMs));
  let total = 0;
  for (;;) {
    const ids = (await db(EVENTS_TABLE).where('created_at', '<', before).orderBy('id').limit(PRUNE_BATCH).pluck('id')) as (number | string)[];
    if (ids.length === 0) return total;
    total += Number(await db(EVENTS_TABLE).whereIn('id', ids).delete());
    if (ids.length < PRUNE_BATCH) return total;
  }
}

/** Prunes now and then every `everyMs` (unref'd); returns the stop function. */
export function startPruning(db: Knex, retentionMs: number, everyMs: number, log: Logger): () => void {
  const run = (): void => {
    pruneEvents(db, retentionMs).then(
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
