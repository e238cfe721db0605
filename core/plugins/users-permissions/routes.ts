/**
 * /api/iam/* wiring only (spec 4.1, 4.2). These routes run before the core's authenticate step. No route
 * reads the body before it knows the caller may send one: a route that needs a token checks it first; a
 * public one counts the caller's address (service.admit) and reads at most IAM_BODY_MAX_BYTES.
 */
import type Router from '@koa/router';
import type { Context } from 'koa';
import { BadRequestError, ForbiddenError, NotFoundError, UnauthorizedError } from '../../errors/errors';
import { type Actor, type BodyLimit, eventActor, type PluginDeps, type RequestState } from '../../plugin-api';
import { type AccessRuleStore, checkRuleInput, type RuleInput } from './access-rules';
import type { ApiTokens } from './api-tokens';
import type { IdentityAuthenticator } from './authenticate';
import type { IdentityAuthorizer } from './authorize';
import type { Bucket } from './rate-limit';
import type { IdentityService } from './service';
import type { IdentityStore } from './store';
import { type PublicBodyPath, publicBodyLimit } from './public-body';
import { checkUserWriteScope } from './user-write-scope';

type Ctx = Context & { state: Pick<RequestState, 'clientIp' | 'actor' | 'readBody'> };
/** The JSON body, read now (once per request; core/http/body.ts): call it only once the caller may send one. */
const bodyOf = (ctx: Ctx, limit?: BodyLimit): Promise<unknown> => ctx.state.readBody(limit);

/**
 * /api/iam is for people: an API token reaches none of it (me, change-password, logout, token management).
 * Refused before anything else reads the body, whether or not the token is valid.
 */
function refuseApiToken(ctx: Ctx, apiTokens: ApiTokens): void {
  const m = /^Bearer\s+(\S+)/i.exec(ctx.get('Authorization'));
  if (m && apiTokens.owns(m[1])) throw new ForbiddenError('an API token cannot use /api/iam (account endpoints and API token management): sign in as a user');
}

async function bearer(ctx: Ctx, auth: IdentityAuthenticator): Promise<{ actor: Actor; token: string }> {
  const header = ctx.get('Authorization');
  const actor = await auth.authenticate(header || undefined);
  if (!actor) throw new UnauthorizedError('authentication required: send Authorization: Bearer <access token>');
  ctx.state.actor = actor;
  return { actor, token: header.replace(/^Bearer\s+/i, '').trim() };
}

/**
 * Whose rule (issue 16): exactly one of `roleId` and `apiTokenId`; a token's rules are for kind custom
 * only (read-only and full-access tokens hold their permissions whole, and a listed permission wins).
 */
async function checkRuleOwner(b: Record<string, unknown>, at: string, apiTokens: ApiTokens): Promise<void> {
  const name = (k: string): string => (at ? `${at}.${k}` : k);
  const role = b.roleId ?? null;
  const token = b.apiTokenId ?? null;
  if ((role === null) === (token === null)) throw new BadRequestError(`${name('roleId')}: an access rule belongs to a role (roleId) or to an API token (apiTokenId): give exactly one`, { parameter: name('roleId') });
  if (token !== null) {
    const kind = typeof token === 'number' ? await apiTokens.kindOf(token) : null;
    if (kind !== 'custom') throw new BadRequestError(`${name('apiTokenId')}: access rules apply to API tokens of kind custom${kind ? ` (token ${String(token)} is ${kind})` : ''}`, { parameter: name('apiTokenId') });
  }
}

export interface IdentityRouteDeps {
  readonly service: IdentityService;
  readonly auth: IdentityAuthenticator;
  readonly authorizer: IdentityAuthorizer;
  readonly apiTokens: ApiTokens;
  readonly store: IdentityStore;
  /** The access-rule checks (issue 16): the registry and the rule table. */
  readonly rules?: { readonly registry: PluginDeps['registry']; readonly store: AccessRuleStore };
  /** IAM_BODY_MAX_BYTES: the largest body a public endpoint reads. */
  readonly publicBodyMaxBytes: number;
}

