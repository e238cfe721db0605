/**
 * Draft & publish on an `i18n` model (issue 14, DESIGN-NOTES.md "Draft & publish with locales"): each
 * locale row of an entry has its own published copy (same id in `<table>__published`). Publish and
 * unpublish act on one locale row (`locale=<code>`, or the row the id names) or on every locale of the
 * entry (`locale=all`). The entry's first row (its id is the entry id, which relations and the entry's
 * links name) is published first and unpublished last, so a published locale never lacks its entry.
 * Publishing a locale also publishes the entry's shared values (localized: false columns and links) to
 * the entry's other published copies: the published locales of an entry always agree on them.
 */
import type { Knex } from 'knex';
import { ConflictError, NotFoundError } from '../errors/errors';
import * as loc from '../records/locales';
import { type ContentType, NOT_DELETED } from '../registry/types';
import { publishedTable } from './names';

type Db = Knex | Knex.Transaction;

/** The rows a publish (or unpublish) of `id` with `locale=` acts on, in the order to act, and the row whose record answers. */
export async function publishTargets(db: Db, model: ContentType, id: number, locale: loc.LocaleChoice, unpublish: boolean): Promise<{ rows: number[]; answer: number }> {
  if (!model.i18n || locale === null) return { rows: [id], answer: id };
  if (locale !== loc.ALL_LOCALES) {
    const row = await loc.rowFor(db, model, id, locale, 'active');
    return { rows: [row], answer: row };
  }
  const named = await loc.localeRow(db, model, id);
  if (!named || !named.active) throw new NotFoundError(`no ${model.name} with id ${id}`);
  // entryRows: the entry's first row first; unpublish takes it last
  const rows = (await loc.entryRows(db, model, named.entry)).filter((r) => r.active).map((r) => r.id);
  return { rows: unpublish ? rows.reverse() : rows, answer: id };
}

async function copyIds(db: Db, model: ContentType, entry: number): Promise<{ id: number; locale: string; active: boolean }[]> {
  const rows = (await db(publishedTable(model.table)).select(['id', loc.LOCALE_COLUMN, 'deleted_tracker']).where(loc.ENTRY_COLUMN, entry).orderBy('id')) as Record<string, unknown>[];
  return rows.map((r) => ({ id: Number(r.id), locale: String(r[loc.LOCALE_COLUMN]), active: r.deleted_tracker === NOT_DELETED }));
}

/** Publishing another locale of an entry whose first row has no published copy: 409 (publish that one first, or locale=all). */
export async function refuseWithoutPublishedEntry(db: Db, model: ContentType, row: Record<string, unknown>): Promise<void> {
  if (!model.i18n) return;
  const id = Number(row.id);
  const entry = Number(row[loc.ENTRY_COLUMN] ?? id);
  if (entry === id) return;
  if ((await db(publishedTable(model.table)).select('id').where('id', entry).first()) !== undefined) return;
  const first = (await db(model.table).select(loc.LOCALE_COLUMN).where('id', entry).first()) as Record<string, unknown> | undefined;
  throw new ConflictError(
    `cannot publish ${model.name} ${id} (${String(row[loc.LOCALE_COLUMN])}): the entry's first row ${entry} (${String(first?.[loc.LOCALE_COLUMN] ?? '?')}) is not published; publish it first, or every locale with locale=${loc.ALL_LOCALES}`,
    { entry },
  );
}

/**
 * Unpublishing an entry's first row while other active locales are published: 409 (unpublish those first,
 * or locale=all). Answers the archived locale rows of the entry that still have a copy: the caller removes
 * those copies too (recovered later, they come back unpublished, never published without their entry).
 */
export async function refuseOrphanedCopies(db: Db, model: ContentType, id: number): Promise<number[]> {
  if (!model.i18n) return [];
  const named = await loc.localeRow(db, model, id);
  if (!named || named.entry !== id) return [];
  const copies = (await copyIds(db, model, id)).filter((c) => c.id !== id);
  const others = copies.filter((c) => c.active);
  if (others.length === 0) return copies.map((c) => c.id);
  throw new ConflictError(
    `cannot unpublish ${model.name} ${id}: it is the entry's first row and the entry's ${others.map((c) => c.locale).join(', ')} locale${others.length > 1 ? 's are' : ' is'} still published; unpublish ${others.length > 1 ? 'those' : 'that one'} first, or every locale with locale=${loc.ALL_LOCALES}`,
    { locales: others.map((c) => c.locale) },
  );
}

/** After publishing row `row`: its shared column values reach the entry's other published copies. */
export async function shareToCopies(db: Db, model: ContentType, row: Record<string, unknown>): Promise<void> {
  if (!model.i18n) return;
  const cols = loc.sharedColumns(model);
  if (cols.length === 0) return;
  const id = Number(row.id);
  const entry = Number(row[loc.ENTRY_COLUMN] ?? id);
  const table = publishedTable(model.table);
  // Copied in SQL from the fresh copy: values never round-trip through the driver (json, dates).
  const shared = Object.fromEntries(cols.map((c) => [c, db.raw('(SELECT ?? FROM ?? WHERE id = ?)', [c, table, id])] as const));
  await db(table).where(loc.ENTRY_COLUMN, entry).andWhereNot('id', id).update(shared);
}

/** The entry's other locale rows with an active published copy (those a publish of row `id` shares values to). */
export async function otherPublishedLocales(db: Db, model: ContentType, id: number): Promise<number[]> {
  if (!model.i18n) return [];
  const named = await loc.localeRow(db, model, id);
  if (!named) return [];
  return (await copyIds(db, model, named.entry)).filter((c) => c.active && c.id !== id).map((c) => c.id);
}

/** The id links of row `row` hang off: the entry id on an i18n model (links name entries), else the row's own id. */
export function linkOwnerOf(model: ContentType, row: Record<string, unknown>): number {
  return model.i18n ? Number(row[loc.ENTRY_COLUMN] ?? row.id) : Number(row.id);
}
