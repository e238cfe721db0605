/** Row → API shape: only selected (never private) fields, values by type, relations nested. */
import type { SelectedField } from '../query/checked';
import { ATTRIBUTE_KINDS } from '../registry/attribute-kinds';
import { DELETED, NOT_DELETED } from '../registry/types';
import { markJsonLeaf } from '../http/json-leaves';

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
    if (f.name === 'deletedTracker') out[f.name] = tracker(v);
    else if (v === null || v === undefined) out[f.name] = null;
    else if (f.type === 'json') out[f.name] = markJsonLeaf(ATTRIBUTE_KINDS.json.fromDb(v));
    else out[f.name] = ATTRIBUTE_KINDS[f.type].fromDb(v);
  }
  return out;
}
