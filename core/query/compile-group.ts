/**
 * CheckedGroup × Dialect → the three queries of a grouped Find (spec 4.5), all computed by the
 * database; identifiers are proven ColumnRefs or our own aliases, every value is bound.
 *
 * Each query reads a row source: `FROM model t0 LEFT JOIN … WHERE <soft-delete scope> AND <filter>`
 * (filters apply before grouping, rule 8) selecting per row the grouping value `__b<i>` of every key.
 * The grouping value is the column itself, or a date bucket's first instant when the label tells
 * buckets apart (then the label is made once per group, not once per row), or else the label itself.
 *
 * - page:    SELECT label(__b<i>) AS __g<i>, aggregates AS __a<j>, COUNT(*) AS __n, COUNT(*) OVER () AS __groups
 *            … GROUP BY __b<i> ORDER … LIMIT … OFFSET …: the window counts every group before the LIMIT, so
 *            meta.totalRecords needs no second pass over the rows
 * - count:   SELECT COUNT(*) FROM (SELECT 1 … GROUP BY __b<i>): the number of groups, only for a page past the last group
 * - records: ROW_NUMBER() and COUNT(*) OVER (PARTITION BY __b<i>) over the rows of the page's groups,
 *            cut to `groupFilter` offset/limit: every group's records in ONE query (populateGroup).
 */
import type { Knex } from 'knex';
import type { Dialect, ExactAggregate, SqlFragment } from '../../database/dialects/dialect';
import { BASE_ALIAS, type CheckedSort, type SelectedField, type SortJoin } from './checked';
import type { CheckedGroup, GroupAggregate, GroupField, GroupKey } from './check-group';
import { ATTRIBUTE_KINDS, DECIMAL_SCALE } from '../registry/attribute-kinds';
import { type FilteredSource, applyJoins, filteredBase, selectColumns, shownValue, sortOrder } from './compile-list';

const SRC = '__src';
const WIN = '__win';
/** Per row: the grouping value of key i. */
const rowKey = (i: number): string => `__b${i}`;
/** Per row: the month (1–12) of key i, for month-name labels. */
const rowMonth = (i: number): string => `__o${i}`;
/** Per row: the input of aggregate j. */
const rowInput = (j: number): string => `__v${j}`;
/** Per row: sort value k inside the groups. */
const rowSort = (k: number): string => `__s${k}`;

/** Per group: the label of key i (records' restriction binds these back). */
export const groupKeyColumn = (i: number): string => `__g${i}`;
/** Per group: aggregate j. */
export const aggregateColumn = (j: number): string => `__a${j}`;
/** Per group: its number of records. */
export const GROUP_SIZE = '__n';
/** Per group: the number of groups of the whole query (unpaged). */
export const GROUP_COUNT = '__groups';
/** Per record of `groupRecords`: its position in its group (1-based). */
export const ROW_NUMBER = '__rn';

const ident = (column: string): SqlFragment => ({ sql: '??', bindings: [column] });
const inSrc = (column: string): string => `${SRC}.${column}`;

function as(db: Knex, f: SqlFragment, alias: string): Knex.Raw {
  return db.raw(`${f.sql} as ??`, [...f.bindings, alias] as Knex.RawBinding[]);
}

function bucketStart(key: Extract<GroupKey, { kind: 'bucket' }>, g: CheckedGroup, dialect: Dialect): SqlFragment {
  return dialect.dateBucketStart(key.field.column, key.source, key.unit, g.zone);
}

/** The value a row is grouped by. */
function rowValue(key: GroupKey, g: CheckedGroup, dialect: Dialect): SqlFragment {
  if (key.kind === 'field') return shownValue(key.field.column);
  const start = bucketStart(key, g, dialect);
  return key.injective ? start : dialect.dateLabel(start, key.format);
}

/** Month-name labels sort by the calendar, not alphabetically (spec 4.5 rule 9 warns of the latter). */
function sortsByMonth(key: GroupKey): key is Extract<GroupKey, { kind: 'bucket' }> {
  return key.kind === 'bucket' && (key.format === 'MMM' || key.format === 'MMMM');
}

/** A group's label, made from its grouped value `column`. */
function labelOf(key: GroupKey, column: string, dialect: Dialect): SqlFragment {
  return key.kind === 'bucket' && key.injective ? dialect.dateLabel(ident(column), key.format) : ident(column);
}

const isText = (f: GroupField): boolean => ATTRIBUTE_KINDS[f.type].valueClass === 'text';

