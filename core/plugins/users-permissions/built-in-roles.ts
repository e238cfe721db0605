/**
 * The seeded roles (`admin`, `authenticated`, `public`; seed.ts) stay as they are named: deleting `admin`
 * through /api/role locked every admin out for good (a restart seeds the role again, not its members),
 * and deleting `authenticated` made every registration fail and took its grants from every user.
 * Their permissions and descriptions may change like any role's; deleting or renaming one answers 409.
 */
import { ConflictError } from '../../errors/errors';
import type { BeforeContext, LifecycleHooks } from '../../plugin-api';
import { ADMIN, AUTHENTICATED, PUBLIC } from './seed';
import type { IdentityStore } from './store';

export const BUILT_IN_ROLES: ReadonlySet<string> = new Set([ADMIN, AUTHENTICATED, PUBLIC]);

function refused(name: string, what: 'deleted' | 'renamed'): ConflictError {
  return new ConflictError(`the role "${name}" is built in and cannot be ${what}; change its permissions instead, or make a role of your own`, { reason: 'builtInRole', role: name });
}

export function builtInRoles(store: IdentityStore): LifecycleHooks {
  const nameOf = async (ctx: BeforeContext): Promise<string | null> => {
    if (ctx.id === null) return null;
    const row = (await ctx.trx(store.roles).where('id', ctx.id).first('name')) as { name: string } | undefined;
    return row && BUILT_IN_ROLES.has(row.name) ? row.name : null;
  };
  return {
    models: ['role'],
    async beforeDelete(ctx) {
      const name = await nameOf(ctx);
      if (name) throw refused(name, 'deleted');
    },
    async beforeUpdate(ctx) {
      if (!('name' in ctx.data)) return;
      const name = await nameOf(ctx);
      if (name && ctx.data.name !== name) throw refused(name, 'renamed');
    },
  };
}
