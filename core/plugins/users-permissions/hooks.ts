/**
 * The identity plugin's part of every record write to `user` (issue 15 lifecycle hooks), whatever the
 * path (JSON or multipart, PATCH or PUT, single or bulk): the identity keys go into the write's own
 * INSERT/UPDATE (user-keys.ts), a new account named without `roles` gets the default role (CONTRACT:
 * `authenticated`), a changed e-mail or mobile is no longer verified, a deactivation or a new (or
 * cleared) password ends the account's sessions, and a write that makes a pending OTP registration an
 * account ends its pending state (service.ts afterUserWrite).
 *
 * A committed write of a user (its roles, its deletion) or of a role (renamed, deleted, recovered)
 * changes who the signed-in callers are: their cached actors (authenticate.ts) go at once, before the
 * write answers, so the writer's next request and every caller's see it (read-your-writes); other
 * processes drop a user's through the revocation bus (Redis), or within the cache's 0.5 s.
 */
import { eventActor, type LifecycleHooks } from '../../plugin-api';
import type { Runtime } from './runtime';
import { builtInRoles } from './built-in-roles';
import { AUTHENTICATED } from './seed';
import type { UserRow } from './store';
import { putIdentityKeys, unverifyChanged } from './user-keys';

export function identityHooks(r: Runtime): LifecycleHooks[] {
  const forgetUser = (id: number): void => {
    r.authenticator.forget([], id);
    r.bus?.publish([], id);
  };
  const forgetEveryone = (): void => r.authenticator.forgetAll();
  return [users(r, forgetUser), { models: ['role'], afterUpdate: forgetEveryone, afterDelete: forgetEveryone, afterRecover: forgetEveryone }, builtInRoles(r.store)];
}

function users(r: Runtime, forgetUser: (id: number) => void): LifecycleHooks {
  return {
    models: ['user'],
    async beforeCreate(ctx) {
      await putIdentityKeys(r.store, ctx.trx, ctx.data, null, true);
      // CONTRACT: authenticated is the default role of new users; `roles: []` names none on purpose
      if (!('roles' in ctx.data)) {
        const id = (await r.store.roleIds([AUTHENTICATED], ctx.trx)).get(AUTHENTICATED);
        if (id !== undefined) ctx.data.roles = [id];
      }
    },
    // Read in the write's transaction (on SQLite another connection would wait for it).
    async beforeUpdate(ctx) {
      if (ctx.id === null) return;
      const u = await r.store.userById(ctx.id, ctx.trx);
      if (!u) return;
      ctx.state.before = u;
      unverifyChanged(ctx.data, u);
      await putIdentityKeys(r.store, ctx.trx, ctx.data, ctx.id, ctx.mode === 'put');
    },
    async afterUpdate(ctx) {
      forgetUser(ctx.id);
      const before = ctx.state.before as UserRow | undefined;
      if (before) await r.service.afterUserWrite(ctx.id, before, eventActor(ctx.actor));
    },
    afterDelete: (ctx) => forgetUser(ctx.id),
    afterRecover: (ctx) => forgetUser(ctx.id),
  };
}
