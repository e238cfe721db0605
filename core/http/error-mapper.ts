/** The one catch: every error becomes the spec-7 body here and nowhere else. */
import type { Middleware } from 'koa';
import type { Dialect } from '../../database/dialects/dialect';
import { AppError } from '../errors/app-error';
import {
  BadRequestError,
  ForbiddenError,
  MethodNotAllowedError,
  NotFoundError,
  PayloadTooLargeError,
  RangeNotSatisfiableError,
  RateLimitedError,
  ServiceBusyError,
  ServiceUnavailableError,
  UnauthorizedError,
  UnsupportedMediaTypeError,
  WriteConflictError,
} from '../errors/errors';
import { toErrorBody } from '../errors/to-error-body';
import { invalidValue, isStateFault, stateFaultError } from '../records/db-errors';
import type { RequestState } from './state';
import { clip } from '../errors/client-text';

/** Errors thrown by koa-body, raw-body and the router carry a status; give them our shape, never their text blindly. */
function fromHttpError(err: unknown): AppError | null {
  if (typeof err !== 'object' || err === null || err instanceof AppError) return null;
  const e = err as { status?: unknown; statusCode?: unknown; type?: unknown; message?: unknown };
  const status = Number(e.status ?? e.statusCode);
  switch (status) {
    case 400:
      if (/prototype property/i.test(String(e.message))) return new BadRequestError('the body may not carry a "__proto__" key');
      // co-body's strict mode: valid JSON, but a string, number, boolean or null
      if (/only supports object and array/i.test(String(e.message))) return new BadRequestError('the body must be a JSON object or array');
      return new BadRequestError(e.type === 'entity.parse.failed' || /JSON|Unexpected|invalid/i.test(String(e.message)) ? 'the body is not valid JSON' : 'bad request');
    case 401:
      return new UnauthorizedError('authentication required');
    case 403:
      return new ForbiddenError('forbidden');
    case 404:
      return new NotFoundError('not found');
    case 405:
      return new MethodNotAllowedError('method not allowed');
    case 413:
      return new PayloadTooLargeError('the request body is too large');
    case 415:
      return new UnsupportedMediaTypeError('unsupported content type; send application/json (or another +json type)');
    default:
      return null;
  }
}

/**
 * A driver error that escaped the record service's translation (a plugin's own query, say): when the
 * dialect calls it a lost database, the answer is 503, not 500; a statement stopped at QUERY_TIMEOUT
 * answers 504; a deadlock or serialization failure 503 WriteConflictError (send it again). Other driver
 * faults stay internal.
 */
function fromDbError(err: unknown, dialect: Dialect): AppError | null {
  if (err instanceof AppError) return null;
  const fault = dialect.classifyError(err);
  if (isStateFault(fault)) return stateFaultError(fault);
  // A value the database refused (data error): the client's input, so a 422 in our words, never a 500.
  if (fault?.kind === 'invalidValue') return invalidValue('the database cannot store a value of this request', err);
  return null;
}

export function errorMapper(dialect: Dialect): Middleware<RequestState> {
  return async (ctx, next) => {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) throw new NotFoundError(`no route for ${ctx.method} ${clip(ctx.path)}`);
    } catch (err) {
      const mapped = fromHttpError(err) ?? fromDbError(err, dialect) ?? err;
      const { status, body, internal } = toErrorBody(mapped, ctx.state.requestId ?? 'unknown');
      if (internal) ctx.state.log?.error({ err }, 'unhandled error');
      // The driver's own words stay in the log (db-errors.ts keeps them out of the answer).
      else if (mapped instanceof AppError && mapped.cause !== undefined) ctx.state.log?.warn({ err: mapped.cause }, 'the database refused a value');
      if (mapped instanceof RateLimitedError) ctx.set('Retry-After', String(Math.max(1, Math.ceil(mapped.retryAfterSeconds))));
      if (mapped instanceof ServiceUnavailableError || mapped instanceof ServiceBusyError || mapped instanceof WriteConflictError) ctx.set('Retry-After', '1');
      if (mapped instanceof RangeNotSatisfiableError) ctx.set('Content-Range', `bytes */${mapped.size}`);
      ctx.status = status;
      ctx.body = body;
    }
  };
}
