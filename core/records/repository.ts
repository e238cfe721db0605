/** knex reads and writes for one model; calls the compilers; knows nothing of HTTP. */
import type { Knex } from 'knex';
import type { Dialect } from '../../database/dialects/dialect';
import { insertRows } from '../../database/dialects/insert-rows';
import type { SoftDeleteScope } from '../query/ast';
import { BASE_ALIAS, type CheckedFilter, type CheckedQuery, type SelectedField, proveTable } from '../query/checked';
import { applySoftDeleteScope, compileCount, compileList, filteredBase, selectColumns } from '../query/compile-list';
import { type ContentType, NOT_DELETED, type RelationAttribute } from '../registry/types';
import { INT4_MAX } from '../registry/attribute-kinds';
import { withLinks } from './populate';
import type { Row } from './serializer';

export type Db = Knex | Knex.Transaction;

/** The page's column that carries the list's total (no attribute column can be named so: they are snake_case). */
const TOTAL_COLUMN = '__total';

/** `withTotal` false: the page alone (a later part of a page read in parts); `total` is then NaN. */
export async function findPage(db: Db, dialect: Dialect, q: CheckedQuery, withTotal = true): Promise<{ rows: Row[]; total: number }> {
  const src = { table: proveTable(q.model.table), filter: q.filter, softDelete: q.softDelete };
  const countAlone = async (): Promise<number> => Number(((await compileCount(db, src, dialect)) as { count: number | string }[])[0]?.count ?? 0);
  if (q.limit === 0) return { rows: [], total: await countAlone() };
  const select = withLinks(q.select, q.populate);
  if (!withTotal) return { rows: (await compileList(db, { ...src, select, sort: q.sort, joins: q.joins, limit: q.limit, offset: q.offset }, dialect)) as Row[], total: Number.NaN };
  // The page and its total in one statement: the count is an uncorrelated scalar subquery, which each
  // database evaluates once. One round trip less per list (on PostgreSQL a socket write that wakes the
  // server, on SQLite a hand-off to the connection's thread), and a request holds one connection at a time.
  const page = compileList(db, { ...src, select, sort: q.sort, joins: q.joins, limit: q.limit, offset: q.offset }, dialect).select(compileCount(db, src, dialect).as(TOTAL_COLUMN));
  const rows = (await page) as Row[];
  // A page past the end has no row to carry the total: asked on its own.
  if (rows.length === 0) return { rows, total: await countAlone() };
  return { rows, total: Number(rows[0][TOTAL_COLUMN]) };
}

/** A stand-in id while a by-id SELECT is compiled: its place in the bindings is where each call's id goes. */
const ID_SLOT = -7_301_505_919;

/**
 * By-id SELECTs compiled once per dialect, table, scope, lock and column list (the builder costs more
 * than the query). `fields` lets clients pick column lists, so the map starts over when it is full.
 */
const byIdStatements = new Map<string, { sql: string; bindings: Knex.Value[]; idAt: number }>();
const BY_ID_STATEMENTS_MAX = 2_000;

function byIdStatement(db: Db, dialect: Dialect, model: ContentType, scope: SoftDeleteScope, select: readonly SelectedField[], lock: boolean) {
  const key = `${dialect.name}\0${model.table}\0${scope}\0${lock}\0${select.map((f) => f.column).join(',')}`;
  let hit = byIdStatements.get(key);
  if (!hit) {
    const qb = db.from({ [BASE_ALIAS]: model.table }).select(selectColumns(BASE_ALIAS, select)).where(`${BASE_ALIAS}.id`, ID_SLOT).first();
    applySoftDeleteScope(qb, BASE_ALIAS, scope);
    if (lock) qb.forUpdate();
    const { sql, bindings } = qb.toSQL();
    hit = { sql, bindings: [...bindings] as Knex.Value[], idAt: bindings.indexOf(ID_SLOT) };
    if (byIdStatements.size >= BY_ID_STATEMENTS_MAX) byIdStatements.clear();
    byIdStatements.set(key, hit);
  }
  return hit;
}

/** Record `id` in `scope` with the `select` columns; `lock`: FOR UPDATE where the dialect has row locks. */
export async function findById(db: Db, dialect: Dialect, model: ContentType, id: number, scope: SoftDeleteScope, select: readonly SelectedField[], lock = false): Promise<Row | undefined> {
  const st = byIdStatement(db, dialect, model, scope, select, lock && dialect.rowLocks);
  const bindings = [...st.bindings];
  bindings[st.idAt] = id;
  return dialect.rawRows(await db.raw(st.sql, bindings))[0];
}

