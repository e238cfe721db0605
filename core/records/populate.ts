/**
 * Populate: one query per relation level, never one per record (issue 3, Performance). Parent rows
 * carry their ids and foreign keys; each level fetches every child of every parent at once.
 *
 * Bounds (issue 13): a to-many level shows at most `page.limit` children per parent from `page.offset`
 * on, in its sort, cut in SQL by ROW_NUMBER() OVER (PARTITION BY <parent key>) (SQLite ≥ 3.25 and
 * PostgreSQL alike); and every level counts the records the answer will show against a RecordBudget
 * (ANSWER_MAX_RECORDS) before the next level is fetched.
 */
import type { Knex } from 'knex';
import type { Dialect } from '../../database/dialects/dialect';
import { BASE_ALIAS, type CheckedPopulate, type CheckedSort, type SelectedField, proveColumn } from '../query/checked';
import { compileFilter } from '../query/compile-filter';
import { sortKey } from '../query/compile-list';
import { applyJoins, applySoftDeleteScope, applySort, selectColumns, sortOrder } from '../query/compile-list';
import type { RelationAttribute } from '../registry/types';
import { type RecordBudget, unbounded } from './answer-budget';
import { type ApiRecord, type Row, serializeRow } from './serializer';

const LINK = '__link';
const RANK = '__rank';
const WINDOW = '__w';
const CHUNK = 500;

/** Columns a level must load besides what it shows: its id and the foreign keys its populates follow. */
export function linkColumns(populate: readonly CheckedPopulate[]): SelectedField[] {
  const out: SelectedField[] = [{ name: 'id', column: 'id', type: 'integer' }];
  for (const p of populate) if (p.relation.owner && p.relation.column) out.push({ name: p.relation.name, column: p.relation.column, type: 'integer' });
  // issue 14: an i18n parent is linked by its entry id (every table has the column; null outside i18n models)
  if (populate.some((p) => !(p.relation.owner && p.relation.column))) out.push({ name: 'defaultEntityLocaleId', column: 'default_entity_locale_id', type: 'integer' });
  return out;
}

export function withLinks(select: readonly SelectedField[], populate: readonly CheckedPopulate[]): SelectedField[] {
  const out = [...select];
  for (const l of linkColumns(populate)) if (!out.some((f) => f.column === l.column)) out.push(l);
  return out;
}

function chunks<T>(list: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < list.length; i += CHUNK) out.push(list.slice(i, i + CHUNK));
  return out;
}

function isToMany(r: RelationAttribute): boolean {
  return r.relation === 'oneToMany' || r.relation === 'manyToMany';
}

/**
 * The parent's value a child is linked by: the foreign key of an owning to-one, else the parent's id (its
 * entry's id for a locale row of an i18n model, issue 14: links name entries).
 */
function parentKey(rel: RelationAttribute, row: Row): unknown {
  return rel.owner && rel.column ? row[rel.column] : (row.default_entity_locale_id ?? row.id);
}

/** `ORDER BY` text of a sort, for the window: NULLs smallest, text in byte order (as applySort). */
function windowOrder(sort: readonly CheckedSort[], dialect: Dialect): { sql: string; bindings: unknown[] } {
  const parts: string[] = [];
  const bindings: unknown[] = [];
  for (const s of sort) {
    const key = sortKey(s, dialect);
    parts.push(`${key.sql} ${sortOrder(s, dialect)}`);
    bindings.push(...key.bindings);
  }
  return { sql: parts.join(', '), bindings };
}

/**
 * Fetches the children of `parents` for one relation: rows tagged with the parent key they belong to,
 * each parent's children in order. At most `maxRows` rows (more would be past the record budget anyway).
 */
