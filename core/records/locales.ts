/**
 * Locales (issue 14): each locale of an entry of an `i18n: true` model is a row of the model's own table,
 * with `locale_name` set and `default_entity_locale_id` = the id of the entry's default-locale row (that
 * row points at itself). That id is the entry's id: relations store it, and every row of the entry
 * shares the values of `localized: false` attributes and of relations. DESIGN-NOTES.md, Locales.
 */
import type { LocaleSettings } from '../../config/locales';
import { BadRequestError, ConflictError, NotFoundError } from '../errors/errors';
import type { SoftDeleteScope } from '../query/ast';
import { BASE_ALIAS, type CheckedFilter, type CheckedQuery, proveColumn } from '../query/checked';
import type { CheckedGroupQuery } from '../query/check-group';
import { applySoftDeleteScope } from '../query/compile-list';
import { foldColumnName, isFolded } from '../registry/fold';
import { type ContentType, NOT_DELETED } from '../registry/types';
import type { Db } from './repository';
import type { ApiRecord, Row } from './serializer';
import { clip } from '../errors/client-text';

/** `locale=all`: every locale (Find, DELETE, recover). */
export const ALL_LOCALES = 'all';
export const LOCALE_PARAM = 'locale';
export const ENTRY_COLUMN = 'default_entity_locale_id';
export const LOCALE_COLUMN = 'locale_name';

/** A request's `locale=`: null when absent. */
export type LocaleChoice = string | typeof ALL_LOCALES | null;

/** One locale row of an entry. */
export interface LocaleRow {
  readonly id: number;
  readonly locale: string;
  readonly entry: number;
  readonly active: boolean;
}

/**
 * `locale=` of a request on `model` → the code, `all` (where `allowAll`) or null (absent). A model without
 * i18n takes no locale; an unknown or unconfigured code → 400 naming the allowed ones.
 */
export function readLocale(query: Record<string, unknown>, model: ContentType, settings: LocaleSettings, allowAll: boolean): LocaleChoice {
  const raw = query[LOCALE_PARAM];
  if (raw === undefined) return null;
  if (!model.i18n) throw new BadRequestError(`${model.name} has no locales (its model does not set i18n: true): leave out locale=`, { parameter: LOCALE_PARAM });
  const allowed = [...settings.list, ...(allowAll ? [ALL_LOCALES] : [])];
  if (typeof raw !== 'string' || !allowed.includes(raw)) {
    throw new BadRequestError(`locale=${clip(typeof raw === 'string' ? raw : JSON.stringify(raw))} is not a configured locale; allowed: ${allowed.join(', ')}`, { parameter: LOCALE_PARAM, allowed });
  }
  return raw;
}

/** The shared columns of an i18n model: those of `localized: false` attributes and relations (with their folds). */
export function sharedColumns(model: ContentType): string[] {
  const out: string[] = [];
  for (const a of model.attributes) {
    if (a.localized !== false) continue;
    if (a.kind === 'scalar') {
      out.push(a.column);
      if (isFolded(model, a)) out.push(foldColumnName(a.column));
    } else if (a.kind === 'relation' && a.column) {
      out.push(a.column);
    }
  }
  return out;
}

/** Attributes a localization body may not name: the shared ones (written through the entry's update). */
export function sharedFieldNames(model: ContentType): string[] {
  return model.attributes.flatMap((a) => (a.localized !== false ? [] : a.kind === 'relation' ? (a.idField ? [a.idField, ...(a.userKeyField ? [a.userKeyField] : [])] : [a.name]) : [a.name]));
}

function localeCompare(locale: string): CheckedFilter {
  return { kind: 'compare', column: proveColumn(BASE_ALIAS, LOCALE_COLUMN), op: '$eq', negated: false, value: locale, valueClass: 'text' };
}

function andLocale(filter: CheckedFilter | null, locale: string): CheckedFilter {
  return filter ? { kind: 'and', items: [filter, localeCompare(locale)] } : localeCompare(locale);
}

/** Find on an i18n model lists one locale (default: DEFAULT_LOCALE) or, with `locale=all`, every one. */
export function listInLocale(q: CheckedQuery, choice: LocaleChoice, settings: LocaleSettings): CheckedQuery {
  if (!q.model.i18n || choice === ALL_LOCALES) return q;
  return { ...q, filter: andLocale(q.filter, choice ?? settings.defaultLocale) };
}

export function groupInLocale(q: CheckedGroupQuery, choice: LocaleChoice, settings: LocaleSettings): CheckedGroupQuery {
  if (!q.model.i18n || choice === ALL_LOCALES) return q;
  const locale = choice ?? settings.defaultLocale;
  return { ...q, filter: andLocale(q.filter, locale), records: { ...q.records, filter: andLocale(q.records.filter, locale) } };
}

