/**
 * Row-level rules and field lists (issue 16): the `access-rule` model's rows, read per role, checked
 * when saved, and turned into the AccessView the core compiles into its SQL (plugin-api.ts).
 *
 * - A rule is a Find filter in JSON (`{"createdById":{"$eq":"$actor.id"}}`) with the variables
 *   `$actor.id` (0 for the public role and API tokens: matches no record), `$actor.roles` (a list, for
 *   `$in`), `$now` (ISO date-time, for datetime fields) and `$today` (UTC date, YYYY-MM-DD, for date
 *   fields). A string value equal to a variable is replaced by its value.
 * - Several rules of the caller's roles for one permission combine with OR; a rule without `where`
 *   reaches every row; a plain grant (role.permissions) of the same permission wins over every rule.
 * - Field lists combine as a union; a rule without `fields` covers every field.
 * - A rule belongs to a role or to an API token of kind custom (`apiToken`); a token's listed permissions
 *   are its plain grants.
 * - `scopeOf` / `viewOf` are pure functions of (rules, plain grants, actor id, roles, now): a response
 *   cache keys on the roles (or the API token), plus the actor id when a scope's `varies` names `actor`;
 *   a scope that names `now` changes with the clock (DESIGN-NOTES.md, "Row-level rules").
 */
import { clip } from '../../errors/client-text';
import { BadRequestError } from '../../errors/errors';
import { type AccessScope, type AccessView, type Actor, checkRule, type PluginDeps, withFolds } from '../../plugin-api';
import type { ContentType } from '../../registry/types';
import type { Db } from './store';

export interface StoredRule {
  readonly id: number;
  readonly role: string;
  /** `<model>.<action>` */
  readonly action: string;
  readonly where: Readonly<Record<string, unknown>> | null;
  readonly fields: readonly string[] | null;
}

export const VARIABLES = ['$actor.id', '$actor.roles', '$now', '$today'] as const;

/** The actions whose field list says which attributes a body may set (records/access.ts checkWritable). */
const WRITE_ACTIONS: ReadonlySet<string> = new Set(['create', 'update']);
/** The actions that use a rule's field list at all (reads: records/access.ts readView, stripUnreadable). */
const FIELD_ACTIONS: ReadonlySet<string> = new Set(['find', 'findOne', ...WRITE_ACTIONS]);

const SYSTEM_NAMES = new Set(['id', 'createdAt', 'updatedAt', 'deletedAt', 'deletedTracker', 'publishedAt', 'localeName', 'defaultEntityLocaleId', 'createdById', 'updatedById']);

/** The rule with its variables replaced (a pure function of the actor's id, roles and the time). */
export function substitute(rule: unknown, actorId: number, roles: readonly string[], now: Date): unknown {
  const one = (v: unknown): unknown => {
    if (v === '$actor.id') return actorId;
    if (v === '$actor.roles') return [...roles];
    if (v === '$now') return now.toISOString();
    if (v === '$today') return now.toISOString().slice(0, 10);
    if (Array.isArray(v)) return v.flatMap((x) => (x === '$actor.roles' ? [...roles] : [one(x)]));
    if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, one(x)]));
    return v;
  };
  return one(rule);
}

/** Which variables a rule reads: `actor` ($actor.id, $actor.roles is covered by the roles), `now`. */
export function variesOf(rule: unknown): ('actor' | 'now')[] {
  const text = JSON.stringify(rule ?? null);
  const out: ('actor' | 'now')[] = [];
  if (text.includes('"$actor.id"')) out.push('actor');
  if (text.includes('"$now"') || text.includes('"$today"')) out.push('now');
  return out;
}

/**
 * The scope of one permission for a caller: null when a plain grant holds it (unrestricted) or no
 * rule names it (then `can` refuses anyway); else the OR of its rules and the union of their fields.
 */
export function scopeOf(key: string, plain: ReadonlySet<string>, rules: readonly StoredRule[], actorId: number, roles: readonly string[], now: Date): AccessScope | null {
  if (plain.has(key)) return null;
  const mine = rules.filter((r) => r.action === key);
  if (mine.length === 0) return null;
  const unrestrictedRows = mine.some((r) => r.where === null);
  const unrestrictedFields = mine.some((r) => r.fields === null);
  if (unrestrictedRows && unrestrictedFields) return null;
  const wheres = unrestrictedRows ? [] : mine.map((r) => substitute(r.where, actorId, roles, now) as Record<string, unknown>);
  const rows = unrestrictedRows ? null : wheres.length === 1 ? wheres[0] : { $or: wheres };
  const fields = unrestrictedFields ? null : [...new Set(mine.flatMap((r) => r.fields ?? []))];
  const varies = unrestrictedRows ? [] : [...new Set(mine.flatMap((r) => variesOf(r.where)))];
  return { rows, fields, varies };
}

