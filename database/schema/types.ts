/** The database schema as plain JSON data: what the registry wants, and what a snapshot recorded. */
import type { ColumnSpec } from '../../core/registry/attribute-kinds';

export interface ColumnDef {
  readonly name: string;
  /** `increments` is the primary key. */
  readonly spec: ColumnSpec | { readonly method: 'increments'; readonly args: readonly [] };
  readonly nullable: boolean;
  readonly default?: string | number | boolean | null;
  readonly references?: { readonly table: string; readonly column: 'id'; readonly onDelete: 'restrict' | 'set null' | 'cascade' };
  /** A hidden case-fold column: the column whose folded value it holds (migrations backfill it). */
  readonly foldOf?: string;
  /** Old column name of a declared rename (not part of the snapshot's identity). */
  readonly renamedFrom?: string;
  /**
   * The rules the registry holds the column's values to (an attribute's column). Not part of the
   * column's identity (no SQL changes with them), but a change to them is a change a migration records,
   * and one that tightens them has its rows checked first (row-checks.ts). Absent on a snapshot written
   * before rules were recorded: not known, so not checked.
   */
  readonly rules?: ColumnRules;
}

/** What an attribute's value must be, as the API validates it (core/validation/): only rules a row can be counted against. */
export interface ColumnRules {
  readonly model: string;
  /** The attribute's API name. */
  readonly field: string;
  readonly required?: true;
  readonly enum?: readonly string[];
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly min?: number;
  readonly max?: number;
}

/** A column whose rules changed (no SQL): `was` is its name before the migration; null rules: not recorded. */
export interface RuleChange {
  readonly table: string;
  readonly column: string;
  readonly was: string;
  readonly from: ColumnRules | null;
  readonly to: ColumnRules | null;
}

/**
 * A rule a migration brings that existing rows may break, counted before it runs (database/row-check-run.ts).
 * Plain JSON: a generated migration carries its checks (`exports.checks`). `columns`: names before the
 * migration; none for `required` on a column the migration adds (every row has no value).
 */
export type RowCheck =
  | { readonly rule: 'required'; readonly model: string; readonly field: string; readonly table: string; readonly columns: readonly string[] }
  | { readonly rule: 'unique'; readonly model: string; readonly field: string; readonly table: string; readonly columns: readonly string[] }
  | { readonly rule: 'enum'; readonly model: string; readonly field: string; readonly table: string; readonly columns: readonly string[]; readonly values: readonly string[] }
  | { readonly rule: 'minLength' | 'maxLength' | 'min' | 'max'; readonly model: string; readonly field: string; readonly table: string; readonly columns: readonly string[]; readonly limit: number };

export interface IndexDef {
  readonly name: string;
  readonly columns: readonly string[];
  readonly unique: boolean;
  /**
   * The first column's NULLs come first, as every sort of the service orders them (NULL smallest:
   * ASC NULLS FIRST, DESC NULLS LAST). SQLite and MariaDB order an index so anyway; PostgreSQL puts
   * NULLs last unless told, and then cannot read such an index in a sort's order: it sorted instead.
   */
  readonly nullsFirst?: boolean;
}

export interface TableDef {
  readonly name: string;
  /**
   * A shadow table holding the published copies of `publishedOf`'s rows (issue 14, core/drafts/). A
   * migration that creates it for a table with rows publishes them; one that drops it while the table
   * stays first writes the published copies back into the table.
   */
  readonly publishedOf?: string;
  /** On a model's shadow table: the model name, whose media rows a migration publishes or writes back. */
  readonly publishedModel?: string;
  readonly columns: readonly ColumnDef[];
  readonly indexes: readonly IndexDef[];
}

export interface SchemaDef {
  readonly version: 1;
  readonly tables: readonly TableDef[];
}

export type MigrationOp =
  | { readonly op: 'createTable'; readonly table: TableDef }
  | { readonly op: 'dropTable'; readonly table: TableDef }
  | { readonly op: 'addColumn'; readonly table: string; readonly column: ColumnDef }
  | { readonly op: 'dropColumn'; readonly table: string; readonly column: ColumnDef }
  | { readonly op: 'renameColumn'; readonly table: string; readonly from: string; readonly to: string }
  | { readonly op: 'alterColumn'; readonly table: string; readonly from: ColumnDef; readonly to: ColumnDef }
  | { readonly op: 'addIndex'; readonly table: string; readonly index: IndexDef }
  | { readonly op: 'dropIndex'; readonly table: string; readonly index: IndexDef };

export interface SchemaDiff {
  readonly ops: readonly MigrationOp[];
  /** Human-readable reasons an operation may lose data (drop table/column, type change). */
  readonly destructive: readonly string[];
  /** Columns whose rules changed; a migration is written for them even with no operation. */
  readonly rules: readonly RuleChange[];
}
