/**
 * Rows a plugin writes itself outside the record API (seeded roles and permissions, the CLI's roles and access
 * rules, the access-rules and webhook files) are announced as the record API's write would announce them
 * (issue 15): in the write's transaction, by the system (actor null), each with its record as FindOne answers
 * it. The caller calls `events.committed()` after the commit.
 */
import type { Knex } from 'knex';
import type { EventPipeline } from './pipeline';
import type { NewEvent } from './types';

export type SystemChange = 'record.create' | 'record.update' | 'record.delete';

/**
 * Appends one `type` event per id of `model` (none without a pipeline); the number appended. `before`: a
 * deleted row's record, read before the delete; otherwise each record is read now, in `trx` (a create's or an
 * update's: after it).
 *
 * @example await announce(deps.events, trx, 'record.create', 'role', [id]);
 */
export async function announce(events: EventPipeline | undefined, trx: Knex.Transaction, type: SystemChange, model: string, ids: readonly number[], before?: ReadonlyMap<number, Record<string, unknown> | null>): Promise<number> {
  if (!events || ids.length === 0) return 0;
  const list: NewEvent[] = [];
  for (const id of ids) list.push({ type, model, recordId: id, actor: null, record: before ? (before.get(id) ?? null) : await events.recordOf(trx, model, id) });
  await events.append(trx, list);
  return list.length;
}

/** Deletes rows `ids` of `table` (the records of `model`) and announces each delete with its record as it was; the number appended. */
export async function deleteAnnounced(events: EventPipeline | undefined, trx: Knex.Transaction, table: string, model: string, ids: readonly number[]): Promise<number> {
  if (ids.length === 0) return 0;
  const before = new Map<number, Record<string, unknown> | null>();
  if (events) for (const id of ids) before.set(id, await events.recordOf(trx, model, id));
  await trx(table).whereIn('id', [...ids]).del();
  return announce(events, trx, 'record.delete', model, ids, before);
}
