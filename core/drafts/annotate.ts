/**
 * Issue 14: every record of a `draftAndPublish` model that an answer shows at its top level says which
 * version it is (`_status`: `published` or `draft`) and whether the entry has changes its published copy
 * does not show (`_hasUnpublishedChanges`: the working row's `updatedAt` differs from the copy's, or
 * there is no copy). One query per answer.
 */
import type { Knex } from 'knex';
import type { ContentType } from '../registry/types';
import { type Version, hasDrafts } from './names';
import { versions } from './copies';
import { isPublishedView } from './view';

const stamp = (v: unknown): string => (v instanceof Date ? String(v.getTime()) : String(v));

/** The version a checked query's model reads: null for a model without drafts. */
export function versionRead(model: ContentType): Version | null {
  if (!hasDrafts(model)) return null;
  return isPublishedView(model) ? 'published' : 'draft';
}

export async function annotate(db: Knex | Knex.Transaction, model: ContentType, records: Record<string, unknown>[], version: Version | null): Promise<void> {
  if (version === null || !hasDrafts(model) || records.length === 0) return;
  const ids = [...new Set(records.map((r) => Number(r.id)).filter((id) => Number.isSafeInteger(id)))];
  // The published view's model reads its shadow table: `versions` wants the working table's name.
  const found = await versions(db, { ...model, table: model.table.replace(/__published$/, '') }, ids);
  for (const r of records) {
    const v = found.get(Number(r.id));
    r._status = version;
    r._hasUnpublishedChanges = v === undefined || v.published === undefined || stamp(v.draft) !== stamp(v.published);
  }
}

/**
 * The nested records of `records` that populate node `relation` shows (to-one: the record, to-many: the
 * list), each once: a populated record is one object under every parent that shows it (100 fee types of
 * one institute share the institute and its fee types), and listing it once per parent made 10,000
 * entries of 100 records, level after level.
 */
function nestedOf(records: readonly Record<string, unknown>[], relation: string): Record<string, unknown>[] {
  const out = new Set<Record<string, unknown>>();
  for (const r of records) {
    const v = r[relation];
    const list: unknown[] = Array.isArray(v) ? v : v === null || v === undefined ? [] : [v];
    for (const x of list) if (typeof x === 'object' && x !== null && 'id' in x) out.add(x as Record<string, unknown>);
  }
  return [...out];
}

/**
 * Issue 14: the records a populate shows say their version too, level by level (one query per populated
 * draft-enabled relation): a published read populates published copies, a `status=draft` read working copies.
 */
export async function annotatePopulated(db: Knex | Knex.Transaction, records: readonly Record<string, unknown>[], populate: readonly PopulateNode[]): Promise<void> {
  for (const p of populate) {
    const nested = nestedOf(records, p.relation.name);
    if (nested.length === 0) continue;
    await annotate(db, p.target, nested, versionRead(p.target));
    await annotatePopulated(db, nested, p.populate);
  }
}

/** The part of a checked populate node annotatePopulated reads. */
export interface PopulateNode {
  readonly relation: { readonly name: string };
  readonly target: ContentType;
  readonly populate: readonly PopulateNode[];
}
