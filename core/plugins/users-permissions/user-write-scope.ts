/**
 * Who may write an existing account through /api/user (issue 13 item 12). Roles need user.assignRoles;
 * but the account's password, e-mail, mobile and flags are as good as its roles: a caller who sets an
 * admin's password (or e-mail, then resets it) signs in as that admin. So without user.assignRoles a
 * caller may write only accounts holding no permission the caller lacks (never an admin's, unless an
 * admin). With user.assignRoles the caller could give itself any role anyway, so nothing more is checked.
 */
import { ForbiddenError } from '../../errors/errors';
import type { Actor, Authorizer } from '../../plugin-api';
import { ADMIN } from './seed';
import type { IdentityStore } from './store';

/** For a caller who holds user.update (routes.ts checks it; without it the core refuses the write itself). */
export async function checkUserWriteScope(actor: Actor | null, targetId: number, store: IdentityStore, authorizer: Authorizer): Promise<void> {
  if (!actor) return;
  if (await authorizer.can(actor, 'user', 'assignRoles')) return;
  const roles = await store.rolesOf(targetId);
  const refuse = (what: string): never => {
    throw new ForbiddenError(`missing permission user.assignRoles (to write user ${targetId}, who holds ${what} you do not: that account's password or e-mail would give it to you)`);
  };
  if (roles.includes(ADMIN) && !actor.roles.includes(ADMIN)) refuse('the admin role');
  for (const permission of await store.permissionsOf(roles)) {
    const dot = permission.indexOf('.');
    if (!(await authorizer.can(actor, permission.slice(0, dot), permission.slice(dot + 1)))) refuse(`${permission}`);
  }
}
