/**
 * The checked query: every identifier proven against the registry, every value coerced.
 * Compilers accept only these types (DESIGN habit 6).
 */
import type { ValueClass } from '../registry/attribute-kinds';
import type { ContentType, MediaAttribute, RelationAttribute, ScalarType } from '../registry/types';
import type { SoftDeleteScope } from './ast';
import type { PositiveOperator } from './operators';

declare const columnRefBrand: unique symbol;
/** `alias.column`, proven by check.ts; the only identifier form the compilers take. */
export type ColumnRef = string & { readonly [columnRefBrand]: true };

declare const tableRefBrand: unique symbol;
/** A table name proven by check.ts. */
export type TableRef = string & { readonly [tableRefBrand]: true };

/** Only check.ts (and the record repository, for its own system columns) calls these. */
export const proveColumn = (alias: string, column: string): ColumnRef => `${alias}.${column}` as ColumnRef;
export const proveTable = (table: string): TableRef => table as TableRef;

export type BoundValue = string | number | boolean | null | readonly (string | number | boolean)[];

/** How a subquery reaches the related rows from the current alias. */
export type RelationHop =
  /** Owning to-one: `alias.id = from`. */
  | { readonly via: 'column'; readonly from: ColumnRef; readonly table: TableRef; readonly alias: string; readonly softDelete: boolean }
  /**
   * Inverse to-one / one-to-many: `alias.fk = parentId`. `entryRows` (an i18n target, issue 14): only the
   * rows that are their entry's default-locale row, as a link to an entry always names that row.
   */
  | { readonly via: 'back'; readonly fk: ColumnRef; readonly parentId: ColumnRef; readonly table: TableRef; readonly alias: string; readonly softDelete: boolean; readonly entryRows?: boolean }
  /** Many-to-many through a join table. */
  | {
      readonly via: 'join';
      readonly joinTable: TableRef;
      readonly joinAlias: string;
      readonly ownerColumn: ColumnRef;
      readonly targetColumn: ColumnRef;
      readonly parentId: ColumnRef;
      readonly table: TableRef;
      readonly alias: string;
      readonly softDelete: boolean;
    };

export type CheckedFilter =
  | { readonly kind: 'and' | 'or'; readonly items: readonly CheckedFilter[] }
  | { readonly kind: 'not'; readonly item: CheckedFilter }
  | {
      readonly kind: 'compare';
      readonly column: ColumnRef;
      readonly op: PositiveOperator;
      /** True for `$ne`, `$notIn`, …: the record matches when the positive form does not. */
      readonly negated: boolean;
      readonly value: BoundValue;
      readonly valueClass: ValueClass;
    }
  /** Some related record matches `item` (null: some related record exists). */
  | { readonly kind: 'exists'; readonly hop: RelationHop; readonly item: CheckedFilter | null };

/** A field the response carries. */
export interface SelectedField {
  readonly name: string;
  readonly column: string;
  readonly type: ScalarType;
}

export interface SortJoin {
  readonly alias: string;
  readonly table: TableRef;
  /** `alias.id = from`. */
  readonly from: ColumnRef;
  readonly softDelete: boolean;
  /** The caller's rule for the joined model, checked at BASE_ALIAS: only its readable rows are joined. */
  readonly rule?: CheckedFilter;
}

export interface CheckedSort {
  readonly column: ColumnRef;
  readonly direction: 'asc' | 'desc';
  /** A text column: sorted in byte order on both databases (Dialect.byteOrdered). */
  readonly text?: boolean;
  /**
   * Never NULL (the row's own id): sorted without NULLS FIRST/LAST, so PostgreSQL can read it in the
   * order of an index ending in id (issue 17: `(column, deleted_tracker, id)`) instead of sorting.
   */
  readonly notNull?: boolean;
}

export interface CheckedPopulate {
  readonly relation: RelationAttribute;
  readonly target: ContentType;
  readonly select: readonly SelectedField[];
  readonly filter: CheckedFilter | null;
  readonly sort: readonly CheckedSort[];
  readonly joins: readonly SortJoin[];
  readonly populate: readonly CheckedPopulate[];
  /**
   * The children shown per parent (`populate[rel][limit|offset]`, POPULATE_DEFAULT_LIMIT / POPULATE_MAX_LIMIT):
   * set for every relation that is not an owning to-one (an inverse to-one shows at most one).
   */
  readonly page: { readonly limit: number; readonly offset: number } | null;
}

export interface CheckedQuery {
  readonly model: ContentType;
  readonly filter: CheckedFilter | null;
  readonly softDelete: SoftDeleteScope;
  readonly select: readonly SelectedField[];
  readonly sort: readonly CheckedSort[];
  readonly joins: readonly SortJoin[];
  readonly limit: number;
  readonly offset: number;
  readonly populate: readonly CheckedPopulate[];
  readonly populateMedia: readonly MediaAttribute[];
  /** Every model the query reads besides its own (relation filters, populate, sort joins): the caller needs `find` on each. */
  readonly reads: readonly string[];
  /**
   * Every model besides its own that the caller's row rules walk through (`institute` in a fee-type rule
   * `{institute: {city: …}}`): which records the answer holds depends on them (the response cache), but
   * the caller needs no permission on them (a rule is the admin's, not the caller's).
   */
  readonly ruleReads: readonly string[];
}

export const BASE_ALIAS = 't0';