/** The ids among `ids` in `scope` that `filter` (a caller's rule, at t0) matches; `lock`: FOR UPDATE where the dialect has row locks. */
export async function idsWhere(db: Db, dialect: Dialect, model: ContentType, ids: readonly number[], scope: SoftDeleteScope, filter: CheckedFilter, lock: boolean): Promise<Set<number>> {
  const possible = ids.filter((id) => id <= INT4_MAX);
  if (possible.length === 0) return new Set();
  const qb = filteredBase(db as Knex, { table: proveTable(model.table), filter, softDelete: scope }, dialect).select(`${BASE_ALIAS}.id`).whereIn(`${BASE_ALIAS}.id`, possible);
  if (lock && dialect.rowLocks) qb.forUpdate();
  const rows = (await qb) as { id: number }[];
  return new Set(rows.map((r) => Number(r.id)));
}

/** Record `id` in `scope`, only if `filter` (the caller's rule, at t0) matches it: one SELECT. */
export async function findByIdWhere(db: Db, dialect: Dialect, model: ContentType, id: number, scope: SoftDeleteScope, select: readonly SelectedField[], filter: CheckedFilter): Promise<Row | undefined> {
  const qb = filteredBase(db as Knex, { table: proveTable(model.table), filter, softDelete: scope }, dialect).select(selectColumns(BASE_ALIAS, select)).where(`${BASE_ALIAS}.id`, id).limit(1);
  return ((await qb) as Row[])[0];
}

export async function activeIds(db: Db, model: ContentType, ids: readonly number[], scope: SoftDeleteScope = 'active'): Promise<Set<number>> {
  // An id past the integer column's range names no record; PostgreSQL would refuse to compare it (overflow).
  const possible = ids.filter((id) => id <= INT4_MAX);
  if (possible.length === 0) return new Set();
  const qb = db.from({ [BASE_ALIAS]: model.table }).select(`${BASE_ALIAS}.id`).whereIn(`${BASE_ALIAS}.id`, possible);
  applySoftDeleteScope(qb, BASE_ALIAS, scope);
  const rows = (await qb) as { id: number }[];
  return new Set(rows.map((r) => Number(r.id)));
}

export async function idByColumn(db: Db, model: ContentType, column: string, value: unknown): Promise<number | undefined> {
  const row = (await db.from(model.table).select('id').where(column, value as Knex.Value).andWhere('deleted_tracker', NOT_DELETED).first()) as { id: number } | undefined;
  return row ? Number(row.id) : undefined;
}

/** INSERT … RETURNING `columns` (or what the dialect does instead): the stored row. */
export async function insertReturning(db: Db, dialect: Dialect, model: ContentType, row: Row, columns: readonly string[]): Promise<Row> {
  return (await dialect.insertReturning(db, model.table, row, columns)) as Row;
}

/** UPDATE of an active record … RETURNING `columns`; undefined when no active record has that id. */
export async function updateActiveReturning(db: Db, dialect: Dialect, model: ContentType, id: number, row: Row, columns: readonly string[]): Promise<Row | undefined> {
  return (await dialect.updateReturning(db, model.table, { id, deleted_tracker: NOT_DELETED }, row, columns)) as Row | undefined;
}

export async function updateRow(db: Db, model: ContentType, id: number, row: Row): Promise<number> {
  return db(model.table).where('id', id).update(row);
}

export async function deleteRow(db: Db, model: ContentType, id: number): Promise<number> {
  return db(model.table).where('id', id).del();
}

/** Replaces the many-to-many links of one owning record. */
export async function setLinks(db: Db, rel: RelationAttribute, ownerId: number, targetIds: readonly number[]): Promise<void> {
  if (!rel.joinTable) return;
  const { table, ownerColumn, targetColumn } = rel.joinTable;
  await db(table).where(ownerColumn, ownerId).del();
  // in pieces: SQLite refuses one INSERT of more than 500 rows (a relation takes 1,000 ids)
  await insertRows(db, table, targetIds.map((t) => ({ [ownerColumn]: ownerId, [targetColumn]: t })));
}