/** The AccessView of a caller with `roles` (null: no rule of theirs restricts anything). */
export function viewOf(plain: ReadonlySet<string>, rules: readonly StoredRule[], actor: Actor | null, roles: readonly string[], now: Date): AccessView | null {
  if (rules.length === 0) return null;
  const actorId = actor && !actor.apiToken ? actor.id : 0;
  const memo = new Map<string, AccessScope | null>();
  return {
    scope(model, action) {
      const key = `${model}.${action}`;
      if (!memo.has(key)) memo.set(key, scopeOf(key, plain, rules, actorId, roles, now));
      return memo.get(key) ?? null;
    },
  };
}

/** Values a rule is checked with when saved: every variable replaced by a value of its kind. */
const CHECK_ACTOR_ID = 1;
const CHECK_ROLES = ['authenticated'];

export interface RuleInput {
  readonly action: unknown;
  readonly where: unknown;
  readonly fields: unknown;
}

/**
 * Checks a rule as it is saved (API, CLI, the YAML file): the permission names a model and action the
 * registry knows, `where` checks as Find's `filters` (the same messages, `where[…]` for `filters[…]`),
 * `fields` names public attributes of the model (Find's `fields` message), and for create / update also
 * its write-only (private) scalars such as a password. Throws BadRequestError.
 */
export function checkRuleInput(deps: Pick<PluginDeps, 'registry'>, input: RuleInput, at = ''): { action: string; model: ContentType } {
  const { registry } = deps;
  const name = (k: string): string => (at ? `${at}.${k}` : k);
  if (typeof input.action !== 'string') throw new BadRequestError(`${name('action')}: must be a permission name <model>.<action>`, { parameter: name('action') });
  const dot = input.action.lastIndexOf('.');
  const model = dot > 0 ? registry.get(input.action.slice(0, dot)) : undefined;
  const action = input.action.slice(dot + 1);
  if (!model || !model.api || !model.actions.includes(action)) {
    throw new BadRequestError(`${name('action')}: no permission "${clip(input.action)}" (form: <model>.<action>, a model with an API and one of its actions)`, { parameter: name('action') });
  }
  if (input.where !== null && input.where !== undefined) {
    if (typeof input.where !== 'object' || Array.isArray(input.where)) throw new BadRequestError(`${name('where')}: must be an object of fields and operators`, { parameter: name('where') });
    checkRule(registry, model, substitute(input.where, CHECK_ACTOR_ID, CHECK_ROLES, new Date()), name('where'));
  }
  if (input.fields !== null && input.fields !== undefined) {
    if (!Array.isArray(input.fields) || input.fields.some((f) => typeof f !== 'string')) throw new BadRequestError(`${name('fields')}: must be a list of field names`, { parameter: name('fields') });
    // Only reads (find, findOne) and writes of values (create, update) use a field list: elsewhere it would be
    // ignored, and a rule that says more than it does is refused rather than kept (a findDrafts list hides nothing).
    if (!FIELD_ACTIONS.has(action)) throw new BadRequestError(`${name('fields')}: a field list applies to find, findOne, create and update rules only, not to ${clip(input.action)}`, { parameter: name('fields') });
    for (const f of input.fields as string[]) {
      const a = model.byName.get(f);
      if (SYSTEM_NAMES.has(f)) continue;
      // A write's list may name a write-only attribute (a password): it guards what a body may set. A read's may not.
      const writeOnly = a?.kind === 'scalar' && a.private && a.writable !== false && WRITE_ACTIONS.has(action);
      if (!a || (a.private && !writeOnly)) throw new BadRequestError(`${name('fields')}: unknown field "${clip(f)}" of ${model.name}`, { parameter: name('fields') });
    }
  }
  return { action: input.action, model };
}

/** The `access-rule` table and its columns, from the registry. */
export class AccessRuleStore {
  readonly model: ContentType;
  readonly table: string;
  readonly roleColumn: string;
  readonly apiTokenColumn: string;
  private readonly roleTable: string;

