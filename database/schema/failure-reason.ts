/**
 * Why a migration failed, in the words a content editor acts on ("existing rows hold duplicate values of
 * code"), and which model files the failure concerns: from the database's error (Dialect.classifyError)
 * and, for a generated migration, the changes it made.
 */
import { publishedTable } from '../../core/drafts/names';
import { foldColumnName } from '../../core/registry/fold';
import type { ContentType, Registry } from '../../core/registry/types';
import type { Dialect } from '../dialects/dialect';
import { DanglingReferenceError } from '../dialects/sqlite-migrations';
import type { MigrationOp } from './types';

export interface FailureReason {
  /** Plain words, no SQL. */
  readonly reason: string;
  /** Tables the failure is about (empty: unknown; then every table the migration changes). */
  readonly tables: readonly string[];
}

function opTable(op: MigrationOp): string {
  return op.op === 'createTable' || op.op === 'dropTable' ? op.table.name : op.table;
}

/** The tables a migration's changes touch, in order. */
export function tablesOf(ops: readonly MigrationOp[]): string[] {
  return [...new Set(ops.map(opTable))];
}

function ownsTable(ct: ContentType, table: string): boolean {
  if (ct.table === table || publishedTable(ct.table) === table) return true;
  return ct.attributes.some((a) => a.kind === 'relation' && a.joinTable !== null && (a.joinTable.table === table || publishedTable(a.joinTable.table) === table));
}

/** The model files behind `tables`; `table <name>` for one no model has (a removed model, a service table). */
export function modelFilesOf(registry: Registry, tables: readonly string[]): string[] {
  const files = tables.flatMap((t) => {
    const owners = registry.contentTypes.filter((ct) => ownsTable(ct, t));
    return owners.length > 0 ? owners.map((ct) => ct.source) : [`table ${t}`];
  });
  return [...new Set(files)];
}

/** The field (API name) a column of `table` holds, or the column's own name. */
function fieldOf(registry: Registry, table: string | null, column: string): string {
  for (const ct of registry.contentTypes) {
    if (table !== null && !ownsTable(ct, table)) continue;
    const a = ct.attributes.find((x) => x.kind !== 'media' && x.column !== null && (x.column === column || foldColumnName(x.column) === column));
    if (a) return a.name;
  }
  return column;
}

/** The driver's own words without the SQL knex puts before them (`alter table … - Duplicate entry …`). */
export function driverText(err: unknown): string {
  const message = (err instanceof Error ? err.message : String(err)).split('\n')[0];
  const cut = message.lastIndexOf(' - ');
  return cut >= 0 ? message.slice(cut + 3) : message;
}

/**
 * `err` (a failed migration's error) in plain words. `ops`: the generated migration's changes, or none for
 * a hand-written one; a unique index it adds and the driver names stands in for columns the driver does not
 * give (PostgreSQL and MariaDB name only the index they could not create).
 */
export function failureReason(err: unknown, dialect: Dialect, registry: Registry, ops: readonly MigrationOp[]): FailureReason {
  if (err instanceof DanglingReferenceError) return { reason: `rows would name a missing row (${err.references.join('; ')})`, tables: [] };
  const fault = dialect.classifyError(err);
  const text = driverText(err);
  const fields = (table: string | null, columns: readonly string[]): string => columns.map((c) => fieldOf(registry, table, c)).join(', ');
  switch (fault?.kind) {
    case 'unique': {
      const index = ops.find((op) => op.op === 'addIndex' && op.index.unique && text.includes(op.index.name));
      const table = fault.table ?? (index ? opTable(index) : null);
      const columns = fault.columns.length > 0 ? fault.columns : index?.op === 'addIndex' ? index.index.columns : [];
      const what = columns.length > 0 ? `duplicate values of ${fields(table, columns)}` : 'duplicate values where the change wants them unique';
      return { reason: `existing rows hold ${what}`, tables: table ? [table] : [] };
    }
    case 'notNull':
      return { reason: `existing rows have no value for ${fields(fault.table, fault.columns) || 'a field'}, which the change makes required`, tables: fault.table ? [fault.table] : [] };
    case 'foreignKey':
      return { reason: `existing rows name a row that does not exist${fault.columns.length ? ` (${fields(fault.table, fault.columns)})` : ''}`, tables: fault.table ? [fault.table] : [] };
    case 'invalidValue':
      return { reason: `existing values do not fit the new column type (${driverText(fault.detail)})`, tables: [] };
    default:
      return { reason: `the database refused it (${text})`, tables: [] };
  }
}
