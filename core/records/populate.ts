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
import { type RecordBudget, textChars, unbounded } from './answer-budget';
import { type ApiRecord, type Row, serializeRow } from './serializer';
import { mapInTurns } from './turns';

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
 * Rows a level's first query reads when it shows text or JSON values: a row holds up to about
 * BODY_MAX_BYTES (1 MiB) of them, so 16 rows are about the default ANSWER_MAX_BYTES (16 MiB).
 */
const FIRST_PAGE_ROWS = 16;
/** Bounds of the later queries' rows: as many as the bytes left would hold at the rows' size so far. */
const MIN_PAGE_ROWS = 4;
const MAX_PAGE_ROWS = 4096;

/** Types whose values have no length bound but the body's. */
const UNBOUNDED = new Set<string>(['text', 'json']);

/** Does a level show values of a type without a length bound of its own (text, json)? */
const showsLongValues = (select: readonly SelectedField[]): boolean => select.some((f) => UNBOUNDED.has(f.type));

/** Rows of the first query of a level: all of them, unless they show long values and the answer's bytes are bounded. */
export function firstPageRows(select: readonly SelectedField[], budget: RecordBudget): number {
  return Number.isFinite(budget.remainingBytes()) && showsLongValues(select) ? FIRST_PAGE_ROWS : Number.POSITIVE_INFINITY;
}

/** Rows of the next query: as many as `bytesLeft` would hold at `chars` characters per `rows` rows so far. */
export function nextPageRows(bytesLeft: number, chars: number, rows: number): number {
  return Math.min(MAX_PAGE_ROWS, Math.max(MIN_PAGE_ROWS, Math.ceil(bytesLeft / Math.max(1, chars / Math.max(1, rows))) + 1));
}

/** The id column alone: what the first query of a two-step level reads. */
const ID_ONLY: readonly SelectedField[] = [{ name: 'id', column: 'id', type: 'integer' }];

/**
 * Reads `ids` of `p.target` with `select`, a page of rows at a time while they show long values and
 * the answer's bytes are bounded, counting their text into `budget`, each row as many times as it is
 * shown (`shownTimes`).
 */
async function rowsById(db: Knex, p: CheckedPopulate, select: readonly SelectedField[], ids: readonly unknown[], budget: RecordBudget, shownTimes: ReadonlyMap<string, number>): Promise<Map<string, Row>> {
  const out = new Map<string, Row>();
  let pageRows = firstPageRows(p.select, budget);
  for (let at = 0; at < ids.length; ) {
    const part = ids.slice(at, at + Math.min(pageRows, CHUNK));
    at += part.length;
    const qb = db.from({ [BASE_ALIAS]: p.target.table }).select(selectColumns(BASE_ALIAS, select)).whereIn(`${BASE_ALIAS}.id`, part as Knex.Value[]);
    applySoftDeleteScope(qb, BASE_ALIAS, 'active');
    const rows = (await qb) as Row[];
    let chars = 0;
    for (const row of rows) {
      out.set(String(row.id), row);
      chars += textChars(row, p.select) * (shownTimes.get(String(row.id)) ?? 0);
    }
    budget.addBytes(chars);
    if (rows.length > 0) pageRows = nextPageRows(budget.remainingBytes(), chars, rows.length);
  }
  return out;
}

/**
 * Fetches the children of `parents` for one relation: rows tagged with the parent key they belong to,
 * each parent's children in order. At most `budget.remaining() + 1` rows (more would be past the record
 * budget anyway). As rows are read, each counts into the budget's records, and the text it shows into
 * its bytes, as many times as its parent appears (`weightOf`), so an answer past ANSWER_MAX_BYTES is
 * refused after about that many bytes of rows were read, not after all of them (10 articles × 100
 * tags of 1 MB notes: 1 GB). A level showing long values (text, json) is read a page of rows at a time; a many-to-many one
 * in two steps: which records each parent shows (ids only), then each of those records once (a tag
 * shown under 10 articles is read, and its json parsed by the driver, once, not 10 times).
 */
