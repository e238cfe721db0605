/**
 * Does record `id` match a stream's filter? Asked in SQL through Find's own compiler
 * (`SELECT t0.id FROM <table> t0 WHERE <filter> AND t0.id = ?`), so a filter means here exactly what
 * it means on Find, on both databases. The row is read as it is at send time, archived or not
 * (a delete of a soft-delete model is judged on the archived row); a row no longer there (a model
 * without soft delete) matches no filter: its delete reaches only unfiltered streams.
 *
 * Streams with the same filter (and rule) share one check per event: the answers are memoized by
 * event id and filter key, a bounded map.
 *
 * Every check takes a turn of the CheckGate (REALTIME_CHECK_CONCURRENCY for all streams, fair between
 * callers: a shared check waits in the line of the caller that asked first), and is not
 * run at all when, its turn come, no stream that asked for it is still open (the client left while it
 * waited): an abandoned stream leaves no statement behind but the one already running.
 */
import type { Knex } from 'knex';
import type { Dialect } from '../../database/dialects/dialect';
import { BASE_ALIAS, type CheckedQuery, proveTable } from '../query/checked';
import { filteredBase } from '../query/compile-list';
import type { CheckGate } from './check-gate';

const MEMO_MAX = 10_000;

/** One check asked for (and perhaps shared): its answer, and whether any stream that asked still wants it. */
interface Pending {
  readonly answer: Promise<boolean>;
  readonly wanted: (() => boolean)[];
}

export class FilterMatcher {
  private readonly memo = new Map<string, Pending>();

  constructor(private readonly db: Knex, private readonly dialect: Dialect, private readonly gate: CheckGate) {}

  /**
   * Does the record match? `open` tells whether the asking stream still wants the answer; a check that
   * no open stream wants when its turn comes is skipped (answers false to streams that are gone anyway).
   * `caller`: whose line the check waits in (CheckGate).
   */
  matches(eventId: number, key: string, query: CheckedQuery, recordId: number, open: () => boolean, caller: string): Promise<boolean> {
    const memoKey = `${eventId}\u0000${key}`;
    const hit = this.memo.get(memoKey);
    if (hit) {
      hit.wanted.push(open);
      return hit.answer;
    }
    const wanted = [open];
    let entry: Pending | null = null;
    let remember = true;
    /** A skipped or failed check is not remembered (a later stream asks afresh). */
    const forget = (): void => {
      remember = false;
      if (entry !== null && this.memo.get(memoKey) === entry) this.memo.delete(memoKey);
    };
    const answer = this.gate.run(caller, async () => {
      if (!wanted.some((w) => w())) {
        forget(); // nobody waits for it any more: no statement
        return false;
      }
      return this.ask(query, recordId);
    });
    answer.catch(forget);
    if (remember) {
      entry = { answer, wanted };
      if (this.memo.size >= MEMO_MAX) this.memo.delete(this.memo.keys().next().value as string);
      this.memo.set(memoKey, entry);
    }
    return answer;
  }

  private async ask(query: CheckedQuery, recordId: number): Promise<boolean> {
    const qb = filteredBase(this.db, { table: proveTable(query.model.table), filter: query.filter, softDelete: 'inclusive' }, this.dialect)
      .where(`${BASE_ALIAS}.id`, recordId)
      .select(`${BASE_ALIAS}.id`)
      .first();
    return (await qb) !== undefined;
  }
}
