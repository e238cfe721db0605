import { AppError } from './app-error';

export class BadRequestError extends AppError { readonly status = 400; }
export class UnauthorizedError extends AppError { readonly status = 401; }
export class ForbiddenError extends AppError { readonly status = 403; }
export class NotFoundError extends AppError { readonly status = 404; }
export class MethodNotAllowedError extends AppError { readonly status = 405; }
export class ConflictError extends AppError { readonly status = 409; }
export class PayloadTooLargeError extends AppError { readonly status = 413; }
/** 413 for an answer (not a request body) past ANSWER_MAX_RECORDS / ANSWER_MAX_BYTES; details name the setting. */
export class AnswerTooLargeError extends AppError {
  readonly status = 413;

  /** The answer is past ANSWER_MAX_BYTES (found while reading its rows or while serializing it); `afterWrite`: its write was carried out. */
  static bytes(maxBytes: number, afterWrite = false): AnswerTooLargeError {
    return new AnswerTooLargeError(
      `the answer is larger than ${maxBytes} bytes (ANSWER_MAX_BYTES); ` +
        (afterWrite ? 'the write itself was carried out: read the records back with fields or populate limits' : 'ask for fewer records or fields (limit, fields, populate[<relation>][limit])'),
      { setting: 'ANSWER_MAX_BYTES', limit: maxBytes },
    );
  }
}
export class UnsupportedMediaTypeError extends AppError { readonly status = 415; }
export class ServiceUnavailableError extends AppError { readonly status = 503; }
/**
 * 503 with `Retry-After: 1`: the database rolled the write back because it collided with concurrent
 * writes (a deadlock, a serialization failure, a lock wait past its limit). Nothing was written and the
 * database is fine: the same request may simply be sent again. Not a ServiceUnavailableError: it is no
 * outage, so the caller gate (core/http/caller-gate.ts) does not fail the caller's waiting requests over it.
 */
export class WriteConflictError extends AppError {
  readonly status = 503;
  constructor(readonly reason: 'deadlock' | 'serialization' | 'lockTimeout') {
    super('the write collided with concurrent writes to the same records and was rolled back; nothing was written: send it again', { reason, retryable: true, retryAfterSeconds: 1 });
  }
}
/**
 * 503 with `Retry-After: 1`: every pooled database connection stayed in use (by other requests' work on
 * a live database) for the acquire bound, or SQLite's write lock stayed taken past busy_timeout (another
 * process's write). Nothing of the request was written; the database is fine. Not a
 * ServiceUnavailableError: the caller gate does not take it for an outage.
 */
export class ServiceBusyError extends AppError {
  readonly status = 503;
  /** `poolMax`: the pool's size (PostgreSQL, MariaDB); null: SQLite's write lock stayed taken. */
  constructor(poolMax: number | null, busy?: { readonly message: string; readonly details: Record<string, unknown> }) {
    super(
      busy?.message ??
        (poolMax === null
          ? 'the service is busy: the database stayed locked by other writes (SQLite writes one at a time); nothing was done: try again shortly'
          : `the service is busy: all ${poolMax} database connections are in use (setting DATABASE_POOL_MAX); nothing was done: try again shortly`),
      busy?.details ??
        (poolMax === null
          ? { reason: 'busy', retryable: true, retryAfterSeconds: 1 }
          : { reason: 'busy', limit: 'databaseConnections', setting: 'DATABASE_POOL_MAX', retryable: true, retryAfterSeconds: 1 }),
    );
  }

  /** The node holds ANSWER_BUFFER_MAX_BYTES of answers its clients have not taken yet (core/http/answer-buffer.ts). */
  static answersHeld(maxBytes: number): ServiceBusyError {
    return new ServiceBusyError(null, {
      message: `the service is busy: it holds ${maxBytes} bytes of answers that their clients have not taken yet (setting ANSWER_BUFFER_MAX_BYTES); nothing was changed: try again shortly, or ask for a smaller answer`,
      details: { reason: 'busy', limit: 'answerBuffer', setting: 'ANSWER_BUFFER_MAX_BYTES', maxBytes, retryable: true, retryAfterSeconds: 1 },
    });
  }
}
/** A statement the database stopped at the per-query time limit (QUERY_TIMEOUT): the query, not the database, is the problem. */
export class QueryTimeoutError extends AppError {
  readonly status = 504;
  constructor() {
    super('the query ran longer than the per-query time limit (setting QUERY_TIMEOUT) and was stopped; narrow it (fewer relation conditions, a smaller limit) and try again', {
      limit: 'queryTimeout',
      setting: 'QUERY_TIMEOUT',
    });
  }
}

/** 416 for a `Range` outside the file; `size` goes into its Content-Range header (unsatisfied-range form, RFC 9110). */
export class RangeNotSatisfiableError extends AppError {
  readonly status = 416;
  constructor(readonly size: number) {
    super(`the requested range is outside the file (${size} bytes)`, { size });
  }
}

/** 429; `retryAfterSeconds` becomes the Retry-After header. */
export class RateLimitedError extends AppError {
  readonly status = 429;
  constructor(message: string, readonly retryAfterSeconds: number, extra: Record<string, unknown> = {}) {
    super(message, { ...extra, retryAfterSeconds });
  }
}

/** 422 with `details.fields.<name>: [messages]` (spec 7). */
export class ValidationError extends AppError {
  readonly status = 422;
  constructor(message: string, fields: Record<string, string[]>, extra: Record<string, unknown> = {}) {
    super(message, { fields, ...extra });
  }
}
