/**
 * A stream's filter judged on the record an event carries (its snapshot), in memory: the version the
 * client receives is the version judged, whatever the row holds by the time the event goes out (an
 * update that moved a record out of the filter and back must not send the "out" version, nor drop an
 * "in" one). Pure: the checked filter (Find's checker made it, values coerced), the model, the record.
 *
 * Comparisons follow the SQL compiler's (compile-filter.ts): two-valued logic (a negated comparison
 * matches an empty field), text ordered by UTF-8 bytes, the `…i` operators on the fold columns with
 * the needle folded (registry/fold.ts), values brought to their stored form by the attribute kind's
 * `toDb` before comparing. Answers null where only SQL can judge: a relation hop (another table), a
 * json column, a case-insensitive comparison on a column without a fold column, a column the
 * snapshot does not carry. The caller then asks the database (match.ts) about the pinned version.
 */
import { ATTRIBUTE_KINDS } from '../registry/attribute-kinds';
import { foldText } from '../registry/fold';
import type { ContentType, ScalarType } from '../registry/types';
import { SYSTEM_FIELDS } from '../registry/types';
import { resolveName } from '../query/check';
import { BASE_ALIAS, type BoundValue, type CheckedFilter } from '../query/checked';

/** A base-table column as the snapshot carries it: its field name, type, and whether it is a fold column. */
interface SnapshotColumn {
  readonly name: string;
  readonly type: ScalarType;
  readonly folded: boolean;
}

const columnsByModel = new WeakMap<ContentType, Map<string, SnapshotColumn>>();

/** `t0.<column>` → the field carrying it, for every field a filter may name on `model` (system, scalar, relation id). */
function columnsOf(model: ContentType): Map<string, SnapshotColumn> {
  let map = columnsByModel.get(model);
  if (map) return map;
  map = new Map();
  const names = [...SYSTEM_FIELDS.map((f) => f.name), ...model.attributes.map((a) => a.name), ...model.attributes.flatMap((a) => (a.kind === 'relation' && a.idField ? [a.idField] : []))];
  for (const name of names) {
    const r = resolveName(model, name);
    if (r?.kind !== 'column') continue;
    map.set(`${BASE_ALIAS}.${r.column}`, { name: r.name, type: r.type, folded: false });
    if (r.fold) map.set(`${BASE_ALIAS}.${r.fold}`, { name: r.name, type: r.type, folded: true });
  }
  columnsByModel.set(model, map);
  return map;
}

/** Not judged here: the database decides. */
class Undecided extends Error {}

type Compare = Extract<CheckedFilter, { kind: 'compare' }>;
type Scalar = string | number | boolean;

/** Orders two stored values of one column as the databases do (numbers, instants, text by bytes). */
function order(type: ScalarType, cls: Compare['valueClass'], a: Scalar, b: Scalar): number {
  if (cls === 'number') return Number(a) - Number(b);
  if (type === 'datetime') return Date.parse(String(a)) - Date.parse(String(b));
  return Buffer.compare(Buffer.from(String(a), 'utf8'), Buffer.from(String(b), 'utf8'));
}

function equal(type: ScalarType, cls: Compare['valueClass'], a: Scalar, b: Scalar): boolean {
  if (cls === 'boolean') return Boolean(a) === Boolean(b);
  if (cls === 'number' || type === 'datetime') return order(type, cls, a, b) === 0;
  return String(a) === String(b);
}

/** The positive comparison on a non-empty stored value. */
function positive(node: Compare, type: ScalarType, v: Scalar): boolean {
  const b = node.value as BoundValue;
  const one = b as Scalar;
  switch (node.op) {
    case '$eq':
      return equal(type, node.valueClass, v, one);
    case '$lt':
      return order(type, node.valueClass, v, one) < 0;
    case '$lte':
      return order(type, node.valueClass, v, one) <= 0;
    case '$gt':
      return order(type, node.valueClass, v, one) > 0;
    case '$gte':
      return order(type, node.valueClass, v, one) >= 0;
    case '$in':
      return (b as readonly Scalar[]).some((x) => equal(type, node.valueClass, v, x));
    case '$between': {
      const [lo, hi] = b as readonly Scalar[];
      return order(type, node.valueClass, v, lo) >= 0 && order(type, node.valueClass, v, hi) <= 0;
    }
    case '$contains':
      return String(v).includes(String(one));
    case '$startsWith':
      return String(v).startsWith(String(one));
    case '$endsWith':
      return String(v).endsWith(String(one));
    case '$null':
      return false; // handled by the caller
    default:
      // $eqi, $containsi, …: lower() / LIKE on a column without a fold column: the database's own folding.
      throw new Undecided();
  }
}

function compare(node: Compare, model: ContentType, record: Readonly<Record<string, unknown>>): boolean {
  const col = columnsOf(model).get(node.column);
  if (!col || !Object.prototype.hasOwnProperty.call(record, col.name)) throw new Undecided();
  if (node.valueClass === 'json' || node.valueClass === 'secret') throw new Undecided();
  const raw = record[col.name];
  const stored = raw === null || raw === undefined ? null : (ATTRIBUTE_KINDS[col.type].toDb(raw) as unknown);
  if (stored !== null && typeof stored !== 'string' && typeof stored !== 'number' && typeof stored !== 'boolean') throw new Undecided();
  let p: boolean;
  if (node.op === '$null') p = stored === null;
  else if (stored === null) p = false; // NULL matches no comparison; its negation does (two-valued logic)
  else p = positive(node, col.type, col.folded ? foldText(String(stored)) : stored);
  return node.negated ? !p : p;
}

function evaluate(node: CheckedFilter, model: ContentType, record: Readonly<Record<string, unknown>>): boolean {
  switch (node.kind) {
    case 'and':
      return node.items.map((i) => evaluate(i, model, record)).every(Boolean);
    case 'or':
      return node.items.map((i) => evaluate(i, model, record)).some(Boolean);
    case 'not':
      return !evaluate(node.item, model, record);
    case 'compare':
      return compare(node, model, record);
    default:
      throw new Undecided(); // a relation hop: another table
  }
}

/** Does the snapshot `record` of `model` match `filter`? null: only the database can tell (see above). */
export function matchesSnapshot(filter: CheckedFilter | null, model: ContentType, record: Readonly<Record<string, unknown>>): boolean | null {
  if (filter === null) return true;
  try {
    return evaluate(filter, model, record);
  } catch (e) {
    if (e instanceof Undecided) return null;
    throw e;
  }
}
