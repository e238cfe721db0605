/** Registry → @koa/router routes: the ten record endpoints of spec 4.3 for every model. */
import Router from '@koa/router';
import type { RequestState } from '../http/state';
import type { Authorizer, RecordAction } from '../plugin-api';
import type { Registry } from '../registry/types';
import { type RecordContext, type RecordController, requirePermission } from './controller';

interface RouteSpec {
  readonly method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  readonly path: string;
  readonly action: RecordAction;
  readonly handle: (c: RecordController, ctx: RecordContext, model: Parameters<RecordController['find']>[1]) => Promise<void>;
}

/** Order matters: `/bulk` and `/recover/…` before `/:id`. */
export const RECORD_ROUTES: readonly RouteSpec[] = [
  { method: 'get', path: '', action: 'find', handle: (c, ctx, m) => c.find(ctx, m) },
  { method: 'post', path: '/bulk', action: 'create', handle: (c, ctx, m) => c.createMany(ctx, m) },
  { method: 'delete', path: '/bulk', action: 'delete', handle: (c, ctx, m) => c.removeMany(ctx, m) },
  { method: 'post', path: '/recover/bulk', action: 'recover', handle: (c, ctx, m) => c.recoverMany(ctx, m) },
  { method: 'post', path: '/recover/:id', action: 'recover', handle: (c, ctx, m) => c.recover(ctx, m) },
  { method: 'get', path: '/:id', action: 'findOne', handle: (c, ctx, m) => c.findOne(ctx, m) },
  { method: 'post', path: '', action: 'create', handle: (c, ctx, m) => c.create(ctx, m) },
  { method: 'put', path: '/:id', action: 'update', handle: (c, ctx, m) => c.update(ctx, m, 'put') },
  { method: 'patch', path: '/:id', action: 'update', handle: (c, ctx, m) => c.update(ctx, m, 'patch') },
  { method: 'delete', path: '/:id', action: 'delete', handle: (c, ctx, m) => c.remove(ctx, m) },
];

export function recordRouter(registry: Registry, controller: RecordController, authorizer: Authorizer | null): Router<RequestState> {
  const router = new Router<RequestState>({ prefix: '/api' });
  for (const model of registry.contentTypes) {
    if (!model.api) continue; // `api: false`: tables and migrations only, no REST routes
    for (const r of RECORD_ROUTES) {
      router[r.method](`/${model.name}${r.path}`, async (ctx) => {
        const c = ctx as unknown as RecordContext;
        await requirePermission(authorizer, c, model.name, r.action);
        await r.handle(controller, c, model);
      });
    }
  }
  return router;
}
