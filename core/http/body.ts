/** JSON bodies with a size and a nesting limit; write requests must say they send JSON. */
import type { Middleware } from 'koa';
import { HttpMethodEnum, koaBody } from 'koa-body';
import { BadRequestError, UnsupportedMediaTypeError, ValidationError } from '../errors/errors';
import { bodyTextProblems } from '../validation/storable-text';
import type { RequestState } from './state';

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Deepest nesting of arrays/objects a JSON body may have. No model needs more than a handful (a
 * `json` attribute's value included); a limit keeps every later recursive walk (ajv, serializers)
 * far from the stack's end.
 */
export const MAX_JSON_DEPTH = 32;

/** The nesting depth of a parsed JSON value, stopping as soon as it passes `limit` (iterative: no recursion). */
export function jsonDepthExceeds(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [v, d] = stack.pop() as [unknown, number];
    if (typeof v !== 'object' || v === null) continue;
    if (d + 1 > limit) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v)) {
      if (typeof child === 'object' && child !== null) stack.push([child, d + 1]);
    }
  }
  return false;
}

export function jsonBody(maxBytes: number): Middleware<RequestState>[] {
  const requireJson: Middleware<RequestState> = async (ctx, next) => {
    const hasBody = Number(ctx.get('Content-Length') || '0') > 0 || ctx.get('Transfer-Encoding') !== '';
    if (WRITES.has(ctx.method) && hasBody && !ctx.is('application/json', '+json', 'multipart/form-data')) {
      throw new UnsupportedMediaTypeError(`unsupported content type "${ctx.get('Content-Type') || 'none'}"; send application/json`);
    }
    await next();
  };
  const parse = koaBody({
    json: true,
    jsonLimit: maxBytes,
    jsonStrict: true,
    urlencoded: false,
    text: false,
    multipart: false,
    parsedMethods: [HttpMethodEnum.POST, HttpMethodEnum.PUT, HttpMethodEnum.PATCH, HttpMethodEnum.DELETE],
  }) as unknown as Middleware<RequestState>;
  const limitDepth: Middleware<RequestState> = async (ctx, next) => {
    const body: unknown = (ctx.request as { body?: unknown }).body;
    if (jsonDepthExceeds(body, MAX_JSON_DEPTH)) throw new BadRequestError(`the JSON body is nested deeper than ${MAX_JSON_DEPTH} levels`);
    await next();
  };
  // Every endpoint (the identity plugin's too): a NUL character or a lone surrogate is refused the same
  // on both databases, before any lookup sends it to PostgreSQL (which answered 500 or its own text).
  const storableText: Middleware<RequestState> = async (ctx, next) => {
    const problems = bodyTextProblems((ctx.request as { body?: unknown }).body);
    if (problems) {
      const { fields, errors } = problems;
      throw new ValidationError('the body holds text no database can store', fields, errors ? { errors } : {});
    }
    await next();
  };
  return [requireJson, parse, limitDepth, storableText];
}