function toLocaleRow(r: Row): LocaleRow {
  return { id: Number(r.id), locale: String(r[LOCALE_COLUMN]), entry: Number(r[ENTRY_COLUMN] ?? r.id), active: r.deleted_tracker === NOT_DELETED };
}

const ROW_COLUMNS = ['id', LOCALE_COLUMN, ENTRY_COLUMN, 'deleted_tracker'];

/** Row `id` of an i18n model (active or archived), or undefined. */
export async function localeRow(db: Db, model: ContentType, id: number): Promise<LocaleRow | undefined> {
  const r = (await db(model.table).select(ROW_COLUMNS).where('id', id).first()) as Row | undefined;
  return r ? toLocaleRow(r) : undefined;
}

/** Every row of entry `entry` (active and archived), default-locale row first. */
export async function entryRows(db: Db, model: ContentType, entry: number): Promise<LocaleRow[]> {
  const rows = (await db(model.table).select(ROW_COLUMNS).where(ENTRY_COLUMN, entry).orderBy('id')) as Row[];
  return rows.map(toLocaleRow).sort((a, b) => Number(b.id === entry) - Number(a.id === entry));
}

/**
 * The row a by-id call acts on: the row `id` names when `locale` is absent, else the row of the same entry
 * in `locale` (404 when the entry has none in `scope`).
 */
export async function rowFor(db: Db, model: ContentType, id: number, locale: string | null, scope: SoftDeleteScope): Promise<number> {
  if (!model.i18n || locale === null) return id;
  const named = await localeRow(db, model, id);
  if (!named) throw new NotFoundError(`no ${model.name} with id ${id}`);
  if (named.locale === locale && inScope(named, scope)) return id;
  const qb = db.from({ [BASE_ALIAS]: model.table }).select(`${BASE_ALIAS}.id`).where(`${BASE_ALIAS}.${ENTRY_COLUMN}`, named.entry).andWhere(`${BASE_ALIAS}.${LOCALE_COLUMN}`, locale);
  applySoftDeleteScope(qb, BASE_ALIAS, scope);
  const hit = (await qb.first()) as { id: number } | undefined;
  if (!hit) throw new NotFoundError(`${model.name} ${id} has no ${scope === 'exclusive' ? 'archived ' : ''}${locale} locale`, { locale });
  return Number(hit.id);
}

function inScope(r: LocaleRow, scope: SoftDeleteScope): boolean {
  return scope === 'inclusive' || (scope === 'active') === r.active;
}

/** A freshly inserted default-locale row points at itself: its id is the entry's id. */
export async function markEntry(db: Db, model: ContentType, id: number): Promise<void> {
  await db(model.table).where('id', id).update({ [ENTRY_COLUMN]: id });
}

/** What a write stamps on the rows it changes; the entry's other rows take it too when a shared value reaches them. */
const STAMP_COLUMNS = ['updated_at', 'updated_by_id'];

/** Whether a write of `row` (`linksWritten`: it replaced many-to-many links) reaches the entry's other rows (shareValues). */
export function sharesValues(model: ContentType, row: Row, linksWritten: boolean): boolean {
  return Boolean(model.i18n) && (linksWritten || sharedColumns(model).some((c) => c in row));
}

/** The values of `record` (an answer) every locale of its entry shares: `localized: false` attributes and to-one ids. */
export function sharedAnswerValues(model: ContentType, record: Record<string, unknown> | null | undefined): string {
  if (!record) return '';
  const names = model.attributes.filter((a) => a.localized === false && (a.kind === 'scalar' || (a.kind === 'relation' && a.idField))).map((a) => (a.kind === 'relation' && a.idField ? a.idField : a.name));
  return JSON.stringify(names.map((n) => record[n] ?? null));
}

/** The other active rows of the entry row `rowId` belongs to (the rows a shared value reaches). */
export async function otherActiveRows(db: Db, model: ContentType, rowId: number): Promise<number[]> {
  if (!model.i18n) return [];
  const entry = (await localeRow(db, model, rowId))?.entry ?? rowId;
  return (await entryRows(db, model, entry)).filter((r) => r.id !== rowId && r.active).map((r) => r.id);
}

/**
 * Writes the shared columns found in `row` to every other row of the entry (same transaction as the write).
 * `linksWritten`: the write replaced the entry's many-to-many links (they hang off the entry id, so every
 * row shows them). Either way the other rows changed: they take the write's stamp (`updated_at`,
 * `updated_by_id` from `row`), so on a draft-enabled model each of their drafts now differs from its
 * published copy's stamp and says `_hasUnpublishedChanges` (drafts/annotate.ts compares the stamps).
 * Returns the ids of the other active rows, which changed with it (each is a record change: issue 15).
 */
