/**
 * Populate: one query per relation level, never one per record (issue 3, Performance). Parent rows
 * carry their ids and foreign keys; each level fetches every child of every parent at once.
 */
import type { Knex } from 'knex';
import type { Dialect } from '../../database/dialects/dialect';
import { BASE_ALIAS, type CheckedPopulate, type SelectedField, proveColumn } from '../query/checked';
import { compileFilter } from '../query/compile-filter';
import { applyJoins, applySoftDeleteScope, applySort, selectColumns } from '../query/compile-list';
import type { RelationAttribute } from '../registry/types';
import { type ApiRecord, type Row, serializeRow } from './serializer';

const LINK = '__link';
const CHUNK = 500;

/** Columns a level must load besides what it shows: its id and the foreign keys its populates follow. */
export function linkColumns(populate: readonly CheckedPopulate[]): SelectedField[] {
  const out: SelectedField[] = [{ name: 'id', column: 'id', type: 'integer' }];
  for (const p of populate) if (p.relation.owner && p.relation.column) out.push({ name: p.relation.name, column: p.relation.column, type: 'integer' });
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

/** Fetches the children of `parents` for one relation: rows tagged with the parent key they belong to. */
async function fetchChildren(db: Knex, dialect: Dialect, parents: readonly Row[], p: CheckedPopulate): Promise<{ row: Row; key: unknown }[]> {
  const rel = p.relation;
  const select = withLinks(p.select, p.populate);
  const keys = [...new Set(parents.map((r) => (rel.owner && rel.column ? r[rel.column] : r.id)).filter((k) => k !== null && k !== undefined))];
  if (keys.length === 0) return [];
  const out: { row: Row; key: unknown }[] = [];
  for (const part of chunks(keys)) {
    const qb = db.from({ [BASE_ALIAS]: p.target.table });
    applySoftDeleteScope(qb, BASE_ALIAS, 'active');
    applyJoins(qb, p.joins);
    qb.select(selectColumns(BASE_ALIAS, select));
    if (rel.owner && rel.column) {
      qb.whereIn(`${BASE_ALIAS}.id`, part as Knex.Value[]).select(db.raw('?? as ??', [`${BASE_ALIAS}.id`, LINK]));
    } else if (rel.joinTable) {
      qb.join({ j: rel.joinTable.table }, `j.${rel.joinTable.targetColumn}`, `${BASE_ALIAS}.id`)
        .whereIn(`j.${rel.joinTable.ownerColumn}`, part as Knex.Value[])
        .select(db.raw('?? as ??', [`j.${rel.joinTable.ownerColumn}`, LINK]));
    } else {
      const mirror = rel.inverse ? p.target.byName.get(rel.inverse) : undefined;
      if (!mirror || mirror.kind !== 'relation' || !mirror.column) throw new Error(`registry: ${rel.name} has no owning side`);
      qb.whereIn(`${BASE_ALIAS}.${mirror.column}`, part as Knex.Value[]).select(db.raw('?? as ??', [`${BASE_ALIAS}.${mirror.column}`, LINK]));
    }
    if (p.filter) compileFilter(qb, p.filter, dialect);
    applySort(qb, p.sort.length ? p.sort : [{ column: proveColumn(BASE_ALIAS, 'id'), direction: 'asc' }], dialect);
    for (const row of (await qb) as Row[]) out.push({ row, key: row[LINK] });
  }
  return out;
}

/** Serializes `rows` with `select` and nests every populated relation, level by level. */
export async function serializeWithPopulate(db: Knex, dialect: Dialect, rows: readonly Row[], select: readonly SelectedField[], populate: readonly CheckedPopulate[]): Promise<ApiRecord[]> {
  const out = rows.map((r) => serializeRow(r, select));
  for (const p of populate) {
    const children = await fetchChildren(db, dialect, rows, p);
    const nested = await serializeWithPopulate(db, dialect, children.map((c) => c.row), p.select, p.populate);
    const byKey = new Map<string, ApiRecord[]>();
    children.forEach((c, i) => {
      const k = String(c.key);
      const list = byKey.get(k) ?? [];
      list.push(nested[i]);
      byKey.set(k, list);
    });
    const rel = p.relation;
    rows.forEach((r, i) => {
      const key = String(rel.owner && rel.column ? r[rel.column] : r.id);
      const found = byKey.get(key) ?? [];
      out[i][rel.name] = isToMany(rel) ? found : (found[0] ?? null);
    });
  }
  return out;
}

