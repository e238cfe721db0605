/**
 * `<model>.<action>` checks (Authorizer, CONTRACT: Roles and permissions): admin may do everything,
 * a request without a token acts as `public`, others by the union of their roles' permissions, an API
 * token by its own permissions (api-tokens.ts).
 * Role → permissions is cached for at most CACHE_TTL_MS; concurrent misses of one role share one query.
 */
import type { AccessView, Actor, Authorizer } from '../../plugin-api';
import { type AccessRuleStore, type StoredRule, viewOf } from './access-rules';
import type { ApiTokens } from './api-tokens';
import { CACHE_TTL_MS } from './authenticate';
import { ADMIN, PUBLIC } from './seed';
import type { IdentityStore } from './store';

interface RoleGrants {
  /** Plain grants (role.permissions): unrestricted. */
  readonly perms: Set<string>;
  /** Access rules (issue 16): the permission on some rows / fields only. */
  readonly rules: readonly StoredRule[];
  /** `perms` ∪ the rules' permissions: what `can` answers from. */
  readonly held: Set<string>;
}

export class IdentityAuthorizer implements Authorizer {
  private readonly cache = new Map<string, { perms: RoleGrants; until: number }>();
  private readonly inFlight = new Map<string, Promise<RoleGrants>>();
  /** Moves on every `invalidate`: a query begun before it must not cache what it read. */
  private generation = 0;

  constructor(
    private readonly store: IdentityStore,
    private readonly apiTokens: ApiTokens | null = null,
    private readonly rules: AccessRuleStore | null = null,
  ) {}

  invalidate(): void {
    this.generation++;
    this.cache.clear();
    this.inFlight.clear();
  }

  private async load(role: string): Promise<RoleGrants> {
    const [perms, rules] = await Promise.all([this.store.permissionsOf([role]), this.rules ? this.rules.rulesOf([role]) : Promise.resolve([])]);
    return { perms, rules, held: new Set([...perms, ...rules.map((r) => r.action)]) };
  }

  private async permissionsOf(role: string): Promise<RoleGrants> {
    const hit = this.cache.get(role);
    if (hit && hit.until > Date.now()) return hit.perms;
    let query = this.inFlight.get(role);
    if (!query) {
      const generation = this.generation;
      query = this.load(role).then((perms) => {
        if (generation === this.generation) this.cache.set(role, { perms, until: Date.now() + CACHE_TTL_MS });
        return perms;
      });
      const started: Promise<RoleGrants> = query.finally(() => {
        if (this.inFlight.get(role) === started) this.inFlight.delete(role);
      });
      query = started;
      this.inFlight.set(role, query);
    }
    return query;
  }

  /** The access rules of an API token (kind custom), cached like a role's grants under `token:<id>`. */
  private async tokenRules(tokenId: number): Promise<readonly StoredRule[]> {
    if (!this.rules) return [];
    const key = `\u0000token:${tokenId}`;
    const hit = this.cache.get(key);
    if (hit && hit.until > Date.now()) return hit.perms.rules;
    const generation = this.generation;
    const rules = await this.rules.rulesOfToken(tokenId);
    if (generation === this.generation) this.cache.set(key, { perms: { perms: new Set(), rules, held: new Set(rules.map((r) => r.action)) }, until: Date.now() + CACHE_TTL_MS });
    return rules;
  }

  async can(actor: Actor | null, model: string, action: string): Promise<boolean> {
    // An API token answers from its own permissions (and its own access rules), never a role's.
    if (actor?.apiToken) {
      if (this.apiTokens?.allows(actor, model, action)) return true;
      const wanted = `${model}.${action}`;
      return (await this.tokenRules(actor.apiToken.id)).some((r) => r.action === wanted);
    }
    const roles = actor ? actor.roles : [PUBLIC];
    if (roles.includes(ADMIN)) return true;
    const wanted = `${model}.${action}`;
    for (const r of roles) if ((await this.permissionsOf(r)).held.has(wanted)) return true;
    return false;
  }

  /**
   * The caller's row rules and field lists (issue 16): null for admin, API tokens without access rules
   * and callers whose roles hold no rule. Pure in (the roles' grants and rules, the
   * actor's id, `now`).
   */
  async access(actor: Actor | null, now: Date): Promise<AccessView | null> {
    if (actor?.apiToken) {
      // A custom token's listed permissions are unrestricted; its access rules grant the others on some rows / fields.
      const rules = await this.tokenRules(actor.apiToken.id);
      if (rules.length === 0) return null;
      const plain = new Set(
        rules
          .map((r) => r.action)
          .filter((key) => {
            const dot = key.lastIndexOf('.');
            return this.apiTokens?.allows(actor, key.slice(0, dot), key.slice(dot + 1)) ?? false;
          }),
      );
      return viewOf(plain, rules, actor, [], now);
    }
    const roles = actor ? actor.roles : [PUBLIC];
    if (roles.includes(ADMIN)) return null;
    const grants = await Promise.all(roles.map((r) => this.permissionsOf(r)));
    const rules = grants.flatMap((g) => g.rules);
    if (rules.length === 0) return null;
    const plain = new Set(grants.flatMap((g) => [...g.perms]));
    return viewOf(plain, rules, actor, roles, now);
  }

  /**
   * Response cache scope (issue 17): callers with the same roles see the same answers, an API token
   * sees its own; a write to roles, permissions or access rules (or to API tokens, for a token's answers)
   * purges them. Rules naming `$actor.id` or `$now` narrow it further per request (core/cache/ruled-scope.ts).
   */
  cacheScope(actor: Actor | null): { key: string; models: readonly string[] } {
    if (actor?.apiToken) return { key: `token:${actor.apiToken.id}`, models: ['api-token', 'access-rule'] };
    const roles = actor ? [...actor.roles].sort() : [PUBLIC];
    return { key: `roles:${JSON.stringify(roles)}`, models: ['role', 'permission', 'access-rule'] };
  }
}