export async function shareValues(db: Db, model: ContentType, rowId: number, row: Row, linksWritten = false): Promise<number[]> {
  const shared: Row = {};
  for (const c of sharedColumns(model)) if (c in row) shared[c] = row[c];
  if (Object.keys(shared).length === 0 && !linksWritten) return [];
  for (const c of STAMP_COLUMNS) if (c in row) shared[c] = row[c];
  const entry = (await localeRow(db, model, rowId))?.entry ?? rowId;
  const others = (await entryRows(db, model, entry)).filter((r) => r.id !== rowId);
  if (others.length === 0) return [];
  await db(model.table).where(ENTRY_COLUMN, entry).andWhereNot('id', rowId).update(shared);
  return others.filter((r) => r.active).map((r) => r.id);
}

/** The entry id of record `id` of `target` (links name entries); `id` itself outside i18n models or when unknown. */
export async function entryIdOf(db: Db, target: ContentType, id: number): Promise<number> {
  if (!target.i18n) return id;
  return (await localeRow(db, target, id))?.entry ?? id;
}

/**
 * The entry a user key names (user keys are unique per locale, so a key may be held in several locales):
 * the one entry whose rows hold it, else the entry holding it in `defaultLocale`; undefined when none
 * does; `ambiguous` when several entries hold it and none in the default locale.
 */
export async function entryByKey(db: Db, target: ContentType, column: string, value: unknown, defaultLocale: string): Promise<number | 'ambiguous' | undefined> {
  const rows = (await db(target.table).select(ROW_COLUMNS).where(column, value as string).andWhere('deleted_tracker', NOT_DELETED).orderBy('id')) as Row[];
  const found = rows.map(toLocaleRow);
  const entries = [...new Set(found.map((r) => r.entry))];
  if (entries.length <= 1) return entries[0];
  return found.find((r) => r.locale === defaultLocale)?.entry ?? 'ambiguous';
}

/** The shared column values of the entry's default-locale row, for a new locale row. */
export async function sharedValuesOf(db: Db, model: ContentType, entry: number): Promise<Row> {
  const cols = sharedColumns(model);
  if (cols.length === 0) return {};
  return ((await db(model.table).select(cols).where('id', entry).first()) as Row | undefined) ?? {};
}

/**
 * Adds `localizations: [{ id, locale }]` to each record of an i18n model: the entry's other active locale
 * rows (two queries for the whole answer, archived records included). `ids[i]` is the row id of `records[i]`.
 */
export async function attachLocalizations(db: Db, model: ContentType, ids: readonly number[], records: ApiRecord[]): Promise<void> {
  if (!model.i18n || records.length === 0) return;
  const own = (await db(model.table).select(['id', ENTRY_COLUMN]).whereIn('id', [...new Set(ids)])) as Row[];
  const entryOfRow = new Map(own.map((r) => [Number(r.id), Number(r[ENTRY_COLUMN] ?? r.id)] as const));
  const rows = (await db(model.table)
    .select(['id', LOCALE_COLUMN, ENTRY_COLUMN])
    .whereIn(ENTRY_COLUMN, [...new Set(entryOfRow.values())])
    .andWhere('deleted_tracker', NOT_DELETED)
    .orderBy('id')) as Row[];
  const byEntry = new Map<number, LocaleRow[]>();
  for (const r of rows.map((x) => toLocaleRow({ ...x, deleted_tracker: NOT_DELETED }))) byEntry.set(r.entry, [...(byEntry.get(r.entry) ?? []), r]);
  for (const [i, record] of records.entries()) {
    const entry = entryOfRow.get(ids[i]);
    const others = entry === undefined ? [] : (byEntry.get(entry) ?? []).filter((r) => r.id !== ids[i]);
    record.localizations = others.map((r) => ({ id: r.id, locale: r.locale }));
  }
}

/** Deleting the default-locale row alone would orphan the entry's other locales: refused (use locale=all). */
export function refuseOrphans(model: ContentType, target: LocaleRow, rows: readonly LocaleRow[]): void {
  if (target.id !== target.entry) return;
  const others = rows.filter((r) => r.id !== target.id && r.active);
  if (others.length === 0) return;
  throw new ConflictError(
    `${model.name} ${target.id} is the entry's default-locale row (${target.locale}) and the entry still has ${others.map((r) => r.locale).join(', ')}: delete those locales first, or the whole entry with locale=${ALL_LOCALES}`,
    { locales: others.map((r) => r.locale) },
  );
}

/** Recovering another locale of an entry whose default-locale row is archived: refused (recover that one first, or locale=all). */
export function refuseWithoutEntry(model: ContentType, target: LocaleRow, rows: readonly LocaleRow[]): void {
  const anchor = rows.find((r) => r.id === target.entry);
  if (target.id === target.entry || !anchor || anchor.active) return;
  throw new ConflictError(`${model.name} ${target.id}: the entry's default-locale row ${anchor.id} (${anchor.locale}) is archived: recover it first, or the whole entry with locale=${ALL_LOCALES}`);
}

