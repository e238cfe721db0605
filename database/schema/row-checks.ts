/**
 * The rules a migration tightens that existing rows may break, from its diff (pure): `required` set, an
 * enumeration's values narrowed, a minLength / maxLength / min / max made stricter, a new unique index, a
 * required column added without a default. database/row-check-run.ts counts the rows that break each one
 * before the migration changes anything, and refuses it over them.
 *
 * Not checked: a column whose old rules were not recorded (a snapshot written before rules were), and a
 * unique index over a column the same migration adds (the database refuses it, failure-reason.ts says why).
 */
import type { ColumnRules, RowCheck, RuleChange, SchemaDef, SchemaDiff } from './types';

type Rule = RowCheck['rule'];

/** The rules `to` adds over `from`, with what each needs. */
function tightened(from: ColumnRules, to: ColumnRules): { rule: Exclude<Rule, 'unique'>; limit?: number; values?: readonly string[] }[] {
  const out: { rule: Exclude<Rule, 'unique'>; limit?: number; values?: readonly string[] }[] = [];
  if (to.required && !from.required) out.push({ rule: 'required' });
  if (to.enum && (!from.enum || from.enum.some((v) => !to.enum?.includes(v)))) out.push({ rule: 'enum', values: to.enum });
  if (to.minLength !== undefined && (from.minLength === undefined || to.minLength > from.minLength)) out.push({ rule: 'minLength', limit: to.minLength });
  if (to.maxLength !== undefined && (from.maxLength === undefined || to.maxLength < from.maxLength)) out.push({ rule: 'maxLength', limit: to.maxLength });
  if (to.min !== undefined && (from.min === undefined || to.min > from.min)) out.push({ rule: 'min', limit: to.min });
  if (to.max !== undefined && (from.max === undefined || to.max < from.max)) out.push({ rule: 'max', limit: to.max });
  return out;
}

function ruleChecks(change: RuleChange): RowCheck[] {
  const { from, to } = change;
  if (from === null || to === null) return [];
  const base = { model: to.model, field: to.field, table: change.table, columns: [change.was] };
  return tightened(from, to).map((t) => {
    if (t.rule === 'enum') return { ...base, rule: t.rule, values: [...(t.values ?? [])] };
    if (t.rule === 'required') return { ...base, rule: t.rule };
    return { ...base, rule: t.rule, limit: t.limit ?? 0 };
  });
}

/** The checks of a migration with `diff`, which leads to the schema `to`. */
export function rowChecks(diff: SchemaDiff, to: SchemaDef): RowCheck[] {
  const created = new Set(diff.ops.flatMap((op) => (op.op === 'createTable' ? [op.table.name] : [])));
  const added = new Map<string, Set<string>>();
  const renamed = new Map<string, Map<string, string>>(); // table → new → old
  for (const op of diff.ops) {
    if (op.op === 'addColumn') added.set(op.table, (added.get(op.table) ?? new Set()).add(op.column.name));
    if (op.op === 'renameColumn') renamed.set(op.table, (renamed.get(op.table) ?? new Map()).set(op.to, op.from));
  }
  const before = (table: string, column: string): string => renamed.get(table)?.get(column) ?? column;
  const checks: RowCheck[] = diff.rules.flatMap(ruleChecks);
  for (const op of diff.ops) {
    if (created.has(op.op === 'createTable' || op.op === 'dropTable' ? op.table.name : op.table)) continue;
    // A required attribute added without a default: every row of the table has no value.
    if (op.op === 'addColumn' && op.column.rules?.required && (op.column.default === undefined || op.column.default === null)) {
      checks.push({ rule: 'required', model: op.column.rules.model, field: op.column.rules.field, table: op.table, columns: [] });
    }
    if (op.op !== 'addIndex' || !op.index.unique) continue;
    const { table } = op;
    if (op.index.columns.some((c) => added.get(table)?.has(c))) continue;
    const columns = op.index.columns.map((c) => before(table, c));
    // Dropped and made again (a column of it renamed or retyped): the rows already keep it.
    const kept = diff.ops.some((o) => o.op === 'dropIndex' && o.table === table && o.index.unique && o.index.columns.join(',') === columns.join(','));
    if (kept) continue;
    const named = namedColumns(to, table, op.index.columns);
    if (named === null) continue;
    checks.push({ rule: 'unique', model: named.model, field: named.fields.join(', '), table, columns });
  }
  return checks;
}

/** The model and attribute names of an index's columns in the schema `to` (system columns left out); null: none is an attribute's. */
function namedColumns(to: SchemaDef, table: string, columns: readonly string[]): { model: string; fields: string[] } | null {
  const def = to.tables.find((t) => t.name === table);
  if (!def) return null;
  const byName = new Map(def.columns.map((c) => [c.name, c] as const));
  const rules = columns.flatMap((name) => {
    const c = byName.get(name);
    const r = c?.foldOf !== undefined ? byName.get(c.foldOf)?.rules : c?.rules;
    return r ? [r] : [];
  });
  return rules.length === 0 ? null : { model: rules[0].model, fields: rules.map((r) => r.field) };
}
