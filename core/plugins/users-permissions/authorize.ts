/**
 * `<model>.<action>` checks (Authorizer, CONTRACT: Roles and permissions): admin may do everything,
 * a request without a token acts as `public`, others by the union of their roles' permissions.
 * Role → permissions is cached for at most CACHE_TTL_MS.
 */
import type { Actor, Authorizer, RecordAction } from '../../plugin-api';
import { CACHE_TTL_MS } from './authenticate';
import { ADMIN, PUBLIC } from './seed';
import type { IdentityStore } from './store';

export class IdentityAuthorizer implements Authorizer {
  private readonly cache = new Map<string, { perms: Set<string>; until: number }>();

  constructor(private readonly store: IdentityStore) {}

  invalidate(): void {
    this.cache.clear();
  }

  private async permissionsOf(role: string): Promise<Set<string>> {
    const hit = this.cache.get(role);
    if (hit && hit.until > Date.now()) return hit.perms;
    const perms = await this.store.permissionsOf([role]);
    this.cache.set(role, { perms, until: Date.now() + CACHE_TTL_MS });
    return perms;
  }

  async can(actor: Actor | null, model: string, action: RecordAction): Promise<boolean> {
    const roles = actor ? actor.roles : [PUBLIC];
    if (roles.includes(ADMIN)) return true;
    const wanted = `${model}.${action}`;
    for (const r of roles) if ((await this.permissionsOf(r)).has(wanted)) return true;
    return false;
  }
}
