/** (last snapshot, desired) → the operations that take one to the other (pure). */
import { orderByDependency } from './desired';
import { PUBLISHED_MEDIA_TABLE } from '../../core/media/table';
import type { ColumnDef, IndexDef, MigrationOp, RuleChange, SchemaDef, SchemaDiff, TableDef } from './types';

/**
 * A varchar of an attribute made longer or shorter (its maxLength, its enumeration's values): no value is
 * lost, as a migration first counts the rows longer than the new rule allows and refuses to run over them
 * (row-checks.ts); without that PostgreSQL would cut them short and SQLite keep them.
 */
function resized(old: ColumnDef, next: ColumnDef): boolean {
  const [from, to] = [old.spec.args, next.spec.args];
  if (old.spec.method !== 'string' || next.spec.method !== 'string' || typeof from[0] !== 'number' || typeof to[0] !== 'number') return false;
  // Shorter: only where the rows are counted, i.e. both sides' rules are known.
  return to[0] >= from[0] || (old.rules !== undefined && next.rules !== undefined);
}

/** A column's identity without the rename hint and the rules (no SQL changes with them). */
function columnKey(c: ColumnDef): string {
  return JSON.stringify({ spec: c.spec, nullable: c.nullable, default: c.default ?? null, references: c.references ?? null });
}

function sameIndex(a: IndexDef, b: IndexDef): boolean {
  return a.unique === b.unique && a.columns.join(',') === b.columns.join(',') && !!a.nullsFirst === !!b.nullsFirst;
}

export function diffSchemas(from: SchemaDef | null, to: SchemaDef): SchemaDiff {
  const before = new Map((from?.tables ?? []).map((t) => [t.name, t] as const));
  const after = new Map(to.tables.map((t) => [t.name, t] as const));
  const ops: MigrationOp[] = [];
  const destructive: string[] = [];
  const rules: RuleChange[] = [];

  const created = orderByDependency(to.tables.filter((t) => !before.has(t.name)));
  for (const table of created) ops.push({ op: 'createTable', table });

  for (const next of to.tables) {
    const prev = before.get(next.name);
    if (prev) ops.push(...diffTable(prev, next, destructive, rules));
  }

  const dropped = orderByDependency([...before.values()].filter((t) => !after.has(t.name))).reverse();
  for (const table of dropped) {
    ops.push({ op: 'dropTable', table });
    // Issue 14: a shadow of published copies whose table stays is written back into it first (to-migration.ts).
    const shadow = table.publishedOf !== undefined ? after.has(table.publishedOf) : table.name === PUBLISHED_MEDIA_TABLE;
    if (!shadow) destructive.push(`drop table ${table.name}`);
  }
  return { ops, destructive, rules };
}

function diffTable(prev: TableDef, next: TableDef, destructive: string[], rules: RuleChange[]): MigrationOp[] {
  const table = next.name;
  const prevCols = new Map(prev.columns.map((c) => [c.name, c] as const));
  const nextNames = new Set(next.columns.map((c) => c.name));
  const renames = new Map<string, string>(); // old → new
  for (const c of next.columns) {
    if (c.renamedFrom && !prevCols.has(c.name) && prevCols.has(c.renamedFrom) && !nextNames.has(c.renamedFrom)) renames.set(c.renamedFrom, c.name);
  }
  const renamedTo = new Map([...renames].map(([o, n]) => [n, o] as const));

  const dropIndexes: MigrationOp[] = [];
  const addIndexes: MigrationOp[] = [];
  const nextIdx = new Map(next.indexes.map((i) => [i.name, i] as const));
  const prevIdx = new Map(prev.indexes.map((i) => [i.name, i] as const));
  const touched = new Set<string>([...renames.keys()]);
  const columnOps: MigrationOp[] = [];

  for (const [from, to] of renames) columnOps.push({ op: 'renameColumn', table, from, to });
  for (const c of prev.columns) {
    if (!nextNames.has(c.name) && !renames.has(c.name)) {
      columnOps.push({ op: 'dropColumn', table, column: c });
      // A fold column holds derived data only (core/registry/fold.ts): dropping it loses nothing.
      if (c.foldOf === undefined) destructive.push(`drop column ${table}.${c.name}`);
      touched.add(c.name);
    }
  }
  for (const c of next.columns) {
    const old = prevCols.get(renamedTo.get(c.name) ?? c.name);
    if (!old) {
      columnOps.push({ op: 'addColumn', table, column: c });
    } else if (columnKey(old) !== columnKey(c)) {
      columnOps.push({ op: 'alterColumn', table, from: { ...old, name: c.name }, to: c });
      touched.add(old.name);
      if (JSON.stringify(old.spec) !== JSON.stringify(c.spec) && !resized(old, c)) destructive.push(`change type of ${table}.${c.name} (${old.spec.method} → ${c.spec.method})`);
    }
    if (old && JSON.stringify(old.rules ?? null) !== JSON.stringify(c.rules ?? null)) rules.push({ table, column: c.name, was: old.name, from: old.rules ?? null, to: c.rules ?? null });
  }
  for (const ix of prev.indexes) {
    const keep = nextIdx.get(ix.name);
    const onTouched = ix.columns.some((col) => touched.has(col));
    if (!keep || !sameIndex(keep, ix) || onTouched) dropIndexes.push({ op: 'dropIndex', table, index: ix });
  }
  for (const ix of next.indexes) {
    const had = prevIdx.get(ix.name);
    const wasDropped = dropIndexes.some((o) => o.op === 'dropIndex' && o.index.name === ix.name);
    if (!had || wasDropped) addIndexes.push({ op: 'addIndex', table, index: ix });
  }
  return [...dropIndexes, ...columnOps, ...addIndexes];
}

/** Drops a rename hint from the snapshot we store (renames are one-shot). */
export function snapshotOf(schema: SchemaDef): SchemaDef {
  return {
    version: 1,
    tables: schema.tables.map((t) => ({ ...t, columns: t.columns.map(({ renamedFrom: _drop, ...c }) => c) })),
  };
}