/** Text compares in byte order on both databases (Dialect.byteOrdered), for MIN/MAX and key order alike. */
function ordered(column: string, field: GroupField | null, dialect: Dialect): SqlFragment {
  return field && isText(field) ? dialect.byteOrdered(column) : ident(column);
}

/**
 * Digits after the point of a field whose `sum` and `avg` are exact decimals on PostgreSQL (numeric) and
 * MariaDB (DECIMAL): integers, bigintegers and decimals; null for a float (a float sum everywhere).
 */
function exactScale(field: GroupField): number | null {
  if (field.type === 'decimal') return DECIMAL_SCALE;
  return field.type === 'integer' || field.type === 'biginteger' ? 0 : null;
}

/**
 * The dialect's exact SUM/AVG of aggregate `a` (Dialect.exactAggregate), or null where the database's
 * own is exact: the compilers and the reading of the answer (records/group-service.ts) take it from here.
 */
export function exactAggregateOf(a: GroupAggregate, dialect: Dialect): { exact: ExactAggregate; fn: 'sum' | 'avg'; scale: number } | null {
  if (a.field === null || (a.fn !== 'sum' && a.fn !== 'avg') || !dialect.exactAggregate) return null;
  const scale = exactScale(a.field);
  return scale === null ? null : { exact: dialect.exactAggregate, fn: a.fn, scale };
}

/** Per row: the input of aggregate `a`. */
function aggregateInput(a: GroupAggregate & { field: GroupField }, dialect: Dialect): SqlFragment {
  const e = exactAggregateOf(a, dialect);
  return e ? e.exact.units(a.field.column, e.scale) : shownValue(a.field.column);
}

function aggregateSql(a: GroupAggregate, input: string, dialect: Dialect): SqlFragment {
  if (a.field === null) return { sql: 'COUNT(*)', bindings: [] };
  switch (a.fn) {
    case 'count':
      return { sql: 'COUNT(??)', bindings: [input] };
    case 'count_distinct':
      return { sql: 'COUNT(DISTINCT ??)', bindings: [input] };
    case 'sum':
    case 'avg': {
      const e = exactAggregateOf(a, dialect);
      return e ? e.exact.value(e.fn, input) : { sql: `${a.fn.toUpperCase()}(??)`, bindings: [input] };
    }
    case 'min':
    case 'max': {
      const o = ordered(input, a.field, dialect);
      return { sql: `${a.fn.toUpperCase()}(${o.sql})`, bindings: o.bindings };
    }
  }
}

/** What groups sorted by aggregate `j` order by: its column, or the exact aggregate's number. */
function aggregateOrder(a: GroupAggregate, j: number, dialect: Dialect): SqlFragment {
  const e = exactAggregateOf(a, dialect);
  return e ? e.exact.order(e.fn, inSrc(rowInput(j)), e.scale) : ident(aggregateColumn(j));
}

/** The filtered rows with their grouping values, joined for the keys (and `joins`). */
function rowSource(db: Knex, dialect: Dialect, src: FilteredSource, g: CheckedGroup, joins: readonly SortJoin[] = []): Knex.QueryBuilder {
  const qb = filteredBase(db, src, dialect);
  applyJoins(qb, [...g.joins, ...joins], dialect);
  g.keys.forEach((k, i) => qb.select(as(db, rowValue(k, g, dialect), rowKey(i))));
  return qb;
}

const groupByKeys = (g: CheckedGroup): string[] => g.keys.map((_, i) => inSrc(rowKey(i)));

