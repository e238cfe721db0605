/** createApp(deps): the middleware list, in order, in one place. */
import type { Knex } from 'knex';
import Router from '@koa/router';
import Koa, { type Middleware } from 'koa';
import qs from 'qs';
import { BadRequestError, MethodNotAllowedError, NotFoundError } from '../errors/errors';
import type { Authenticator, Authorizer, Plugin, PluginDeps } from '../plugin-api';
import { appDocument } from '../openapi/app-document';
import { docsRouter } from '../openapi/docs';
import { MAX_FILTER_DEPTH, MAX_PARAMETERS, MAX_QUERY_STRING } from '../query/limits';
import type { ResponseCache } from '../cache/response-cache';
import { RecordController, type RecordContext } from '../records/controller';
import { passwordHasher } from '../records/hash-password';
import { recordReadOptions } from '../records/record-reader';
import { forModelPaths, recordRouter } from '../records/routes';
import { draftRouter } from '../drafts/routes';
import { RecordService } from '../records/service';
import { compileValidators } from '../validation/compile';
import { jsonBody, routeBodyLimits } from './body';
import { AnswerBuffer, answerBuffer } from './answer-buffer';
import { callerGate, outageOf } from './caller-gate';
import { errorMapper } from './error-mapper';
import { healthRouter } from './health';
import { tmpDirOf } from '../media/intake';
import { serveUploads } from '../media/serve';
import { MediaService } from '../media/service';
import { storageOf } from '../media/storage-of';
import { requestId } from './request-id';
import { lifecycleHooks } from '../hooks/setup';
import { corsAllowlist, securityHeaders } from './security';
import type { RequestState } from './state';
import { realtimeOf } from '../realtime/setup';

export interface AppDeps extends PluginDeps {
  readonly plugins: readonly Plugin[];
  /** CACHE=memory|redis (boot.ts); absent or null: off. */
  readonly responseCache?: ResponseCache | null;
  /** SQLite on a file: connections that only read (Find, FindOne, grouped lists); absent: `db` reads too. */
  readonly readDb?: Knex;
}

/**
 * Brackets one query key may nest: each `$and`/`$or` level is two (`[$and][0]`), so MAX_FILTER_DEPTH
 * levels with their field, operator and relation path fit, and the parser (not qs) names the nesting limit.
 */
export const MAX_KEY_DEPTH = 2 * MAX_FILTER_DEPTH + 8;

/** qs's own limit errors, in the words of the limit they hit (each answers 400 naming it). */
function qsLimit(message: string): BadRequestError | null {
  if (/depth/i.test(message)) return new BadRequestError(`a query key nests more than ${MAX_KEY_DEPTH} brackets (filters nest at most ${MAX_FILTER_DEPTH} levels)`, { limit: 'keyDepth', max: MAX_KEY_DEPTH });
  if (/array limit/i.test(message)) return new BadRequestError(`a query array index is above ${MAX_PARAMETERS - 1}`, { limit: 'arrayIndex', max: MAX_PARAMETERS - 1 });
  if (/parameter limit/i.test(message)) return new BadRequestError(`the query string has more than ${MAX_PARAMETERS} parameters`, { limit: 'parameters', max: MAX_PARAMETERS });
  return null;
}

/** The query string as the qs object the parser reads; malformed or oversized → 400 naming the limit. */
export function parseQueryString(raw: string): unknown {
  if (raw.length > MAX_QUERY_STRING) throw new BadRequestError(`the query string is longer than ${MAX_QUERY_STRING} characters`, { limit: 'queryString', max: MAX_QUERY_STRING });
  try {
    return qs.parse(raw, { depth: MAX_KEY_DEPTH, strictDepth: true, arrayLimit: MAX_PARAMETERS, parameterLimit: MAX_PARAMETERS, allowPrototypes: false, plainObjects: true, throwOnLimitExceeded: true });
  } catch (e) {
    const message = (e as Error).message;
    throw qsLimit(message) ?? new BadRequestError(`malformed query string: ${message}`);
  }
}

function authenticate(authenticator: Authenticator | null): Middleware<RequestState> {
  return async (ctx, next) => {
    if (authenticator) ctx.state.actor = await authenticator.authenticate(ctx.get('Authorization') || undefined, ctx.state);
    await next();
  };
}

