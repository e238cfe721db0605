/** CheckedQuery → the page query and the count query (sort + primary-key tie-breaker, page, fields). */
import type { Knex } from 'knex';
import { type Dialect, type SqlFragment, nullsSpelledOut } from '../../database/dialects/dialect';
import type { SoftDeleteScope } from './ast';
import { BASE_ALIAS, type CheckedFilter, type CheckedSort, type SelectedField, type SortJoin, type TableRef } from './checked';
import { compileFilter } from './compile-filter';
import { DELETED, NOT_DELETED } from '../registry/types';

/** Spec 3.1 rule 1: archived records only with `showSoftDeleted`. */
export function applySoftDeleteScope(qb: Knex.QueryBuilder, alias: string, scope: SoftDeleteScope): void {
  if (scope === 'active') qb.where(`${alias}.deleted_tracker`, NOT_DELETED);
  else if (scope === 'exclusive') qb.whereNot(`${alias}.deleted_tracker`, NOT_DELETED);
}

export function applyJoins(qb: Knex.QueryBuilder, joins: readonly SortJoin[], dialect?: Dialect): void {
  for (const j of joins) {
    // Under a row-level rule the join reaches the readable rows only: a derived table of them.
    const source = j.rule && dialect ? ruledRows(qb, j.table, j.rule, dialect).as(j.alias) : { [j.alias]: j.table };
    qb.leftJoin(source, function (this: Knex.JoinClause) {
      this.on(`${j.alias}.id`, '=', j.from);
      if (j.softDelete) this.andOnVal(`${j.alias}.deleted_tracker`, '=', NOT_DELETED);
    });
  }
}

/** `SELECT * FROM table AS t0 WHERE rule`: the rows of `table` a rule lets the caller read. */
function ruledRows(qb: Knex.QueryBuilder, table: TableRef, rule: CheckedFilter, dialect: Dialect): Knex.QueryBuilder {
  const sub = qb.client.queryBuilder().from({ [BASE_ALIAS]: table }).select(`${BASE_ALIAS}.*`) as Knex.QueryBuilder;
  compileFilter(sub, rule, dialect);
  return sub;
}

/**
 * The value a column shows in an answer, as SQL: the column itself, but `deletedTracker` (spec 3.1) is
 * `not-deleted` or `deleted` while an archived row's column holds when and which row (so that unique
 * values may repeat among archived rows). Grouping, aggregates and sorting use this, so that they agree
 * with the answer: one `deleted` group, not one per archived record.
 */
export function shownValue(column: string): SqlFragment {
  if (column === 'deleted_tracker' || column.endsWith('.deleted_tracker')) {
    // constants of ours, not input: written out, so every database types the result as text
    return { sql: `CASE WHEN ?? = '${NOT_DELETED}' THEN '${NOT_DELETED}' ELSE '${DELETED}' END`, bindings: [column] };
  }
  return { sql: '??', bindings: [column] };
}

/** What one sort key orders by: the shown value, text in byte order on both databases (Dialect.byteOrdered). */
export function sortKey(s: CheckedSort, dialect?: Dialect): SqlFragment {
  const shown = shownValue(s.column);
  // the tracker's two states are ASCII: every collation orders them alike
  if (shown.sql !== '??') return shown;
  return s.text && dialect ? dialect.byteOrdered(s.column) : shown;
}

/**
 * NULLs sort as the smallest value on both databases, text in byte order (Dialect.byteOrdered).
 * Written out, because knex's SQLite compiler drops the column itself when given its `nulls` option;
 * the dialect spells the direction (Dialect.sortDirection: `NULLS FIRST|LAST` where the database takes it).
 */
export function applySort(qb: Knex.QueryBuilder, sort: readonly CheckedSort[], dialect?: Dialect): void {
  for (const s of sort) {
    const key = sortKey(s, dialect);
    qb.orderByRaw(`${key.sql} ${sortOrder(s, dialect)}`, key.bindings as Knex.RawBinding[]);
  }
}

/**
 * The direction of one sort key as SQL: the dialect's NULL order, or none for a column that is never
 * NULL (the row's own id), so PostgreSQL may read the primary key in order.
 */
export function sortOrder(s: CheckedSort, dialect?: Dialect): string {
  if (s.notNull) return s.direction.toUpperCase();
  return dialect ? dialect.sortDirection(s.direction) : nullsSpelledOut(s.direction);
}

export function selectColumns(alias: string, select: readonly SelectedField[]): string[] {
  return select.map((f) => `${alias}.${f.column}`);
}

export interface FilteredSource {
  readonly table: TableRef;
  readonly filter: CheckedFilter | null;
  readonly softDelete: SoftDeleteScope;
}

/** `FROM table AS t0 WHERE <soft-delete scope> AND <filter>`: shared by the page, the count and grouping. */
export function filteredBase(db: Knex, src: FilteredSource, dialect: Dialect): Knex.QueryBuilder {
  const qb = db.from({ [BASE_ALIAS]: src.table });
  applySoftDeleteScope(qb, BASE_ALIAS, src.softDelete);
  if (src.filter) compileFilter(qb, src.filter, dialect);
  return qb;
}

export interface ListSource extends FilteredSource {
  readonly select: readonly SelectedField[];
  readonly sort: readonly CheckedSort[];
  readonly joins: readonly SortJoin[];
  readonly limit: number;
  readonly offset: number;
}

/** The page of rows. */
export function compileList(db: Knex, src: ListSource, dialect: Dialect): Knex.QueryBuilder {
  const qb = filteredBase(db, src, dialect);
  applyJoins(qb, src.joins, dialect);
  qb.select(selectColumns(BASE_ALIAS, src.select));
  applySort(qb, src.sort, dialect);
  return qb.limit(src.limit).offset(src.offset);
}

/** The total for `meta`: no sort joins, no paging. */
export function compileCount(db: Knex, src: FilteredSource, dialect: Dialect): Knex.QueryBuilder {
  return filteredBase(db, src, dialect).count({ count: '*' });
}
