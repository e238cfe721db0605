/**
 * `<model>.<action>` checks (Authorizer, CONTRACT: Roles and permissions): admin may do everything,
 * a request without a token acts as `public`, others by the union of their roles' permissions, an API
 * token by its own permissions (api-tokens.ts).
 * Role → permissions is cached for at most CACHE_TTL_MS; concurrent misses of one role share one query.
 */
import type { Actor, Authorizer } from '../../plugin-api';
import type { ApiTokens } from './api-tokens';
import { CACHE_TTL_MS } from './authenticate';
import { ADMIN, PUBLIC } from './seed';
import type { IdentityStore } from './store';

export class IdentityAuthorizer implements Authorizer {
  private readonly cache = new Map<string, { perms: Set<string>; until: number }>();
  private readonly inFlight = new Map<string, Promise<Set<string>>>();
  /** Moves on every `invalidate`: a query begun before it must not cache what it read. */
  private generation = 0;

  constructor(private readonly store: IdentityStore, private readonly apiTokens: ApiTokens | null = null) {}

  invalidate(): void {
    this.generation++;
    this.cache.clear();
    this.inFlight.clear();
  }

  private async permissionsOf(role: string): Promise<Set<string>> {
    const hit = this.cache.get(role);
    if (hit && hit.until > Date.now()) return hit.perms;
    let query = this.inFlight.get(role);
    if (!query) {
      const generation = this.generation;
      query = this.store.permissionsOf([role]).then((perms) => {
        if (generation === this.generation) this.cache.set(role, { perms, until: Date.now() + CACHE_TTL_MS });
        return perms;
      });
      const started: Promise<Set<string>> = query.finally(() => {
        if (this.inFlight.get(role) === started) this.inFlight.delete(role);
      });
      query = started;
      this.inFlight.set(role, query);
    }
    return query;
  }

  async can(actor: Actor | null, model: string, action: string): Promise<boolean> {
    // An API token answers from its own permissions, never a role's.
    if (actor?.apiToken) return this.apiTokens?.allows(actor, model, action) ?? false;
    const roles = actor ? actor.roles : [PUBLIC];
    if (roles.includes(ADMIN)) return true;
    const wanted = `${model}.${action}`;
    for (const r of roles) if ((await this.permissionsOf(r)).has(wanted)) return true;
    return false;
  }
}
