/**
 * The access-rules file kept in git (IAM_ACCESS_RULES_FILE, default config/access-rules.yaml; issue 16):
 *
 *   author:                                   # a role (created when missing)
 *     fee-type.update:                        # a permission <model>.<action>
 *       - where: { createdById: { $eq: $actor.id } }
 *     fee-type.find:
 *       - fields: [feeType, dueDate, institute]
 *
 * Each permission takes a list of rules (`where`, `fields`, `description`, all optional). A rule that does
 * not check (an unknown field or operator, an unknown permission) stops the start with Find's message,
 * naming the file and the rule's place in it. A missing file declares no rule.
 *
 * Applied at every start of every node as a diff, in one transaction (`planAccessRules`): the stored rules
 * the file gave (source `file`) are made to say what it says now, changing only what differs, so an
 * unchanged file writes nothing and its rules keep their ids. Rules made through the API or the CLI (source
 * `api`) are never read or touched. Every change is a record change of `access-rule` (or `role`), announced
 * in the same transaction as the record API's write would be (issue 15; actor null, the system, as seeding):
 * `record.create` of a role the file names and no role has yet, `record.delete` of a file rule no longer
 * declared (its record read before the delete), `record.update` of one whose content changed and
 * `record.create` of a new one (their record read after). Two nodes starting at once: the transaction holds
 * the database lock `access-rules-file` (Dialect.lockedTransaction: there is no unique key to guard rules),
 * so the second waits, then finds the first's work done and writes nothing.
 */
