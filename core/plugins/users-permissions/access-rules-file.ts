/**
 * The access-rules file kept in git (IAM_ACCESS_RULES_FILE, default config/access-rules.yaml; issue 16):
 *
 *   author:                                   # a role (created when missing)
 *     fee-type.update:                        # a permission <model>.<action>
 *       - where: { createdById: { $eq: $actor.id } }
 *     fee-type.find:
 *       - fields: [feeType, dueDate, institute]
 *
 * Each permission takes a list of rules (`where`, `fields`, `description`, all optional). Applied at
 * every start in one transaction: the rules the file gave last time (source `file`) are replaced by
 * what it says now; rules made through the API or the CLI (source `api`) are left alone. A rule that
 * does not check (an unknown field or operator, an unknown permission) stops the start with Find's
 * message, naming the file and the rule's place in it. A missing file declares no rule.
 */
import { existsSync, readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { AppError } from '../../errors/app-error';
import { withFolds } from '../../plugin-api';
import { type AccessRuleStore, checkRuleInput } from './access-rules';
import type { IdentityStore } from './store';
import { nowIso } from './util';

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

/** Replaces the file's rules (source `file`) by what `path` declares now; creates the roles it names. */
export async function applyAccessRulesFile(store: IdentityStore, rules: AccessRuleStore, path: string): Promise<number> {
  const declared = existsSync(path) ? parseAccessRules(readFileSync(path, 'utf8'), path, store.deps.registry) : [];
  await store.db.transaction(async (trx) => {
    const now = nowIso();
    await trx(rules.table).where(rules.column('source'), 'file').del();
    const names = [...new Set(declared.map((r) => r.role))];
    const ids = await store.roleIds(names, trx);
    const missing = names.filter((n) => !ids.has(n));
    if (missing.length) {
      await trx(store.roles).insert(missing.map((name) => withFolds(store.roleModel, { created_at: now, updated_at: now, name, description: `Declared in ${path}` })));
      for (const [n, id] of await store.roleIds(missing, trx)) ids.set(n, id);
    }
    for (const r of declared) await trx(rules.table).insert(rules.row(ids.get(r.role) as number, r.action, r.where, r.fields, 'file', now, r.description));
  });
  return declared.length;
}
