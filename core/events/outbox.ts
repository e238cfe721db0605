/** Writing and reading outbox rows (no HTTP, no signals: hub.ts and recorder.ts build on these). */
import type { Knex } from 'knex';
import type { Dialect } from '../../database/dialects/dialect';
import { toIsoTimestamp } from '../registry/attribute-kinds';
import { EVENTS_TABLE, type EventRow } from './table';
import type { NewEvent, StoredEvent } from './types';

const num = (v: number | string | null): number | null => (v === null || v === undefined ? null : Number(v));

export function rowToEvent(row: EventRow): StoredEvent {
  return {
    id: Number(row.id),
    type: row.type as StoredEvent['type'],
    model: row.model,
    recordId: num(row.record_id),
    time: toIsoTimestamp(row.created_at),
    actor: row.actor_user_id === null && row.actor_token_id === null ? null : { userId: num(row.actor_user_id), apiTokenId: num(row.actor_token_id) },
    record: row.data === null ? null : (JSON.parse(row.data) as Record<string, unknown>),
  };
}

/** A scalar SQL expression evaluated in each outbox INSERT (its RETURNING clause), and its bindings. */
export interface Returned {
  readonly sql: string;
  readonly bindings: readonly Knex.Value[];
}

/**
 * Inserts events in `trx` (the transaction of the change they describe): their ids, in order, and the
 * values of `extra` (expressions the same INSERT … RETURNING evaluates, no round trip of their own where
 * the database has RETURNING: Dialect.insertWithExpressions) as the last row's INSERT returned them.
 * One statement per row keeps the ids in call order on every database.
 */
export async function appendEventsReturning(trx: Knex | Knex.Transaction, dialect: Dialect, events: readonly NewEvent[], now: Date, extra: readonly Returned[]): Promise<{ ids: number[]; extra: unknown[] }> {
  const at = toIsoTimestamp(now);
  const ids: number[] = [];
  let values: unknown[] = [];
  for (const e of events) {
    const row = {
      type: e.type,
      model: e.model,
      record_id: e.recordId,
      actor_user_id: e.actor?.userId ?? null,
      actor_token_id: e.actor?.apiTokenId ?? null,
      created_at: at,
      data: e.record === null ? null : JSON.stringify(e.record),
    };
    const inserted = await dialect.insertWithExpressions(trx as Knex, EVENTS_TABLE, row, extra);
    ids.push(inserted.id);
    values = inserted.values;
  }
  return { ids, extra: values };
}

/** Inserts events in `trx` (the transaction of the change they describe): their ids, in order. */
export async function appendEvents(trx: Knex | Knex.Transaction, dialect: Dialect, events: readonly NewEvent[], now: Date = new Date()): Promise<number[]> {
  return (await appendEventsReturning(trx, dialect, events, now, [])).ids;
}

/** Committed events with id > `afterId`, oldest first, at most `limit`. */
export async function readAfter(db: Knex, afterId: number, limit = 500): Promise<StoredEvent[]> {
  const rows = (await db(EVENTS_TABLE).where('id', '>', afterId).orderBy('id').limit(limit)) as EventRow[];
  return rows.map(rowToEvent);
}

/** Committed events among `ids` (the gaps a reader still waits for). */
export async function readIds(db: Knex, ids: readonly number[]): Promise<StoredEvent[]> {
  if (ids.length === 0) return [];
  const rows = (await db(EVENTS_TABLE).whereIn('id', [...ids]).orderBy('id')) as EventRow[];
  return rows.map(rowToEvent);
}

/** The newest event id (0: none): where a consumer that wants only new events starts. */
export async function latestEventId(db: Knex): Promise<number> {
  const row = (await db(EVENTS_TABLE).max({ id: 'id' }).first()) as { id: number | string | null } | undefined;
  return Number(row?.id ?? 0);
}
