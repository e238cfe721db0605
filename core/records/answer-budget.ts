/**
 * The records one answer holds, populated ones included and each counted every time it appears
 * (a to-one record shared by 100 parents is 100 records of JSON): ANSWER_MAX_RECORDS. Counted level by
 * level while populating, before anything is serialized, so an answer that cannot be sent costs at
 * most one query past the bound.
 *
 * And the bytes it must at least take (ANSWER_MAX_BYTES): the characters of the string values of its
 * rows, counted as they are read (each time a record appears; JSON writes every UTF-16 unit of a
 * string as at least one byte, so this never passes the answer's real size). An answer of 10 records
 * with 100 related records of 1 MB text each is refused after the rows that already pass the bound are
 * read, not after a gigabyte of rows was read and serialization found it too large (README: Query
 * limits).
 */
import { AnswerTooLargeError } from '../errors/errors';
import type { SelectedField } from '../query/checked';
import { ATTRIBUTE_KINDS } from '../registry/attribute-kinds';

export class RecordBudget {
  private used = 0;
  private bytesUsed = 0;

  constructor(
    readonly max: number,
    readonly maxBytes: number = Number.POSITIVE_INFINITY,
  ) {}

  /** Records still allowed (Infinity without a bound). */
  remaining(): number {
    return this.max - this.used;
  }

  /** Bytes the answer may still take (Infinity without a bound). */
  remainingBytes(): number {
    return this.maxBytes - this.bytesUsed;
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

  /** Counts `n` more bytes the answer takes at least; past ANSWER_MAX_BYTES → 413 naming it. */
  addBytes(n: number): void {
    this.bytesUsed += n;
    if (this.bytesUsed > this.maxBytes) throw AnswerTooLargeError.bytes(this.maxBytes);
  }
}

/**
 * Characters of the text values (string, text, email, uid, enumeration: shown as read) `select` shows
 * of `row`: a lower bound of the bytes its JSON takes each time it is shown.
 */
export function textChars(row: Readonly<Record<string, unknown>>, select: readonly SelectedField[]): number {
  let n = 0;
  for (const f of select) {
    const v = row[f.column];
    if (typeof v === 'string' && ATTRIBUTE_KINDS[f.type].valueClass === 'text') n += v.length;
  }
  return n;
}

/** No bound: the write answers' own to-one populates (one record each). */
export const unbounded = (): RecordBudget => new RecordBudget(Number.POSITIVE_INFINITY);
