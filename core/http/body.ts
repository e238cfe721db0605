/**
 * JSON bodies with a size and a nesting limit; write requests must say they send JSON. A body is read
 * only when the route asks for it (`ctx.state.readBody()`), once the caller may send it: an anonymous or
 * unpermitted write is answered without its body being read or parsed (README: Limits).
 */
import type { Context, Middleware } from 'koa';
import { HttpMethodEnum, koaBody } from 'koa-body';
import { BadRequestError, PayloadTooLargeError, UnsupportedMediaTypeError, ValidationError } from '../errors/errors';
import { bodyTextProblems } from '../validation/storable-text';
import type { BodyLimit, RequestState, RouteBodyLimit } from './state';
import { clip } from '../errors/client-text';

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * The body types read as JSON: application/json and every `+json` type (application/merge-patch+json,
 * application/vnd.api+json, …), parsed alike (a PATCH applies a merge patch as it applies a JSON object).
 * Any other type is refused with 415 (multipart forms are read by the record routes, core/media/form.ts).
 */
export const JSON_TYPES = ['application/json', '+json'] as const;

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

/** The body's declared length: null when it comes chunked (or declares none). */
function declaredLength(ctx: Context): number | null {
  const raw = ctx.get('Content-Length');
  return raw === '' ? null : Number(raw);
}

/** One koa-body per byte limit (the whole app's, and the smaller ones routes ask for). */
function jsonParser(maxBytes: number): Middleware<RequestState> {
  return koaBody({
    json: true,
    jsonTypes: [...JSON_TYPES],
    jsonLimit: maxBytes,
    jsonStrict: true,
    urlencoded: false,
    text: false,
    multipart: false,
    parsedMethods: [HttpMethodEnum.POST, HttpMethodEnum.PUT, HttpMethodEnum.PATCH, HttpMethodEnum.DELETE],
  }) as unknown as Middleware<RequestState>;
}

/** Every 413 for a body names its limit: `details: { setting, limit }` (BODY_MAX_BYTES or a route's own). */
export function bodyTooLarge(limit: BodyLimit): PayloadTooLargeError {
  return new PayloadTooLargeError(`the request body is larger than ${limit.setting} (${limit.maxBytes} bytes)`, { setting: limit.setting, limit: limit.maxBytes });
}

/** The routes' own limits, below BODY_MAX_BYTES (Plugin.bodyLimits), found by method and path. */
export type RouteBodyLimits = (ctx: Context) => BodyLimit | undefined;

/** Looks a request up in the declared route limits (a trailing slash ignored, as the router does). */
export function routeBodyLimits(declared: readonly RouteBodyLimit[]): RouteBodyLimits {
  const byRoute = new Map<string, BodyLimit>(declared.map((r) => [`${r.method} ${r.path}`, r.limit]));
  return (ctx) => byRoute.get(`${ctx.method} ${ctx.path.length > 1 ? ctx.path.replace(/\/+$/, '') : ctx.path}`);
}

/**
 * `[requireJson, bodyReader]`, mounted before every router. Neither reads the body: requireJson looks at
 * the headers only (415 for a write that sends no JSON; 413 for a JSON body whose Content-Length is past
 * BODY_MAX_BYTES, naming the route's own limit when it has one), and bodyReader gives the request its
 * `readBody`, which routes call once the caller may send a body. An unread body is discarded by Node once
 * the answer is sent (the connection stays usable).
 */
export function jsonBody(maxBytes: number, routeLimits: RouteBodyLimits = () => undefined): Middleware<RequestState>[] {
  const whole: BodyLimit = { maxBytes, setting: 'BODY_MAX_BYTES' };
  /** The limit a read names: the route's when it is the smaller, else BODY_MAX_BYTES. */
  const effective = (limit: BodyLimit | undefined): BodyLimit => (limit && limit.maxBytes < maxBytes ? limit : whole);
  const requireJson: Middleware<RequestState> = async (ctx, next) => {
    const length = declaredLength(ctx);
    const hasBody = (length ?? 0) > 0 || ctx.get('Transfer-Encoding') !== '';
    if (WRITES.has(ctx.method) && hasBody && !ctx.is(...JSON_TYPES, 'multipart/form-data')) {
      throw new UnsupportedMediaTypeError(`unsupported content type "${clip(ctx.get('Content-Type')) || 'none'}"; send application/json (or another +json type)`);
    }
    // The cheapest refusal, before any lookup: the body says it is too large (multipart forms have their own limits).
    if (WRITES.has(ctx.method) && length !== null && length > maxBytes && !ctx.is('multipart/form-data')) throw bodyTooLarge(effective(routeLimits(ctx)));
    await next();
  };
  const parsers = new Map<number, Middleware<RequestState>>();
  const parserFor = (bytes: number): Middleware<RequestState> => {
    let p = parsers.get(bytes);
    if (!p) parsers.set(bytes, (p = jsonParser(bytes)));
    return p;
  };
  const read = async (ctx: Context & { state: RequestState }, asked: BodyLimit | undefined): Promise<unknown> => {
    const limit = effective(asked);
    try {
      await parserFor(limit.maxBytes)(ctx, async () => undefined);
    } catch (e) {
      if ((e as { status?: unknown }).status === 413) throw bodyTooLarge(limit);
      throw e;
    }
    const body: unknown = (ctx.request as { body?: unknown }).body;
    if (jsonDepthExceeds(body, MAX_JSON_DEPTH)) throw new BadRequestError(`the JSON body is nested deeper than ${MAX_JSON_DEPTH} levels`);
    // Every endpoint (the identity plugin's too): a NUL character or a lone surrogate is refused the same
    // on both databases, before any lookup sends it to PostgreSQL (which answered 500 or its own text).
    const problems = bodyTextProblems(body);
    if (problems) {
      const { fields, errors } = problems;
      throw new ValidationError('the body holds text no database can store', fields, errors ? { errors } : {});
    }
    return body;
  };
  const bodyReader: Middleware<RequestState> = async (ctx, next) => {
    let once: Promise<unknown> | undefined;
    ctx.state.readBody = (limit) => (once ??= read(ctx, limit));
    await next();
  };
  return [requireJson, bodyReader];
}
