/**
 * Issue 14: the locale rows a delete or recover of record `id` with `locale=` acts on, in the order to act,
 * and the row whose record answers (single and bulk calls alike; publish has its own in drafts/localized.ts).
 * Absent `locale` (or a model without i18n): the row `id` names. A code: that locale of the entry (404 when
 * it has none active, for a delete, or archived, for a recover). `all`: every active locale of the entry,
 * the entry's first row last (a delete), or every archived one, the first row first (a recover), since the
 * first row never goes while other locales stay and never stays archived while others come back.
 */
import { NotFoundError } from '../errors/errors';
import type { ContentType } from '../registry/types';
import { ALL_LOCALES, type LocaleChoice, entryRows, localeRow, rowFor } from './locales';
import type { Db } from './repository';

export interface LocaleTargets {
  /** Row ids, in the order to act on them. */
  readonly rows: readonly number[];
  /** The row whose record answers for `id`. */
  readonly answer: number;
}

/** What a delete of `id` with `locale=` removes. The row `id` names must be active when `locale` is given. */
export async function deleteTargets(db: Db, model: ContentType, id: number, locale: LocaleChoice): Promise<LocaleTargets> {
  if (!model.i18n || locale === null) return { rows: [id], answer: id };
  const named = await localeRow(db, model, id);
  if (!named || !named.active) throw new NotFoundError(`no ${model.name} with id ${id}`);
  if (locale !== ALL_LOCALES) {
    const row = await rowFor(db, model, id, locale, 'active');
    return { rows: [row], answer: row };
  }
  // entryRows: the first row first; a delete takes it last
  const rows = (await entryRows(db, model, named.entry)).filter((r) => r.active).map((r) => r.id);
  return { rows: rows.reverse(), answer: id };
}

/** What a recover of `id` with `locale=` brings back. The row `id` names may be active or archived when `locale` is given. */
export async function recoverTargets(db: Db, model: ContentType, id: number, locale: LocaleChoice): Promise<LocaleTargets> {
  if (!model.i18n || locale === null) return { rows: [id], answer: id };
  if (locale !== ALL_LOCALES) {
    const row = await rowFor(db, model, id, locale, 'exclusive');
    return { rows: [row], answer: row };
  }
  const named = await localeRow(db, model, id);
  if (!named) throw new NotFoundError(`no archived ${model.name} with id ${id}`);
  const rows = (await entryRows(db, model, named.entry)).filter((r) => !r.active).map((r) => r.id);
  if (rows.length === 0) throw new NotFoundError(`no archived ${model.name} with id ${id}`);
  return { rows, answer: id };
}