  constructor(private readonly deps: PluginDeps) {
    const m = deps.registry.get('access-rule');
    const role = deps.registry.get('role');
    if (!m || !role) throw new Error('users-permissions: model access-rule is not in the registry');
    const rel = m.byName.get('role');
    if (!rel || rel.kind !== 'relation' || !rel.column) throw new Error('users-permissions: access-rule.role is not a to-one relation');
    this.model = m;
    this.table = m.table;
    this.roleColumn = rel.column;
    this.roleTable = role.table;
    const tok = m.byName.get('apiToken');
    if (!tok || tok.kind !== 'relation' || !tok.column) throw new Error('users-permissions: access-rule.apiToken is not a to-one relation');
    this.apiTokenColumn = tok.column;
  }

  /** The rules of one API token (kind custom). */
  async rulesOfToken(tokenId: number, db: Db = this.deps.readDb ?? this.deps.db): Promise<StoredRule[]> {
    const rows = (await db(this.table)
      .where(this.apiTokenColumn, tokenId)
      .select('id', `${this.column('action')} as action`, `${this.column('where')} as rule_where`, `${this.column('fields')} as rule_fields`)
      .orderBy('id')) as Record<string, unknown>[];
    return rows.map((r) => ({ id: Number(r.id), role: '', action: String(r.action), where: ruleJson(r.rule_where), fields: json(r.rule_fields) as StoredRule['fields'] }));
  }

  /** The owner of stored rule `id` as body fields (a PATCH is checked merged with it). */
  async owner(id: number): Promise<{ roleId: unknown; apiTokenId: unknown } | undefined> {
    const r = (await this.deps.db(this.table).where('id', id).first(this.roleColumn, this.apiTokenColumn)) as Record<string, unknown> | undefined;
    return r ? { roleId: r[this.roleColumn] ?? null, apiTokenId: r[this.apiTokenColumn] ?? null } : undefined;
  }

  column(attr: string): string {
    const a = this.model.byName.get(attr);
    if (!a || a.kind !== 'scalar') throw new Error(`users-permissions: access-rule.${attr} is not a field`);
    return a.column;
  }

  /** The rules of the given roles (by role name). */
  async rulesOf(roles: readonly string[], db: Db = this.deps.readDb ?? this.deps.db): Promise<StoredRule[]> {
    if (roles.length === 0) return [];
    const rows = (await db(this.table)
      .join(this.roleTable, `${this.roleTable}.id`, `${this.table}.${this.roleColumn}`)
      .whereIn(`${this.roleTable}.name`, [...roles])
      .select(`${this.table}.id as id`, `${this.roleTable}.name as role`, `${this.table}.${this.column('action')} as action`, `${this.table}.${this.column('where')} as rule_where`, `${this.table}.${this.column('fields')} as rule_fields`)
      .orderBy(`${this.table}.id`)) as Record<string, unknown>[];
    return rows.map((r) => ({ id: Number(r.id), role: String(r.role), action: String(r.action), where: ruleJson(r.rule_where), fields: json(r.rule_fields) as StoredRule['fields'] }));
  }

  /**
   * A row for `access_rules` (JSON columns as text, which every database takes), with the case-fold shadow
   * columns of its text fields (`action`, `description`, `source`: the `…i` filter operators read them).
   */
  row(roleId: number, action: string, where: unknown, fields: unknown, source: 'api' | 'file', now: string, description: string | null = null): Record<string, unknown> {
    return withFolds(this.model, {
      created_at: now,
      updated_at: now,
      [this.roleColumn]: roleId,
      [this.column('action')]: action,
      [this.column('where')]: where === null || where === undefined ? null : JSON.stringify(where),
      [this.column('fields')]: fields === null || fields === undefined ? null : JSON.stringify(fields),
      [this.column('description')]: description,
      [this.column('source')]: source,
    });
  }

  /** The stored row `id` as a rule input (PATCH checks the merged result). */
  async input(id: number): Promise<{ action: unknown; where: unknown; fields: unknown } | undefined> {
    const r = (await this.deps.db(this.table).where('id', id).first(this.column('action'), this.column('where'), this.column('fields'))) as Record<string, unknown> | undefined;
    if (!r) return undefined;
    return { action: r[this.column('action')], where: json(r[this.column('where')]), fields: json(r[this.column('fields')]) };
  }
}

/** A stored rule that is not a JSON object any more matches nothing (fails closed, never open). */
const NOTHING = { id: { $null: true } };
function ruleJson(v: unknown): StoredRule['where'] {
  if (v === null || v === undefined) return null;
  const parsed = json(v);
  return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : NOTHING;
}

function json(v: unknown): unknown {
  if (v === null || v === undefined) return null;
  if (typeof v === 'string') {
    try {
      return JSON.parse(v);
    } catch {
      return null;
    }
  }
  return v;
}
