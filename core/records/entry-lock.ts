/**
 * Issue 14 under concurrency: the writes of one entry of an i18n model run one at a time. A write to one
 * locale row may write every row of the entry (shared values and links: locales.ts shareValues), a publish
 * writes the entry's other published copies (drafts/localized.ts shareToCopies), and a new localization
 * checks the entry's locales before it inserts. Two such writes taking the rows in different orders
 * deadlock (PostgreSQL, MariaDB), and check-then-insert lets two `fr` rows in. So every write path that
 * touches an entry's rows (update, delete, recover, publish, unpublish, localizations; bulk forms too)
 * first locks the entry's first row (its id is the entry id), before it reads or locks anything else of
 * the entry; a bulk call locks its entries in id order. DESIGN-NOTES.md, Locales, "One write per entry".
 */
import type { Knex } from 'knex';
import type { Dialect } from '../../database/dialects/dialect';
import { INT4_MAX } from '../registry/attribute-kinds';
import type { ContentType } from '../registry/types';
import { ENTRY_COLUMN } from './locales';

/**
 * Locks the entries rows `ids` of `model` belong to, for the rest of transaction `trx` (no-op for a model
 * without i18n, and where the dialect has no row locks: SQLite writes one transaction at a time). Ids that
 * name no row are passed over: the write's own checks answer 404 for them.
 */
export async function lockEntries(trx: Knex.Transaction, dialect: Dialect, model: ContentType, ids: readonly number[]): Promise<void> {
  // An id past the integer column's range names no row (PostgreSQL would refuse to compare it).
  const possible = [...new Set(ids)].filter((id) => id <= INT4_MAX);
  if (!model.i18n || !dialect.rowLocks || possible.length === 0) return;
  // A plain read: the entry a row belongs to never changes. Locking it here too would take the named rows
  // before their entry, the very order that deadlocks against a write that holds the entry.
  const rows = (await trx(model.table).select(['id', ENTRY_COLUMN]).whereIn('id', possible)) as Record<string, unknown>[];
  const entries = [...new Set(rows.map((r) => Number(r[ENTRY_COLUMN] ?? r.id)))];
  await dialect.lockRows(trx, model.table, entries);
}
