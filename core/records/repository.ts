/** knex reads and writes for one model; calls the compilers; knows nothing of HTTP. */
import type { Knex } from 'knex';
import type { Dialect } from '../../database/dialects/dialect';
import type { SoftDeleteScope } from '../query/ast';
import { BASE_ALIAS, type CheckedQuery, type SelectedField, proveTable } from '../query/checked';
import { applySoftDeleteScope, compileCount, compileList, selectColumns } from '../query/compile-list';
import { type ContentType, NOT_DELETED, type RelationAttribute } from '../registry/types';
import { withLinks } from './populate';
import type { Row } from './serializer';

export type Db = Knex | Knex.Transaction;

export async function findPage(db: Db, dialect: Dialect, q: CheckedQuery): Promise<{ rows: Row[]; total: number }> {
  const src = { table: proveTable(q.model.table), filter: q.filter, softDelete: q.softDelete };
  const select = withLinks(q.select, q.populate);
  const [rows, countRows] = await Promise.all([
    q.limit === 0 ? Promise.resolve([]) : compileList(db, { ...src, select, sort: q.sort, joins: q.joins, limit: q.limit, offset: q.offset }, dialect),
    compileCount(db, src, dialect),
  ]);
  const total = Number((countRows as { count: number | string }[])[0]?.count ?? 0);
  return { rows: rows as Row[], total };
}

export async function findById(db: Db, model: ContentType, id: number, scope: SoftDeleteScope, select: readonly SelectedField[], lock: Dialect | null = null): Promise<Row | undefined> {
  const qb = db.from({ [BASE_ALIAS]: model.table }).select(selectColumns(BASE_ALIAS, select)).where(`${BASE_ALIAS}.id`, id).first();
  applySoftDeleteScope(qb, BASE_ALIAS, scope);
  if (lock?.rowLocks) qb.forUpdate();
  return (await qb) as Row | undefined;
}

export async function activeIds(db: Db, model: ContentType, ids: readonly number[], scope: SoftDeleteScope = 'active'): Promise<Set<number>> {
  if (ids.length === 0) return new Set();
  const qb = db.from({ [BASE_ALIAS]: model.table }).select(`${BASE_ALIAS}.id`).whereIn(`${BASE_ALIAS}.id`, [...ids]);
  applySoftDeleteScope(qb, BASE_ALIAS, scope);
  const rows = (await qb) as { id: number }[];
  return new Set(rows.map((r) => Number(r.id)));
}

export async function idByColumn(db: Db, model: ContentType, column: string, value: unknown): Promise<number | undefined> {
  const row = (await db.from(model.table).select('id').where(column, value as Knex.Value).andWhere('deleted_tracker', NOT_DELETED).first()) as { id: number } | undefined;
  return row ? Number(row.id) : undefined;
}

/** INSERT … RETURNING `columns`: the stored row. */
export async function insertReturning(db: Db, model: ContentType, row: Row, columns: readonly string[]): Promise<Row> {
  const [inserted] = (await db(model.table).insert(row).returning([...columns])) as Row[];
  return inserted;
}

/** UPDATE of an active record … RETURNING `columns`; undefined when no active record has that id. */
export async function updateActiveReturning(db: Db, model: ContentType, id: number, row: Row, columns: readonly string[]): Promise<Row | undefined> {
  const [updated] = (await db(model.table).where('id', id).andWhere('deleted_tracker', NOT_DELETED).update(row).returning([...columns])) as Row[];
  return updated;
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
  if (targetIds.length > 0) await db(table).insert(targetIds.map((t) => ({ [ownerColumn]: ownerId, [targetColumn]: t })));
}