import { existsSync, readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { AppError } from '../../errors/app-error';
import { announce, deleteAnnounced, insertRows, withFolds } from '../../plugin-api';
import { type AccessRuleStore, checkRuleInput } from './access-rules';
import type { IdentityStore } from './store';
import { insertedId, nowIso } from './util';

export interface FileRule {
  readonly role: string;
  readonly action: string;
  readonly where: unknown;
  readonly fields: unknown;
  readonly description: string | null;
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The file's text → its rules, each checked against the registry. Throws Error naming `source` and the place. */
export function parseAccessRules(text: string, source: string, registry: IdentityStore['deps']['registry']): FileRule[] {
  const fail = (where: string, message: string): never => {
    throw new Error(`${source}: ${where}: ${message}`);
  };
  let doc: unknown;
  try {
    doc = parse(text);
  } catch (e) {
    return fail('YAML', (e as Error).message);
  }
  if (doc === null || doc === undefined) return [];
  if (!isObj(doc)) return fail('top level', 'must map role names to permissions');
  const out: FileRule[] = [];
  for (const [role, perms] of Object.entries(doc)) {
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(role)) fail(role, 'is not a role name (letters, digits, - and _, at most 64)');
    if (!isObj(perms)) fail(role, 'must map permissions (<model>.<action>) to lists of rules');
    for (const [action, list] of Object.entries(perms as Record<string, unknown>)) {
      const rules = Array.isArray(list) ? list : [list];
      rules.forEach((r, i) => {
        const at = `${role}.${action}[${i}]`;
        if (!isObj(r)) return fail(at, 'must be an object with where, fields and description (each optional)');
        const unknown = Object.keys(r).filter((k) => !['where', 'fields', 'description'].includes(k));
        if (unknown.length) fail(at, `unknown key ${unknown.join(', ')} (known: where, fields, description)`);
        try {
          checkRuleInput({ registry }, { action, where: r.where, fields: r.fields });
        } catch (e) {
          fail(at, e instanceof AppError || e instanceof Error ? e.message : String(e));
        }
        out.push({ role, action, where: r.where ?? null, fields: r.fields ?? null, description: typeof r.description === 'string' ? r.description : null });
      });
    }
  }
  return out;
}

/** A stored rule of the file (source `file`), as the diff compares it. */
export interface StoredFileRule {
  readonly id: number;
  readonly roleId: number | null;
  readonly apiTokenId: number | null;
  readonly action: string;
  readonly where: unknown;
  readonly fields: unknown;
  readonly description: string | null;
}

/** A declared rule with its role's id. */
export type DeclaredRule = FileRule & { readonly roleId: number };

export interface AccessRulesPlan {
  /** Stored rules that say what a declared rule says: left alone (id kept, nothing written or announced). */
  readonly keep: readonly number[];
  /** A stored rule given the content of a declared one of the same role and permission (id kept). */
  readonly update: readonly { readonly id: number; readonly rule: DeclaredRule }[];
  /** Declared rules no stored rule is left for. */
  readonly insert: readonly DeclaredRule[];
  /** Stored rules no declared rule is left for. */
  readonly remove: readonly number[];
}

/**
 * A JSON value as the diff compares it: objects with their keys sorted (a filter's keys AND together in any
 * order, and PostgreSQL's jsonb keeps no order), arrays in their order (`$or` lists, field lists: shown as
 * written), text as stored JSON text, parsed (SQLite, MariaDB: unparsable text is a value of its own).
 */
export function canonicalJson(v: unknown): string {
  const norm = (x: unknown): unknown => {
    if (Array.isArray(x)) return x.map(norm);
    if (x !== null && typeof x === 'object') return Object.fromEntries(Object.keys(x).sort().map((k) => [k, norm((x as Record<string, unknown>)[k])]));
    return x === undefined ? null : x;
  };
  return JSON.stringify(norm(v));
}

/**
 * The identity of a file rule is its content: role, permission (`<model>.<action>`), `where`, `fields` (JSON
 * values compared by `canonicalJson`) and `description`; the file's rules are a multiset of those (a rule
 * declared twice is stored twice). The diff, in three passes:
 * 1. each declared rule (in file order) keeps the first stored rule (by id) with the same content: unchanged;
 * 2. the declared rules left take, per role and permission in file order, the stored rules left of that role
 *    and permission (by id): updated in place, keeping their id (a rule edited in the file is one changed
 *    record, not a delete and a create);
 * 3. declared rules still left are inserted, stored rules still left deleted (a file rule an admin gave to an
 *    API token matches no declared rule: deleted, and the declared one inserted).
 * Pure; `stored` holds only rules of source `file`.
 */
export function planAccessRules(declared: readonly DeclaredRule[], stored: readonly StoredFileRule[]): AccessRulesPlan {
  const byId = [...stored].sort((a, b) => a.id - b.id);
  const content = (r: { roleId: number | null; action: string; where: unknown; fields: unknown; description: string | null }): string => canonicalJson([r.roleId, r.action, r.where ?? null, r.fields ?? null, r.description ?? null]);
  const slot = (roleId: number | null, action: string): string => JSON.stringify([roleId, action]);
  const left = new Set(byId);
  const keep: number[] = [];
  const rest: DeclaredRule[] = [];
  for (const d of declared) {
    const want = content(d);
    const found = byId.find((s) => left.has(s) && s.apiTokenId === null && content(s) === want);
    if (found) {
      left.delete(found);
      keep.push(found.id);
    } else rest.push(d);
  }
  const update: { id: number; rule: DeclaredRule }[] = [];
  const insert: DeclaredRule[] = [];
  for (const d of rest) {
    const found = byId.find((s) => left.has(s) && s.roleId !== null && slot(s.roleId, s.action) === slot(d.roleId, d.action));
    if (found) {
      left.delete(found);
      update.push({ id: found.id, rule: d });
    } else insert.push(d);
  }
  return { keep, update, insert, remove: byId.filter((s) => left.has(s)).map((s) => s.id) };
}

export interface AppliedAccessRules {
  readonly declared: number;
  readonly kept: number;
  readonly created: number;
  readonly updated: number;
  readonly deleted: number;
  /** Roles the file named that did not exist. */
  readonly roles: number;
}

const jsonValue = (v: unknown): unknown => {
  if (typeof v !== 'string') return v ?? null;
  try {
    return JSON.parse(v);
  } catch {
    return { '\u0000unparsable': v };
  }
};

/**
 * Makes the file's rules (source `file`) say what `path` declares now, as a diff (`planAccessRules`), creating
 * the roles it names; announces each change in the same transaction (actor null) and signals after the commit.
 */
export async function applyAccessRulesFile(store: IdentityStore, rules: AccessRuleStore, path: string): Promise<AppliedAccessRules> {
  const declared = existsSync(path) ? parseAccessRules(readFileSync(path, 'utf8'), path, store.deps.registry) : [];
  const { dialect, events } = store.deps;
  const model = rules.model.name;
  let appended = 0;
  const applied = await dialect.lockedTransaction(store.db, 'access-rules-file', async (trx) => {
    const now = nowIso();
    const names = [...new Set(declared.map((r) => r.role))];
    const ids = await store.roleIds(names, trx);
    const missing = names.filter((n) => !ids.has(n));
    if (missing.length) {
      await insertRows(trx, store.roles, missing.map((name) => withFolds(store.roleModel, { created_at: now, updated_at: now, name, description: `Declared in ${path}` })));
      for (const [n, id] of await store.roleIds(missing, trx)) ids.set(n, id);
      appended += await announce(events, trx, 'record.create', store.roleModel.name, missing.map((n) => ids.get(n) as number));
    }

    const c = (attr: string): string => rules.column(attr);
    const rows = (await trx(rules.table)
      .where(c('source'), 'file')
      .orderBy('id')
      .select('id', `${rules.roleColumn} as role_id`, `${rules.apiTokenColumn} as api_token_id`, `${c('action')} as action`, `${c('where')} as rule_where`, `${c('fields')} as rule_fields`, `${c('description')} as description`)) as Record<string, unknown>[];
    const stored: StoredFileRule[] = rows.map((r) => ({
      id: Number(r.id),
      roleId: r.role_id === null || r.role_id === undefined ? null : Number(r.role_id),
      apiTokenId: r.api_token_id === null || r.api_token_id === undefined ? null : Number(r.api_token_id),
      action: String(r.action),
      where: jsonValue(r.rule_where),
      fields: jsonValue(r.rule_fields),
      description: typeof r.description === 'string' ? r.description : null,
    }));
    const plan = planAccessRules(
      declared.map((r) => ({ ...r, roleId: ids.get(r.role) as number })),
      stored,
    );
    // The rows it changes, locked (an API PATCH or DELETE of one of them waits: no lost or doubled change).
    await dialect.lockRows(trx, rules.table, [...plan.remove, ...plan.update.map((u) => u.id)]);

    appended += await deleteAnnounced(events, trx, rules.table, model, plan.remove);
    for (const { id, rule: r } of plan.update) {
      const { created_at: _created, ...row } = rules.row(r.roleId, r.action, r.where, r.fields, 'file', now, r.description);
      await trx(rules.table).where('id', id).update({ ...row, [rules.apiTokenColumn]: null });
    }
    appended += await announce(events, trx, 'record.update', model, plan.update.map((u) => u.id));
    const made: number[] = [];
    for (const r of plan.insert) made.push(insertedId(await trx(rules.table).insert(rules.row(r.roleId, r.action, r.where, r.fields, 'file', now, r.description)).returning('id')));
    appended += await announce(events, trx, 'record.create', model, made);
    return { declared: declared.length, kept: plan.keep.length, created: made.length, updated: plan.update.length, deleted: plan.remove.length, roles: missing.length };
  });
  if (appended > 0) events?.committed();
  return applied;
}
