/**
 * The identity plugin's part of every record write to `user` (issue 15 lifecycle hooks), whatever the
 * path (JSON or multipart, PATCH or PUT, single or bulk): accounts get their identity keys, and a
 * deactivation or a new (or cleared) password ends the account's sessions. It used to watch the
 * /api/user routes from its router and compare before/after around the core's handler.
 */
import type { LifecycleHooks } from '../../plugin-api';
import type { Runtime } from './runtime';
import { syncIdentityKeys } from './user-keys';

interface Credentials {
  readonly passwordHash: string | null;
  readonly active: boolean;
}

export function identityHooks(r: Runtime): LifecycleHooks {
  return {
    models: ['user'],
    async afterCreate(ctx) {
      await syncIdentityKeys(r.store, [ctx.id]);
    },
    // Read in the write's transaction (on SQLite another connection would wait for it).
    async beforeUpdate(ctx) {
      if (ctx.id === null) return;
      const u = await r.store.userById(ctx.id, ctx.trx);
      if (u) ctx.state.credentials = { passwordHash: u.passwordHash, active: u.active } satisfies Credentials;
    },
    async afterUpdate(ctx) {
      await syncIdentityKeys(r.store, [ctx.id]);
      const before = ctx.state.credentials as Credentials | undefined;
      if (before) await r.service.afterUserWrite(ctx.id, before);
    },
  };
}