async function fetchChildren(db: Knex, dialect: Dialect, parents: readonly Row[], p: CheckedPopulate, budget: RecordBudget, weightOf: ReadonlyMap<string, number>): Promise<{ row: Row; key: unknown }[]> {
  const rel = p.relation;
  const select = withLinks(p.select, p.populate);
  const maxRows = budget.remaining() + 1;
  const keys = [...new Set(parents.map((r) => parentKey(rel, r)).filter((k) => k !== null && k !== undefined))];
  if (keys.length === 0 || p.page?.limit === 0) return [];
  const sort: readonly CheckedSort[] = p.sort.length ? p.sort : [{ column: proveColumn(BASE_ALIAS, 'id'), direction: 'asc' }];
  const twoSteps = rel.joinTable !== undefined && rel.joinTable !== null && Number.isFinite(budget.maxBytes) && showsLongValues(p.select);
  const out: { row: Row; key: unknown }[] = [];
  const build = (part: readonly unknown[]): Knex.QueryBuilder => {
    const qb = db.from({ [BASE_ALIAS]: p.target.table });
    applySoftDeleteScope(qb, BASE_ALIAS, 'active');
    applyJoins(qb, p.joins, dialect);
    qb.select(selectColumns(BASE_ALIAS, twoSteps ? ID_ONLY : select));
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
    if (!p.page) {
      applySort(qb, sort, dialect);
      return qb;
    }
    // Rank each parent's children in the populate's sort; keep ranks offset+1 … offset+limit.
    const order = windowOrder(sort, dialect);
    qb.select(db.raw(`ROW_NUMBER() OVER (PARTITION BY ?? ORDER BY ${order.sql}) as ??`, [link, ...order.bindings, RANK] as Knex.RawBinding[]));
    return db
      .from(qb.as(WINDOW))
      .select('*')
      .where(RANK, '>', p.page.offset)
      .andWhere(RANK, '<=', p.page.offset + p.page.limit)
      .orderBy([{ column: RANK }, { column: LINK }]);
  };
  for (const part of chunks(keys)) {
    // A windowed query is ordered by (rank, parent): it can be read a page at a time.
    let pageRows = p.page && !twoSteps ? firstPageRows(p.select, budget) : Number.POSITIVE_INFINITY;
    for (let read = 0; ; ) {
      const room = maxRows - out.length;
      if (room <= 0) break;
      const take = Math.min(room, pageRows);
      const query = build(part);
      if (Number.isFinite(take)) query.limit(take);
      if (read > 0) query.offset(read);
      const rows = (await query) as Row[];
      let shown = 0;
      let chars = 0;
      for (const row of rows) {
        const key = row[LINK];
        out.push({ row, key });
        const w = weightOf.get(String(key)) ?? 0;
        shown += w;
        if (!twoSteps) chars += textChars(row, p.select) * w;
      }
      // Records first: the bound a request of too many records passes, whatever their size.
      budget.add(shown);
      budget.addBytes(chars);
      if (!(rows.length === take && take < room)) break;
      read += rows.length;
      pageRows = nextPageRows(budget.remainingBytes(), chars, rows.length);
    }
  }
  if (!twoSteps) return out;
  // Each record shown once read, in the order first shown, counted as many times as it is shown.
  const shownTimes = new Map<string, number>();
  for (const c of out) {
    const id = String(c.row.id);
    shownTimes.set(id, (shownTimes.get(id) ?? 0) + (weightOf.get(String(c.key)) ?? 0));
  }
  const rows = await rowsById(db, p, select, [...new Set(out.map((c) => c.row.id))], budget, shownTimes);
  // A record deleted between the two steps is not shown (as if the first step had run after).
  return out.flatMap((c) => {
    const row = rows.get(String(c.row.id));
    return row ? [{ row, key: c.key }] : [];
  });
}

/**
 * `rows` serialized with `select`, every populated relation nested, level by level. `weights[i]`: how
 * many times row i appears in the answer (the sum of its parents' weights), counted into `budget`.
 * A record a level shows under several parents (a tag of many articles) is read into one object,
 * nested once and shown under each (json-answer.ts serializes a repeated object once).
 */
async function nest(db: Knex, dialect: Dialect, rows: readonly Row[], weights: readonly number[], select: readonly SelectedField[], populate: readonly CheckedPopulate[], budget: RecordBudget): Promise<ApiRecord[]> {
  const out = await mapInTurns(rows, (r) => serializeRow(r, select));
  for (const p of populate) {
    const rel = p.relation;
    const weightOf = new Map<string, number>();
    rows.forEach((r, i) => {
      const k = parentKey(rel, r);
      if (k !== null && k !== undefined) weightOf.set(String(k), (weightOf.get(String(k)) ?? 0) + weights[i]);
    });
    const children = await fetchChildren(db, dialect, rows, p, budget, weightOf);
    // One row per record, its weight the sum of the parents it appears under.
    const indexOf = new Map<string, number>();
    const distinct: Row[] = [];
    const distinctWeights: number[] = [];
    const at: number[] = [];
    for (const c of children) {
      const w = weightOf.get(String(c.key)) ?? 0;
      const id = String(c.row.id);
      let i = indexOf.get(id);
      if (i === undefined) {
        i = distinct.length;
        indexOf.set(id, i);
        distinct.push(c.row);
        distinctWeights.push(0);
      }
      distinctWeights[i] += w;
      at.push(i);
    }
    const nested = await nest(db, dialect, distinct, distinctWeights, p.select, p.populate, budget);
    const byKey = new Map<string, ApiRecord[]>();
    children.forEach((c, i) => {
      const k = String(c.key);
      const list = byKey.get(k) ?? [];
      list.push(nested[at[i]]);
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
 * the rows themselves and every populated record (ANSWER_MAX_RECORDS), and the text they show
 * (ANSWER_MAX_BYTES); without one, nothing is counted.
 */
export async function serializeWithPopulate(db: Knex, dialect: Dialect, rows: readonly Row[], select: readonly SelectedField[], populate: readonly CheckedPopulate[], budget: RecordBudget = unbounded()): Promise<ApiRecord[]> {
  budget.add(rows.length);
  if (Number.isFinite(budget.maxBytes)) budget.addBytes(rows.reduce((n, r) => n + textChars(r, select), 0));
  return nest(db, dialect, rows, rows.map(() => 1), select, populate, budget);
}
