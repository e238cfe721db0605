/** Row → API shape: only selected (never private) fields, values by type, relations nested. */
import type { SelectedField } from '../query/checked';
import { ATTRIBUTE_KINDS } from '../registry/attribute-kinds';
import { DELETED, NOT_DELETED } from '../registry/types';

export type Row = Record<string, unknown>;
export type ApiRecord = Record<string, unknown>;

/** Spec 3.1: `deletedTracker` is `not-deleted` while active and `deleted` when archived. */
function tracker(v: unknown): string {
  return v === NOT_DELETED || v === null || v === undefined ? NOT_DELETED : DELETED;
}

export function serializeRow(row: Row, select: readonly SelectedField[]): ApiRecord {
  const out: ApiRecord = {};
  for (const f of select) {
    const v = row[f.column];
    out[f.name] = f.name === 'deletedTracker' ? tracker(v) : v === null || v === undefined ? null : ATTRIBUTE_KINDS[f.type].fromDb(v);
  }
  return out;
}
