/**
 * Does record `id` match a stream's filter? Asked in SQL through Find's own compiler
 * (`SELECT t0.id FROM <table> t0 WHERE <filter> AND t0.id = ?`), so a filter means here exactly what
 * it means on Find, on both databases. The row is read as it is at send time, archived or not
 * (a delete of a soft-delete model is judged on the archived row); a row no longer there (a model
 * without soft delete) matches no filter: its delete reaches only unfiltered streams.
 *
 * Streams with the same filter (and rule) share one check per event: the answers are memoized by
 * event id and filter key, a bounded map.
 */
import type { Knex } from 'knex';
import type { Dialect } from '../../database/dialects/dialect';
import { BASE_ALIAS, type CheckedQuery, proveTable } from '../query/checked';
import { filteredBase } from '../query/compile-list';

const MEMO_MAX = 10_000;

export class FilterMatcher {
  private readonly memo = new Map<string, Promise<boolean>>();

  constructor(private readonly db: Knex, private readonly dialect: Dialect) {}

  matches(eventId: number, key: string, query: CheckedQuery, recordId: number): Promise<boolean> {
    const memoKey = `${eventId}\u0000${key}`;
    let hit = this.memo.get(memoKey);
    if (!hit) {
      hit = this.ask(query, recordId);
      if (this.memo.size >= MEMO_MAX) this.memo.delete(this.memo.keys().next().value as string);
      this.memo.set(memoKey, hit);
      // A failed check is not remembered (the next stream asks again).
      hit.catch(() => this.memo.delete(memoKey));
    }
    return hit;
  }

  private async ask(query: CheckedQuery, recordId: number): Promise<boolean> {
    const qb = filteredBase(this.db, { table: proveTable(query.model.table), filter: query.filter, softDelete: 'inclusive' }, this.dialect)
      .where(`${BASE_ALIAS}.id`, recordId)
      .select(`${BASE_ALIAS}.id`)
      .first();
    return (await qb) !== undefined;
  }
}
