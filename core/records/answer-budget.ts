/**
 * The records one answer holds, populated ones included and each counted every time it appears
 * (a to-one record shared by 100 parents is 100 records of JSON): ANSWER_MAX_RECORDS. Counted level by
 * level while populating, before anything is serialized, so an answer that cannot be sent costs at
 * most one query past the bound.
 */
import { AnswerTooLargeError } from '../errors/errors';

export class RecordBudget {
  private used = 0;

  constructor(readonly max: number) {}

  /** Records still allowed (Infinity without a bound). */
  remaining(): number {
    return this.max - this.used;
  }

  /** Counts `n` more records; past the bound → 413 naming the setting. */
  add(n: number): void {
    this.used += n;
    if (this.used > this.max) {
      throw new AnswerTooLargeError(
        `the answer would hold more than ${this.max} records, populated records counted each time they appear (ANSWER_MAX_RECORDS); ask for fewer with limit, populate[<relation>][limit], fields or filters`,
        { setting: 'ANSWER_MAX_RECORDS', limit: this.max },
      );
    }
  }
}

/** No bound: the write answers' own to-one populates (one record each). */
export const unbounded = (): RecordBudget => new RecordBudget(Number.POSITIVE_INFINITY);
