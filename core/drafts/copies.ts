/**
 * The published copy of one entry (issue 14): publish copies the working row, the join rows its model
 * owns and its media rows into the shadow tables; unpublish removes them; delete / recover / hard
 * delete keep the copy in step. Every function runs inside the caller's transaction. Each answers the
 * storage keys no row names any more (to delete once the transaction has committed).
 */
import type { Knex } from 'knex';
import { MEDIA_TABLE, PUBLISHED_MEDIA_TABLE, type MediaRow } from '../media/table';
import { mediaFields } from '../media/service';
import { type ContentType, NOT_DELETED } from '../registry/types';
import { ENTRY_COLUMN } from '../records/locales';
import { linkOwnerOf } from './localized';
import { publishedTable } from './names';

type Db = Knex | Knex.Transaction;
type Row = Record<string, unknown>;

/** Ids per `IN (…)` list of linksToCopy. */
const ID_CHUNK = 500;
const MEDIA_COLUMNS = ['name', 'mime', 'size', 'sha256', 'storage_key', 'model', 'field', 'record_id', 'created_at'] as const;

function ownedJoins(model: ContentType): { table: string; ownerColumn: string; targetColumn: string }[] {
  return model.attributes.flatMap((a) => (a.kind === 'relation' && a.owner && a.joinTable ? [a.joinTable] : []));
}

async function dropKeysOfCopy(db: Db, model: ContentType, id: number): Promise<string[]> {
  if (mediaFields(model).length === 0) return [];
  const rows = (await db(PUBLISHED_MEDIA_TABLE).select('storage_key').where({ model: model.name, record_id: id })) as Pick<MediaRow, 'storage_key'>[];
  if (rows.length === 0) return [];
  await db(PUBLISHED_MEDIA_TABLE).where({ model: model.name, record_id: id }).del();
  const keys = rows.map((r) => r.storage_key);
  const held = new Set(((await db(MEDIA_TABLE).select('storage_key').whereIn('storage_key', keys)) as Pick<MediaRow, 'storage_key'>[]).map((r) => r.storage_key));
  return keys.filter((k) => !held.has(k));
}

/** The published links of the owner `owner` (every owned relation), to tell whether a publish changed them. */
export async function publishedLinks(db: Db, model: ContentType, owner: number): Promise<string> {
  const out: unknown[] = [];
  for (const j of ownedJoins(model)) out.push(((await db(publishedTable(j.table)).select(j.targetColumn).where(j.ownerColumn, owner).orderBy('id')) as Row[]).map((r) => Number(r[j.targetColumn])));
  return JSON.stringify(out);
}

/**
 * The links publishing the working rows `ids` would copy (writeCopy: each row copies its entry's owned
 * links), counted before anything is written (WRITE_MAX_LINKS, core/records/write-limits.ts).
 */
export async function linksToCopy(db: Db, model: ContentType, ids: readonly number[]): Promise<number> {
  const joins = ownedJoins(model);
  if (joins.length === 0 || ids.length === 0) return 0;
  const owners: number[] = [];
  for (let at = 0; at < ids.length; at += ID_CHUNK) {
    const piece = ids.slice(at, at + ID_CHUNK);
    if (!model.i18n) for (const id of piece) owners.push(id);
    else for (const row of (await db(model.table).select('id', ENTRY_COLUMN).whereIn('id', piece)) as Row[]) owners.push(linkOwnerOf(model, row));
  }
  const perOwner = new Map<number, number>();
  const distinct = [...new Set(owners)];
  for (const j of joins) {
    for (let at = 0; at < distinct.length; at += ID_CHUNK) {
      const rows = (await db(j.table).select(j.ownerColumn).count({ n: '*' }).whereIn(j.ownerColumn, distinct.slice(at, at + ID_CHUNK)).groupBy(j.ownerColumn)) as Row[];
      for (const r of rows) perOwner.set(Number(r[j.ownerColumn]), (perOwner.get(Number(r[j.ownerColumn])) ?? 0) + Number(r.n));
    }
  }
  let n = 0;
  for (const owner of owners) n += perOwner.get(owner) ?? 0;
  return n;
}

/** Removes the published copy of entry `id` (row, owned links, media rows); answers keys nothing names now. */
export async function removeCopy(db: Db, model: ContentType, id: number): Promise<string[]> {
  for (const j of ownedJoins(model)) await db(publishedTable(j.table)).where(j.ownerColumn, id).del();
  const keys = await dropKeysOfCopy(db, model, id);
  await db(publishedTable(model.table)).where('id', id).del();
  return keys;
}

/** True when entry `id` has a published copy (archived or not). */
export async function hasCopy(db: Db, model: ContentType, id: number): Promise<boolean> {
  return (await db(publishedTable(model.table)).select('id').where('id', id).first()) !== undefined;
}