const tokenId = (ctx: Ctx & { params?: Record<string, string> }): number => {
  const raw = ctx.params?.id ?? '';
  if (!/^[1-9]\d{0,15}$/.test(raw)) throw new NotFoundError(`no API token ${raw}`);
  return Number(raw);
};

export function identityRoutes<S>(router: Router<S>, { service, auth, authorizer, apiTokens, store, rules, publicBodyMaxBytes }: IdentityRouteDeps): void {
  const route = (method: 'get' | 'post' | 'patch' | 'delete', path: string, handle: (ctx: Ctx) => Promise<unknown>): void => {
    router[method](path, async (c) => {
      const ctx = c as unknown as Ctx;
      refuseApiToken(ctx, apiTokens);
      ctx.body = await handle(ctx);
    });
  };
  const post = (path: string, handle: (ctx: Ctx) => Promise<unknown>): void => route('post', path, handle);
  /** Token management: admins only (the check is `api-token.manage`, which no role but admin holds). */
  const admin = async (ctx: Ctx): Promise<Actor> => {
    const { actor } = await bearer(ctx, auth);
    if (!(await authorizer.can(actor, 'api-token', 'manage'))) throw new ForbiddenError('only admins manage API tokens (api-token.manage)');
    return actor;
  };
  /**
   * An endpoint that takes no token: the address is counted (429) before the body is read, and the body
   * is read up to IAM_BODY_MAX_BYTES (413 naming it), so a flood of large or invalid bodies from one
   * address is refused before anything parses it.
   */
  const publicLimit = publicBodyLimit(publicBodyMaxBytes);
  const open = (path: PublicBodyPath, bucket: Bucket, handle: (body: unknown) => Promise<unknown>): void =>
    post(path, async (ctx) => {
      await service.admit(bucket, ctx.state.clientIp);
      return handle(await bodyOf(ctx, publicLimit));
    });
  open('/api/iam/register', 'register', (b) => service.register(b));
  open('/api/iam/authenticate', 'authenticate', (b) => service.authenticate(b));
  open('/api/iam/refresh-tokens', 'refresh', (b) => service.refresh(b));
  open('/api/iam/initiate/forgot-password', 'forgot-password', (b) => service.initiateForgotPassword(b));
  open('/api/iam/confirm/forgot-password', 'forgot-password', (b) => service.confirmForgotPassword(b));
  open('/api/iam/logout', 'logout', (b) => service.logout(b));
  open('/api/iam/otp/register/initiate', 'otp', (b) => service.otpRegisterInitiate(b));
  open('/api/iam/otp/register/confirm', 'otp', (b) => service.otpRegisterConfirm(b));
  open('/api/iam/otp/login/initiate', 'otp', (b) => service.otpLoginInitiate(b));
  open('/api/iam/otp/login/confirm', 'otp', (b) => service.otpLoginConfirm(b));
  post('/api/iam/change-password', async (ctx) => {
    const { actor } = await bearer(ctx, auth);
    return service.changePassword(actor, await bodyOf(ctx));
  });
  // The record API writes users too (the core's generic controller, after this router; JSON or
  // multipart, PATCH or PUT). Before it runs: who may write which account (for callers the core will
  // let write). Taken identifiers, the identity keys, the default role and the sessions a deactivation or
  // a new password ends are the plugin's lifecycle hooks (hooks.ts), inside the core's write.
  for (const method of ['patch', 'put'] as const) {
    router[method]('/api/user/:id', async (c, next) => {
      const ctx = c as unknown as Ctx;
      const id = /^[1-9]\d{0,15}$/.test(c.params.id ?? '') ? Number(c.params.id) : null;
      const exists = id !== null && (await store.userById(id)) !== undefined;
      const actor = exists ? await auth.authenticate(ctx.get('Authorization') || undefined) : null;
      if (id !== null && actor && (await authorizer.can(actor, 'user', 'update'))) await checkUserWriteScope(actor, id, store, authorizer);
      await next();
    });
  }
  // Access rules (issue 16) are checked when saved, as Find checks `filters` (400 with Find's messages),
  // for callers the core will let write them; a saved change reaches this node's authorizer at once
  // (other nodes within its cache lifetime, CACHE_TTL_MS).
  if (rules) {
    const check = async (ctx: Ctx, action: 'create' | 'update', next: () => Promise<unknown>, bodies: (body: unknown) => Promise<unknown[]>): Promise<void> => {
      const actor = await auth.authenticate(ctx.get('Authorization') || undefined);
      if (actor && !actor.apiToken && (await authorizer.can(actor, 'access-rule', action))) {
        const body = await bodyOf(ctx);
        const list = await bodies(body);
        const many = list.length > 1 || Array.isArray(body);
        for (const [i, b] of list.entries()) {
          if (typeof b !== 'object' || b === null || Array.isArray(b)) continue;
          const at = many ? `item ${i}` : '';
          checkRuleInput(rules, b as RuleInput, at);
          await checkRuleOwner(b as Record<string, unknown>, at, apiTokens);
        }
      }
      await next();
      if (ctx.status === 200) authorizer.invalidate();
    };
    router.post('/api/access-rule', (c, next) => check(c as unknown as Ctx, 'create', next, async (b) => [b]));
    router.post('/api/access-rule/bulk', (c, next) => check(c as unknown as Ctx, 'create', next, async (b) => (Array.isArray(b) ? b : [])));
    router.put('/api/access-rule/:id', (c, next) => check(c as unknown as Ctx, 'update', next, async (b) => [b]));
    router.patch('/api/access-rule/:id', (c, next) =>
      check(c as unknown as Ctx, 'update', next, async (b) => {
        const id = /^[1-9]\d{0,9}$/.test(c.params.id ?? '') ? Number(c.params.id) : null;
        const stored = id === null ? undefined : await rules.store.input(id);
        const owner = id === null ? undefined : await rules.store.owner(id);
        if (!stored || !owner || typeof b !== 'object' || b === null || Array.isArray(b)) return [];
        return [{ ...stored, ...owner, ...(b as Record<string, unknown>) }];
      }),
    );
    for (const path of ['/api/access-rule/:id', '/api/access-rule/bulk', '/api/role/:id', '/api/role/bulk']) {
      router.delete(path, async (c, next) => {
        await next();
        if (c.status === 200) authorizer.invalidate();
      });
    }
    for (const method of ['put', 'patch'] as const) {
      router[method]('/api/role/:id', async (c, next) => {
        await next();
        if (c.status === 200) authorizer.invalidate();
      });
    }
  }
  route('get', '/api/iam/me', async (ctx) => {
    const { actor, token } = await bearer(ctx, auth);
    return service.me(actor, token);
  });
  route('get', '/api/iam/api-tokens', async (ctx) => {
    await admin(ctx);
    return { data: await apiTokens.list() };
  });
  route('post', '/api/iam/api-tokens', async (ctx) => {
    const actor = await admin(ctx);
    return { data: await apiTokens.create(await bodyOf(ctx), actor.id) };
  });
  route('patch', '/api/iam/api-tokens/:id', async (ctx) => {
    const actor = await admin(ctx);
    return { data: await apiTokens.update(tokenId(ctx), await bodyOf(ctx), actor.id) };
  });
  route('post', '/api/iam/api-tokens/:id/regenerate', async (ctx) => {
    const actor = await admin(ctx);
    return { data: await apiTokens.regenerate(tokenId(ctx), actor.id) };
  });
  route('delete', '/api/iam/api-tokens/:id', async (ctx) => {
    const actor = await admin(ctx);
    return { data: await apiTokens.revoke(tokenId(ctx), eventActor(actor)) };
  });
}