export function createApp(deps: AppDeps): Koa<RequestState> {
  const { config, db, dialect, registry, plugins, log, events } = deps;
  const pluginDeps: PluginDeps = { config, db, readDb: deps.readDb, dialect, registry, log, events, foreignKeyEvents: deps.foreignKeyEvents };
  const authenticator = plugins.find((p) => p.authenticator)?.authenticator?.(pluginDeps) ?? null;
  const authorizer: Authorizer | null = plugins.find((p) => p.authorizer)?.authorizer?.(pluginDeps) ?? null;

  const validators = new Map(registry.contentTypes.map((ct) => [ct.name, compileValidators(ct, registry)] as const));
  const storage = storageOf(config, log);
  const media = new MediaService({ storage, registry, publicUrl: config.publicUrl, log });
  const service = new RecordService({
    db,
    readDb: deps.readDb,
    dialect,
    registry,
    validators,
    hashPassword: passwordHasher(config.iam.bcryptCost),
    ...recordReadOptions(config),
    answerMaxBytes: config.answerMaxBytes,
    writeMaxLinks: config.writeMaxLinks,
    media,
    events: events ?? null,
    hooks: lifecycleHooks(plugins, pluginDeps),
  });
  events?.startPruning(config.events.retentionMs);
  // The events' record reader and the plugins' append steps are wired in boot.ts, for every process.
  const uploads = {
    tmpDir: tmpDirOf(config.uploadsDir),
    maxFileBytes: config.uploadMaxBytes,
    maxFieldBytes: config.bodyMaxBytes,
    maxFiles: config.uploadMaxFiles,
    maxPartHeaderBytes: config.uploadPartHeaderMaxBytes,
  };
  const controller = new RecordController(service, authorizer, (ctx: RecordContext) => parseQueryString(ctx.querystring), uploads, config.answerMaxBytes, deps.responseCache ?? null);

  // Realtime over SSE (issue 15, core/realtime): GET /api/realtime, POST /api/realtime/ticket.
  const realtime = events ? realtimeOf({ config, db: deps.readDb ?? db, dialect, registry, events, authenticator, authorizer, check: (m, q, version, access) => service.check(m, q, access ?? { registry: service.registryFor(version) }), log }, (raw) => parseQueryString(raw)) : null;
  const api = new Router<RequestState>();
  for (const p of plugins) p.routes?.(api, pluginDeps);
  const records = recordRouter(registry, controller, authorizer);
  const drafts = draftRouter(registry, controller, authorizer);
  const allowed = { throw: true, methodNotAllowed: () => new MethodNotAllowedError('method not allowed on this path'), notImplemented: () => new NotFoundError('not found') };

  // TRUST_PROXY trusts one proxy hop, the load balancer: the client address is the LAST
  // X-Forwarded-For entry (the one it appends or writes), never one a client put in front of it.
  const app = new Koa<RequestState>({ proxy: config.trustProxy, maxIpsCount: 1 });
  // On SQLite a reader answers beside a long write (a big bulk call may hold the one writer for seconds).
  const health = healthRouter(deps.readDb ?? db);
  // The OpenAPI document is built once, at boot, from the registry and the plugins' fragments.
  const docs = docsRouter(appDocument(plugins, pluginDeps));
  // Router middleware is typed for router contexts; Koa hands every middleware the same context.
  const routed = (m: unknown): Middleware<RequestState> => m as Middleware<RequestState>;
  const cache = deps.responseCache ?? null;
  const middleware: Middleware<RequestState>[] = [
    // Outermost: the models a request wrote are purged once it has finished, before its answer is sent.
    ...(cache ? [(_ctx: unknown, next: () => Promise<unknown>) => cache.around(next)] : []),
    requestId(log, config.trustProxy),
    errorMapper(dialect),
    securityHeaders(),
    corsAllowlist(config.corsOrigins),
    routed(health.routes()),
    // Providers with their own addresses (S3) are fetched there; /uploads/ serves local disk only.
    ...(storage.url ? [] : [serveUploads(db, media, storage)]),
    routed(docs.routes()),
    ...jsonBody(config.bodyMaxBytes, routeBodyLimits(plugins.flatMap((p) => p.bodyLimits?.(pluginDeps) ?? []))),
    routed(api.routes()),
    routed(api.allowedMethods(allowed)),
    ...(realtime ? [routed(realtime.routes()), routed(realtime.allowedMethods(allowed))] : []),
    authenticate(authenticator),
    forModelPaths(registry, callerGate(config.callerGate, outageOf(dialect))),
    forModelPaths(registry, answerBuffer(new AnswerBuffer(config.answerBufferMaxBytes))),
    forModelPaths(registry, routed(drafts.routes())),
    forModelPaths(registry, routed(records.routes())),
    forModelPaths(registry, routed(records.allowedMethods(allowed))),
  ];
  for (const m of middleware) app.use(m);
  // Errors Koa sees outside the middleware chain (a client that went away, a request cut off by the
  // HTTP timeouts): one log line, not a stack on stderr; the error mapper has answered the rest.
  app.silent = true;
  app.on('error', (err: unknown) => {
    const e = err as { code?: unknown; message?: unknown };
    log.warn({ code: e.code, reason: String(e.message) }, 'request stream error');
  });
  return app;
}