/**
 * Publishes the working row `row` (every column, as stored) of entry `id`, replacing its earlier copy.
 * `publishedAt` (already set on `row`'s table by this call) is the moment of publishing, on the copy and on the working row (which tells editors an
 * entry has a published version); the working row's `updatedAt` is left alone.
 */
export async function writeCopy(db: Db, model: ContentType, id: number, row: Row, publishedAt: string): Promise<string[]> {
  const dropped = await removeCopy(db, model, id);
  await db(model.table).where('id', id).update({ published_at: publishedAt });
  // Copied in SQL, column for column: values never round-trip through the driver (json arrays, dates).
  const columns = Object.keys(row);
  const list = columns.map(() => '??').join(', ');
  await db.raw(`INSERT INTO ?? (${list}) SELECT ${list} FROM ?? WHERE id = ?`, [publishedTable(model.table), ...columns, ...columns, model.table, id]);
  // Links hang off the entry id (i18n models: every locale of the entry shares them; localized.ts).
  const owner = linkOwnerOf(model, row);
  for (const j of ownedJoins(model)) {
    if (owner !== id) await db(publishedTable(j.table)).where(j.ownerColumn, owner).del();
    // One INSERT … SELECT, not a multi-row INSERT of the rows read (SQLite refuses one of more than 500 rows)
    await db.raw('INSERT INTO ?? (??, ??) SELECT ??, ?? FROM ?? WHERE ?? = ? ORDER BY ??', [publishedTable(j.table), j.ownerColumn, j.targetColumn, j.ownerColumn, j.targetColumn, j.table, j.ownerColumn, owner, 'id']);
  }
  if (mediaFields(model).length === 0) return dropped;
  const m = MEDIA_COLUMNS.map(() => '??').join(', ');
  await db.raw(`INSERT INTO ?? (${m}) SELECT ${m} FROM ?? WHERE model = ? AND record_id = ? ORDER BY id`, [PUBLISHED_MEDIA_TABLE, ...MEDIA_COLUMNS, ...MEDIA_COLUMNS, MEDIA_TABLE, model.name, id]);
  // Keys the old copy showed that the new one shows again are still named: only the others go.
  const kept = new Set(((await db(PUBLISHED_MEDIA_TABLE).select('storage_key').where({ model: model.name, record_id: id })) as Pick<MediaRow, 'storage_key'>[]).map((r) => r.storage_key));
  return dropped.filter((k) => !kept.has(k));
}

/**
 * The working row of an active entry, every column, or undefined. `lock` (dialects with row locks):
 * FOR UPDATE, so two publishes of one entry run one after the other.
 */
export async function workingRow(db: Db, model: ContentType, id: number, lock = false): Promise<Row | undefined> {
  const qb = db(model.table).select('*').where('id', id).andWhere('deleted_tracker', NOT_DELETED).first();
  if (lock) qb.forUpdate();
  return (await qb) as Row | undefined;
}

/** Soft delete / recover of an entry: its published copy takes the same soft-delete columns. */
export async function mirrorSoftDelete(db: Db, model: ContentType, id: number, columns: Row): Promise<void> {
  await db(publishedTable(model.table)).where('id', id).update(columns);
}

/** Entry id → [working row's updated_at, published copy's updated_at or undefined] for `ids`. */
export async function versions(db: Db, model: ContentType, ids: readonly number[]): Promise<Map<number, { draft: unknown; published: unknown }>> {
  const out = new Map<number, { draft: unknown; published: unknown }>();
  if (ids.length === 0) return out;
  for (let i = 0; i < ids.length; i += 500) {
    const part = ids.slice(i, i + 500);
    const rows = (await db({ d: model.table })
      .leftJoin({ p: publishedTable(model.table) }, 'p.id', 'd.id')
      .select({ id: 'd.id', draft: 'd.updated_at', published: 'p.updated_at', pid: 'p.id' })
      .whereIn('d.id', part)) as { id: number; draft: unknown; published: unknown; pid: number | null }[];
    for (const r of rows) out.set(Number(r.id), { draft: r.draft, published: r.pid === null || r.pid === undefined ? undefined : r.published });
  }
  return out;
}

const stampOf = (v: unknown): string => (v instanceof Date ? String(v.getTime()) : String(v));

/** True when entry `id` has a published copy its working row has not changed since (same updatedAt). */
export async function inSync(db: Db, model: ContentType, id: number): Promise<boolean> {
  const v = (await versions(db, model, [id])).get(id);
  return v !== undefined && v.published !== undefined && stampOf(v.draft) === stampOf(v.published);
}