/** One page of groups: key labels, aggregates and sizes, in the order the query asks for. */
export function compileGroupPage(db: Knex, dialect: Dialect, src: FilteredSource, g: CheckedGroup): Knex.QueryBuilder {
  const inner = rowSource(db, dialect, src, g);
  g.keys.forEach((k, i) => {
    if (sortsByMonth(k)) inner.select(as(db, dialect.monthNumber(bucketStart(k, g, dialect)), rowMonth(i)));
  });
  g.aggregates.forEach((a, j) => {
    if (a.field) inner.select(as(db, aggregateInput({ ...a, field: a.field }, dialect), rowInput(j)));
  });
  const outer = db.from(inner.as(SRC));
  g.keys.forEach((k, i) => outer.select(as(db, labelOf(k, inSrc(rowKey(i)), dialect), groupKeyColumn(i))));
  g.aggregates.forEach((a, j) => outer.select(as(db, aggregateSql(a, inSrc(rowInput(j)), dialect), aggregateColumn(j))));
  outer.select(db.raw('COUNT(*) as ??', [GROUP_SIZE]), db.raw('COUNT(*) OVER () as ??', [GROUP_COUNT]));
  outer.groupBy(groupByKeys(g));
  for (const s of g.sort) {
    if (s.target.kind === 'aggregate') {
      const o = aggregateOrder(g.aggregates[s.target.index], s.target.index, dialect);
      outer.orderByRaw(`${o.sql} ${dialect.sortDirection(s.direction)}`, o.bindings as Knex.RawBinding[]);
    } else if (sortsByMonth(g.keys[s.target.index])) {
      outer.orderByRaw(`MIN(??) ${dialect.sortDirection(s.direction)}`, [inSrc(rowMonth(s.target.index))]);
    } else {
      const key = g.keys[s.target.index];
      const o = ordered(inSrc(rowKey(s.target.index)), key.kind === 'field' ? key.field : null, dialect);
      outer.orderByRaw(`${o.sql} ${dialect.sortDirection(s.direction)}`, o.bindings as Knex.RawBinding[]);
    }
  }
  if (dialect.groupedOrderTail && g.sort.length > 0) outer.orderByRaw(dialect.groupedOrderTail);
  return outer.limit(g.limit).offset(g.offset);
}

/** The number of groups, counted without paging (spec 4.5 rule 4). */
export function compileGroupCount(db: Knex, dialect: Dialect, src: FilteredSource, g: CheckedGroup): Knex.QueryBuilder {
  const groups = db.from(rowSource(db, dialect, src, g).as(SRC)).select(db.raw('1 as ??', ['one'])).groupBy(groupByKeys(g));
  return db.from(groups.as('__groups')).count({ count: '*' });
}

export interface GroupRecordsSpec {
  readonly select: readonly SelectedField[];
  /** Order inside each group (groupFilter[sort]), ending with the primary-key tie-breaker. */
  readonly sort: readonly CheckedSort[];
  readonly joins: readonly SortJoin[];
  readonly limit: number;
  readonly offset: number;
}

/**
 * The records of the given groups (`keys`: each group's `__g<i>` values as the page query returned
 * them), `spec.offset`/`spec.limit` per group, in ONE window-function query (spec 4.5 rule 6).
 * Each row carries `__g<i>` (its group's labels) and `__rn`. A group's size is the page query's
 * COUNT(*) of it (the same rows: the sort joins are to-one), not a second window over every row.
 */
export function compileGroupRecords(db: Knex, dialect: Dialect, src: FilteredSource, g: CheckedGroup, spec: GroupRecordsSpec, keys: readonly (readonly unknown[])[]): Knex.QueryBuilder {
  const inner = rowSource(db, dialect, src, g, spec.joins);
  inner.select(selectColumns(BASE_ALIAS, spec.select));
  spec.sort.forEach((s, k) => inner.select(as(db, shownValue(s.column), rowSort(k))));

  const partition = g.keys.map(() => '??').join(', ');
  const partitionBindings = groupByKeys(g);
  const within = spec.sort.map((s) => `?? ${sortOrder(s, dialect)}`).join(', ');
  const withinBindings = spec.sort.map((_, k) => inSrc(rowSort(k)));

  const win = db.from(inner.as(SRC)).select(`${SRC}.*`);
  g.keys.forEach((k, i) => win.select(as(db, labelOf(k, inSrc(rowKey(i)), dialect), groupKeyColumn(i))));
  win.select(db.raw(`ROW_NUMBER() OVER (PARTITION BY ${partition} ORDER BY ${within}) as ??`, [...partitionBindings, ...withinBindings, ROW_NUMBER]));
  // Only the rows of the page's groups: (key0 = ? AND key1 IS NULL) OR (…) …
  win.where(function (this: Knex.QueryBuilder) {
    for (const values of keys) {
      const parts: string[] = [];
      const bindings: unknown[] = [];
      g.keys.forEach((k, i) => {
        const label = labelOf(k, inSrc(rowKey(i)), dialect);
        if (values[i] === null || values[i] === undefined) parts.push(`${label.sql} IS NULL`);
        else parts.push(`${label.sql} = ?`);
        bindings.push(...label.bindings);
        if (values[i] !== null && values[i] !== undefined) bindings.push(values[i]);
      });
      this.orWhereRaw(`(${parts.join(' AND ')})`, bindings as Knex.RawBinding[]);
    }
  });
  return db
    .from(win.as(WIN))
    .select('*')
    .where(ROW_NUMBER, '>', spec.offset)
    .andWhere(ROW_NUMBER, '<=', spec.offset + spec.limit)
    .orderBy(ROW_NUMBER, 'asc');
}
