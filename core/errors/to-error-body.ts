import { AppError } from './app-error';

export interface ErrorBody {
  readonly error: { readonly status: number; readonly name: string; readonly message: string; readonly details: Record<string, unknown> };
}

/**
 * The one mapping from a thrown value to the spec-7 error body. Anything that is not an AppError is
 * an internal fault: a generic 500 that names the request id and leaks no message, stack or SQL.
 */
export function toErrorBody(err: unknown, requestId: string): { status: number; body: ErrorBody; internal: boolean } {
  if (err instanceof AppError) {
    return { status: err.status, internal: false, body: { error: { status: err.status, name: err.name, message: err.message, details: err.details } } };
  }
  return {
    status: 500,
    internal: true,
    body: { error: { status: 500, name: 'InternalServerError', message: `internal server error (request ${requestId})`, details: {} } },
  };
}
