/**
 * Issue 14: `POST /api/{model}/{id}/publish`, `/{id}/unpublish`, `/publish/bulk`, `/unpublish/bulk`
 * (bulk: a JSON array of ids, one transaction). Guarded by `<model>.publish`; a model without
 * `draftAndPublish` answers 404.
 */
import Router from '@koa/router';
import { NotFoundError } from '../errors/errors';
import type { RequestState } from '../http/state';
import type { Authorizer } from '../plugin-api';
import { type RecordContext, type RecordController, requirePermission } from '../records/controller';
import type { Registry } from '../registry/types';
import { checkWriteParams } from '../records/write-params';

export const DRAFT_ROUTES = [
  { path: '/publish/bulk', bulk: true, unpublish: false },
  { path: '/unpublish/bulk', bulk: true, unpublish: true },
  { path: '/:id/publish', bulk: false, unpublish: false },
  { path: '/:id/unpublish', bulk: false, unpublish: true },
] as const;

export function draftRouter(registry: Registry, controller: RecordController, authorizer: Authorizer | null): Router<RequestState> {
  const models = new Map(registry.contentTypes.filter((m) => m.api).map((m) => [m.name, m] as const));
  const router = new Router<RequestState>({ prefix: '/api' });
  for (const r of DRAFT_ROUTES) {
    router.post(`/:model${r.path}`, async (ctx) => {
      const c = ctx as unknown as RecordContext;
      const model = models.get(c.params.model);
      if (!model || model.draftAndPublish !== true) throw new NotFoundError(model ? `${model.name} has no draft & publish (YAML draftAndPublish: true)` : 'not found');
      await requirePermission(authorizer, c, model.name, 'publish');
      await c.state.readBody(); // after the permission check, as on every record route
      checkWriteParams(c.query, ['locale'], model);
      await controller.publish(c, model, r.bulk, r.unpublish);
    });
  }
  return router;
}
