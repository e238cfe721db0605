/**
 * A caller's cache scope under row-level rules (issue 16). Rules come from the roles (or the API token)
 * the scope's key already names, so callers with the same key share rules; but the rules' variables are
 * substituted per request: a rule naming `$actor.id` makes the answers of the models it guards per user
 * (the key gains the user id), and one naming `$now` / `$today` makes them per instant (never cached).
 */
import type { Actor, AccessScope } from '../plugin-api';
import type { CacheScope } from './response-cache';

/** What the read's rules are asked for: every model the read touches, for each read action it applied. */
interface RuleSource {
  scope(model: string, action: string): AccessScope | null;
}

/** `actions`: the rules the read applied (a `status=draft` read: the `findDrafts` rules too, issue 14). */
export function ruledScope(scope: CacheScope | null, rules: RuleSource | undefined, actor: Actor | null, models: readonly string[], actions: readonly string[] = ['find', 'findOne']): CacheScope | null {
  if (!scope || !rules) return scope;
  let perActor = false;
  for (const model of models) {
    for (const action of actions) {
      const varies = rules.scope(model, action)?.varies ?? [];
      if (varies.includes('now')) return null;
      if (varies.includes('actor')) perActor = true;
    }
  }
  return perActor ? { key: `${scope.key}|actor:${actor?.id ?? 0}`, models: scope.models } : scope;
}
