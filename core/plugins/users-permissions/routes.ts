/** /api/iam/* wiring only (spec 4.1, 4.2). These routes run before the core's authenticate step. */
import type Router from '@koa/router';
import type { Context } from 'koa';
import { UnauthorizedError } from '../../errors/errors';
import type { Actor, Authorizer } from '../../plugin-api';
import type { IdentityAuthenticator } from './authenticate';
import type { IdentityService } from './service';
import type { IdentityStore } from './store';
import { checkIdentifiersFree, syncIdentityKeys } from './user-keys';
import { checkUserWriteScope } from './user-write-scope';

type Ctx = Context & { state: { clientIp: string; actor: Actor | null } };
const bodyOf = (ctx: Ctx): unknown => (ctx.request as { body?: unknown }).body;

async function bearer(ctx: Ctx, auth: IdentityAuthenticator): Promise<{ actor: Actor; token: string }> {
  const header = ctx.get('Authorization');
  const actor = await auth.authenticate(header || undefined);
  if (!actor) throw new UnauthorizedError('authentication required: send Authorization: Bearer <access token>');
  ctx.state.actor = actor;
  return { actor, token: header.replace(/^Bearer\s+/i, '').trim() };
}

export function identityRoutes<S>(router: Router<S>, service: IdentityService, auth: IdentityAuthenticator, scope: { store: IdentityStore; authorizer: Authorizer }): void {
  const post = (path: string, handle: (ctx: Ctx) => Promise<unknown>): void => {
    router.post(path, async (c) => {
      const ctx = c as unknown as Ctx;
      ctx.body = await handle(ctx);
    });
  };
  post('/api/iam/register', (ctx) => service.register(bodyOf(ctx), ctx.state.clientIp));
  post('/api/iam/authenticate', (ctx) => service.authenticate(bodyOf(ctx), ctx.state.clientIp));
  post('/api/iam/refresh-tokens', (ctx) => service.refresh(bodyOf(ctx), ctx.state.clientIp));
  post('/api/iam/initiate/forgot-password', (ctx) => service.initiateForgotPassword(bodyOf(ctx), ctx.state.clientIp));
  post('/api/iam/confirm/forgot-password', (ctx) => service.confirmForgotPassword(bodyOf(ctx), ctx.state.clientIp));
  post('/api/iam/change-password', async (ctx) => service.changePassword((await bearer(ctx, auth)).actor, bodyOf(ctx)));
  post('/api/iam/logout', (ctx) => service.logout(bodyOf(ctx)));
  post('/api/iam/otp/register/initiate', (ctx) => service.otpRegisterInitiate(bodyOf(ctx), ctx.state.clientIp));
  post('/api/iam/otp/register/confirm', (ctx) => service.otpRegisterConfirm(bodyOf(ctx), ctx.state.clientIp));
  post('/api/iam/otp/login/initiate', (ctx) => service.otpLoginInitiate(bodyOf(ctx), ctx.state.clientIp));
  post('/api/iam/otp/login/confirm', (ctx) => service.otpLoginConfirm(bodyOf(ctx), ctx.state.clientIp));
  // The record API writes users too (the core's generic controller, after this router; JSON or
  // multipart, PATCH or PUT): once it has answered 200, a user it left inactive, or whose password
  // hash it changed (set, or cleared by a PUT without one), loses every session. The state is
  // compared before and after rather than the body read, because a multipart body is parsed only by
  // the core and a PUT changes what it omits.
  for (const method of ['patch', 'put'] as const) {
    router[method]('/api/user/:id', async (c, next) => {
      const ctx = c as unknown as Ctx;
      const id = /^[1-9]\d{0,15}$/.test(c.params.id ?? '') ? Number(c.params.id) : null;
      const before = id === null ? undefined : await service.credentialsOf(id);
      const actor = id !== null && before ? await auth.authenticate(ctx.get('Authorization') || undefined) : null;
      // Only for callers the core will let write: to anyone else a 409 would tell which names exist.
      if (id !== null && actor && (await scope.authorizer.can(actor, 'user', 'update'))) {
        await checkUserWriteScope(actor, id, scope.store, scope.authorizer);
        await checkIdentifiersFree(scope.store, bodyOf(ctx), id);
      }
      await next();
      if (id !== null && before && ctx.status === 200) {
        await syncIdentityKeys(scope.store, [id]);
        await service.afterUserWrite(id, before);
      }
    });
  }
  // Accounts the record API creates get their identity keys too (see user-keys.ts).
  for (const path of ['/api/user', '/api/user/bulk']) {
    router.post(path, async (c, next) => {
      const ctx = c as unknown as Ctx;
      const actor = await auth.authenticate(ctx.get('Authorization') || undefined);
      if (actor && (await scope.authorizer.can(actor, 'user', 'create'))) await checkIdentifiersFree(scope.store, bodyOf(ctx), null);
      await next();
      if (ctx.status === 200) await syncIdentityKeys(scope.store, []);
    });
  }
  router.get('/api/iam/me', async (c) => {
    const ctx = c as unknown as Ctx;
    const { actor, token } = await bearer(ctx, auth);
    ctx.body = service.me(actor, token);
  });
}
