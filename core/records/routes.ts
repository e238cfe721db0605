/** Registry → @koa/router routes: the ten record endpoints of spec 4.3 for every model. */
import Router from '@koa/router';
import type { Middleware } from 'koa';
import type { RequestState } from '../http/state';
import type { Authorizer, RecordAction } from '../plugin-api';
import { NotFoundError } from '../errors/errors';
import type { Registry } from '../registry/types';
import { type RecordContext, type RecordController, requirePermission } from './controller';
import { checkWriteParams } from './write-params';

interface RouteSpec {
  readonly method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  readonly path: string;
  readonly action: RecordAction;
  readonly handle: (c: RecordController, ctx: RecordContext, model: Parameters<RecordController['find']>[1]) => Promise<void>;
  /** Only models with `i18n: true` have it (issue 14); others answer 404 there. */
  readonly i18nOnly?: boolean;
  /** A write's query parameters (write-params.ts); reads check theirs in the controller. */
  readonly params?: readonly string[];
}

/** Order matters: `/bulk` and `/recover/…` before `/:id`. */
export const RECORD_ROUTES: readonly RouteSpec[] = [
  { method: 'get', path: '', action: 'find', handle: (c, ctx, m) => c.find(ctx, m) },
  { method: 'post', path: '/bulk', action: 'create', handle: (c, ctx, m) => c.createMany(ctx, m), params: ['locale', 'status'] },
  { method: 'delete', path: '/bulk', action: 'delete', handle: (c, ctx, m) => c.removeMany(ctx, m), params: ['locale'] },
  { method: 'post', path: '/recover/bulk', action: 'recover', handle: (c, ctx, m) => c.recoverMany(ctx, m), params: ['locale'] },
  { method: 'post', path: '/recover/:id', action: 'recover', handle: (c, ctx, m) => c.recover(ctx, m), params: ['locale'] },
  // issue 14: the entry in another locale (models with i18n: true; 404 for others); status= answers its own 400
  { method: 'post', path: '/:id/localizations', action: 'create', handle: (c, ctx, m) => c.createLocalization(ctx, m), i18nOnly: true, params: ['locale', 'status'] },
  { method: 'get', path: '/:id', action: 'findOne', handle: (c, ctx, m) => c.findOne(ctx, m) },
  { method: 'post', path: '', action: 'create', handle: (c, ctx, m) => c.create(ctx, m), params: ['locale', 'status'] },
  { method: 'put', path: '/:id', action: 'update', handle: (c, ctx, m) => c.update(ctx, m, 'put'), params: ['locale'] },
  { method: 'patch', path: '/:id', action: 'update', handle: (c, ctx, m) => c.update(ctx, m, 'patch'), params: ['locale'] },
  { method: 'delete', path: '/:id', action: 'delete', handle: (c, ctx, m) => c.remove(ctx, m), params: ['locale'] },
];

/**
 * The ten routes once, with the model as a path parameter: matching costs the same however many models
 * the registry holds. A path whose first segment names no model with an API is not this router's: it
 * falls through to the app's 404, whatever its method.
 */
export function recordRouter(registry: Registry, controller: RecordController, authorizer: Authorizer | null): Router<RequestState> {
  const models = new Map(registry.contentTypes.filter((m) => m.api).map((m) => [m.name, m] as const));
  const router = new Router<RequestState>({ prefix: '/api' });
  for (const r of RECORD_ROUTES) {
    router[r.method](`/:model${r.path}`, async (ctx) => {
      const c = ctx as unknown as RecordContext;
      const model = models.get(c.params.model);
      if (!model || (r.i18nOnly && !model.i18n)) throw new NotFoundError('not found');
      await requirePermission(authorizer, c, model.name, r.action);
      // Only now is the body read: an anonymous or unpermitted write is answered without it (README: Limits).
      if (r.method !== 'get') await c.state.readBody();
      if (r.params) checkWriteParams(c.query, r.params, model);
      await r.handle(controller, c, model);
    });
  }
  return router;
}

/** Runs `m` (the record router or its allowedMethods) only for `/api/<model with an API>[/…]`. */
export function forModelPaths(registry: Registry, m: Middleware<RequestState>): Middleware<RequestState> {
  const names = new Set(registry.contentTypes.filter((c) => c.api).map((c) => c.name));
  return (ctx, next) => {
    const [, api, model] = ctx.path.split('/', 3);
    return api === 'api' && names.has(model) ? m(ctx, next) : next();
  };
}
