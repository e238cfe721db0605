/**
 * A caller's cache scope under row-level rules (issue 16). Rules come from the roles (or the API token)
 * the scope's key already names, but the key gains a fingerprint of the rules the read applied, as this
 * process holds them now (their rows, variables substituted, and their field lists): the grants of a role
 * are cached per process for up to 0.5 s, so just after a rule changed a node may still apply the old
 * one. Its answer (stored with the generations read after the change) must then stay under the old
 * rules' key, never be handed to a caller whose node already applies the new ones. A rule naming
 * `$actor.id` makes the answers of the models it guards per user (its rows name the id, and the key
 * the user), and one naming `$now` / `$today` makes them per instant (never cached).
 */
import { createHash } from 'node:crypto';
import type { Actor, AccessScope } from '../plugin-api';
import { canonicalJson } from './key';
import type { CacheScope } from './response-cache';

/** What the read's rules are asked for: every model the read touches, for each read action it applied. */
interface RuleSource {
  scope(model: string, action: string): AccessScope | null;
}

/** `actions`: the rules the read applied (a `status=draft` read: the `findDrafts` rules too, issue 14). */
export function ruledScope(scope: CacheScope | null, rules: RuleSource | undefined, actor: Actor | null, models: readonly string[], actions: readonly string[] = ['find', 'findOne']): CacheScope | null {
  if (!scope || !rules) return scope;
  let perActor = false;
  const applied: unknown[] = [];
  for (const model of models) {
    for (const action of actions) {
      const s = rules.scope(model, action);
      const varies = s?.varies ?? [];
      if (varies.includes('now')) return null;
      if (varies.includes('actor')) perActor = true;
      if (s) applied.push([model, action, s.rows, s.fields]);
    }
  }
  const rulesKey = createHash('sha256').update(canonicalJson(applied)).digest('base64url');
  return { key: `${scope.key}|rules:${rulesKey}${perActor ? `|actor:${actor?.id ?? 0}` : ''}`, models: scope.models };
}