async function fetchChildren(db: Knex, dialect: Dialect, parents: readonly Row[], p: CheckedPopulate, maxRows: number): Promise<{ row: Row; key: unknown }[]> {
  const rel = p.relation;
  const select = withLinks(p.select, p.populate);
  const keys = [...new Set(parents.map((r) => parentKey(rel, r)).filter((k) => k !== null && k !== undefined))];
  if (keys.length === 0 || p.page?.limit === 0) return [];
  const sort: readonly CheckedSort[] = p.sort.length ? p.sort : [{ column: proveColumn(BASE_ALIAS, 'id'), direction: 'asc' }];
  const out: { row: Row; key: unknown }[] = [];
  for (const part of chunks(keys)) {
    const room = maxRows - out.length;
    if (room <= 0) break;
    const qb = db.from({ [BASE_ALIAS]: p.target.table });
    applySoftDeleteScope(qb, BASE_ALIAS, 'active');
    applyJoins(qb, p.joins, dialect);
    qb.select(selectColumns(BASE_ALIAS, select));
    let link: string;
    if (rel.owner && rel.column) {
      link = `${BASE_ALIAS}.id`;
    } else if (rel.joinTable) {
      qb.join({ j: rel.joinTable.table }, `j.${rel.joinTable.targetColumn}`, `${BASE_ALIAS}.id`);
      link = `j.${rel.joinTable.ownerColumn}`;
    } else {
      const mirror = rel.inverse ? p.target.byName.get(rel.inverse) : undefined;
      if (!mirror || mirror.kind !== 'relation' || !mirror.column) throw new Error(`registry: ${rel.name} has no owning side`);
      link = `${BASE_ALIAS}.${mirror.column}`;
      // issue 14: every locale row of an i18n child shares the link; the entry shows once, as its default-locale row
      if (p.target.i18n) qb.whereRaw('?? = ??', [`${BASE_ALIAS}.id`, `${BASE_ALIAS}.default_entity_locale_id`]);
    }
    qb.whereIn(link, part as Knex.Value[]).select(db.raw('?? as ??', [link, LINK]));
    if (p.filter) compileFilter(qb, p.filter, dialect);
    let query: Knex.QueryBuilder;
    if (p.page) {
      // Rank each parent's children in the populate's sort; keep ranks offset+1 … offset+limit.
      const order = windowOrder(sort, dialect);
      qb.select(db.raw(`ROW_NUMBER() OVER (PARTITION BY ?? ORDER BY ${order.sql}) as ??`, [link, ...order.bindings, RANK] as Knex.RawBinding[]));
      query = db
        .from(qb.as(WINDOW))
        .select('*')
        .where(RANK, '>', p.page.offset)
        .andWhere(RANK, '<=', p.page.offset + p.page.limit)
        .orderBy([{ column: RANK }, { column: LINK }]);
    } else {
      applySort(qb, sort, dialect);
      query = qb;
    }
    if (Number.isFinite(room)) query.limit(room);
    for (const row of (await query) as Row[]) out.push({ row, key: row[LINK] });
  }
  return out;
}

/**
 * `rows` serialized with `select`, every populated relation nested, level by level. `weights[i]`: how
 * many times row i appears in the answer (the sum of its parents' weights), counted into `budget`.
 */
async function nest(db: Knex, dialect: Dialect, rows: readonly Row[], weights: readonly number[], select: readonly SelectedField[], populate: readonly CheckedPopulate[], budget: RecordBudget): Promise<ApiRecord[]> {
  const out = rows.map((r) => serializeRow(r, select));
  for (const p of populate) {
    const rel = p.relation;
    const weightOf = new Map<string, number>();
    rows.forEach((r, i) => {
      const k = parentKey(rel, r);
      if (k !== null && k !== undefined) weightOf.set(String(k), (weightOf.get(String(k)) ?? 0) + weights[i]);
    });
    // Every child row appears at least once: one row past the budget already decides.
    const children = await fetchChildren(db, dialect, rows, p, budget.remaining() + 1);
    const childWeights = children.map((c) => weightOf.get(String(c.key)) ?? 0);
    budget.add(childWeights.reduce((a, b) => a + b, 0));
    const nested = await nest(db, dialect, children.map((c) => c.row), childWeights, p.select, p.populate, budget);
    const byKey = new Map<string, ApiRecord[]>();
    children.forEach((c, i) => {
      const k = String(c.key);
      const list = byKey.get(k) ?? [];
      list.push(nested[i]);
      byKey.set(k, list);
    });
    rows.forEach((r, i) => {
      const found = byKey.get(String(parentKey(rel, r))) ?? [];
      out[i][rel.name] = isToMany(rel) ? found : (found[0] ?? null);
    });
  }
  return out;
}

/**
 * Serializes `rows` with `select` and nests every populated relation, level by level. `budget` counts
 * the rows themselves and every populated record (ANSWER_MAX_RECORDS); without one, nothing is counted.
 */
export async function serializeWithPopulate(db: Knex, dialect: Dialect, rows: readonly Row[], select: readonly SelectedField[], populate: readonly CheckedPopulate[], budget: RecordBudget = unbounded()): Promise<ApiRecord[]> {
  budget.add(rows.length);
  return nest(db, dialect, rows, rows.map(() => 1), select, populate, budget);
}
