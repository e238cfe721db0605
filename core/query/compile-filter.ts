/**
 * CheckedFilter × Dialect → conditions on a knex builder. Negation is pushed down to the leaves
 * (De Morgan), and a negated comparison also matches NULL, so filters follow two-valued logic:
 * `$ne: x` and `$not` include records whose field is empty. Every value is bound.
 */
import type { Knex } from 'knex';
import type { Dialect, SqlFragment } from '../../database/dialects/dialect';
import { NOT_DELETED } from '../registry/types';
import type { CheckedFilter, RelationHop } from './checked';

type Bool = 'and' | 'or';

function assertNever(x: never): never {
  throw new Error(`unhandled ${JSON.stringify(x)}`);
}

function addRaw(qb: Knex.QueryBuilder, bool: Bool, f: SqlFragment): void {
  if (bool === 'and') qb.whereRaw(f.sql, f.bindings as Knex.RawBinding[]);
  else qb.orWhereRaw(f.sql, f.bindings as Knex.RawBinding[]);
}

const placeholders = (n: number): string => new Array(n).fill('?').join(', ');

/** The positive predicate of a comparison; never NULL where the column is not NULL. */
function predicate(node: Extract<CheckedFilter, { kind: 'compare' }>, dialect: Dialect): SqlFragment {
  const col = node.column;
  const v = node.value;
  const one = (sql: string): SqlFragment => ({ sql, bindings: [col, v] });
  // Text orders by bytes on both databases (`B` < `a`), as SQLite's BINARY collation does.
  const ordered = (cmp: string): SqlFragment => {
    if (node.valueClass !== 'text') return one(`?? ${cmp} ?`);
    const c = dialect.byteOrdered(col);
    return { sql: `${c.sql} ${cmp} ?`, bindings: [...c.bindings, v] };
  };
  switch (node.op) {
    case '$eq':
      return one('?? = ?');
    case '$eqi':
      return one('lower(??) = lower(?)');
    case '$lt':
      return ordered('<');
    case '$lte':
      return ordered('<=');
    case '$gt':
      return ordered('>');
    case '$gte':
      return ordered('>=');
    case '$in': {
      const list = v as readonly unknown[];
      if (list.length === 0) return { sql: '1 = 0', bindings: [] };
      return { sql: `?? IN (${placeholders(list.length)})`, bindings: [col, ...list] };
    }
    case '$between': {
      const [lo, hi] = v as readonly unknown[];
      const c = node.valueClass === 'text' ? dialect.byteOrdered(col) : { sql: '??', bindings: [col] };
      return { sql: `${c.sql} BETWEEN ? AND ?`, bindings: [...c.bindings, lo, hi] };
    }
    case '$null':
      return { sql: '?? IS NULL', bindings: [col] };
    case '$contains':
      return dialect.like(col, String(v), { caseInsensitive: false, mode: 'contains' });
    case '$containsi':
      return dialect.like(col, String(v), { caseInsensitive: true, mode: 'contains' });
    case '$startsWith':
      return dialect.like(col, String(v), { caseInsensitive: false, mode: 'startsWith' });
    case '$startsWithi':
      return dialect.like(col, String(v), { caseInsensitive: true, mode: 'startsWith' });
    case '$endsWith':
      return dialect.like(col, String(v), { caseInsensitive: false, mode: 'endsWith' });
    case '$endsWithi':
      return dialect.like(col, String(v), { caseInsensitive: true, mode: 'endsWith' });
    default:
      return assertNever(node.op);
  }
}

function compare(qb: Knex.QueryBuilder, node: Extract<CheckedFilter, { kind: 'compare' }>, dialect: Dialect, negate: boolean, bool: Bool): void {
  const p = predicate(node, dialect);
  if (!negate) return addRaw(qb, bool, p);
  if (node.op === '$null') return addRaw(qb, bool, { sql: '?? IS NOT NULL', bindings: [node.column] });
  addRaw(qb, bool, { sql: `(NOT (${p.sql}) OR ?? IS NULL)`, bindings: [...p.bindings, node.column] });
}

/** The correlated subquery that reaches related rows from the outer alias. */
export function hopSubquery(sub: Knex.QueryBuilder, hop: RelationHop): void {
  switch (hop.via) {
    case 'column':
      sub.select(sub.client.raw('1')).from({ [hop.alias]: hop.table }).whereRaw('?? = ??', [`${hop.alias}.id`, hop.from]);
      break;
    case 'back':
      sub.select(sub.client.raw('1')).from({ [hop.alias]: hop.table }).whereRaw('?? = ??', [hop.fk, hop.parentId]);
      if (hop.entryRows) sub.whereRaw('?? = ??', [`${hop.alias}.id`, `${hop.alias}.default_entity_locale_id`]);
      break;
    case 'join':
      sub
        .select(sub.client.raw('1'))
        .from({ [hop.joinAlias]: hop.joinTable })
        .join({ [hop.alias]: hop.table }, `${hop.alias}.id`, hop.targetColumn)
        .whereRaw('?? = ??', [hop.ownerColumn, hop.parentId]);
      break;
    default:
      assertNever(hop);
  }
  onlyActive(sub, hop);
}

/** Archived related records are hidden from relation filters as from every normal query (spec 3.1 rule 1). */
function onlyActive(sub: Knex.QueryBuilder, hop: RelationHop): void {
  if (hop.softDelete) sub.where(`${hop.alias}.deleted_tracker`, NOT_DELETED);
}

function apply(qb: Knex.QueryBuilder, node: CheckedFilter, dialect: Dialect, negate: boolean, bool: Bool): void {
  switch (node.kind) {
    case 'and':
    case 'or': {
      // De Morgan: NOT (a AND b) = NOT a OR NOT b.
      const inner: Bool = (node.kind === 'and') !== negate ? 'and' : 'or';
      const group = function (this: Knex.QueryBuilder): void {
        for (const item of node.items) apply(this, item, dialect, negate, inner);
      };
      if (bool === 'and') qb.where(group);
      else qb.orWhere(group);
      return;
    }
    case 'not':
      return apply(qb, node.item, dialect, !negate, bool);
    case 'compare':
      return compare(qb, node, dialect, negate !== node.negated, bool);
    case 'exists': {
      const item = node.item;
      const hop = node.hop;
      if (hop.via === 'column' && !negate) {
        // Owning to-one, asked positively: `fk IN (SELECT id … WHERE <item>)`, not a subquery per row.
        // The same records (ids are never NULL, a NULL link matches neither form), but the database
        // can read the few matching related ids first and then the rows linked to them through the
        // link's index: a filter through a relation on 10,000 rows was 0.42 of its floor on SQLite,
        // which checked the EXISTS on every row. Negated, NOT EXISTS stays (a NULL link matches it).
        const ids = function (this: Knex.QueryBuilder): void {
          this.select(`${hop.alias}.id`).from({ [hop.alias]: hop.table });
          onlyActive(this, hop);
          if (item) this.where(function (this: Knex.QueryBuilder) {
            apply(this, item, dialect, false, 'and');
          });
        };
        if (bool === 'and') qb.whereIn(hop.from, ids);
        else qb.orWhereIn(hop.from, ids);
        return;
      }
      const sub = function (this: Knex.QueryBuilder): void {
        hopSubquery(this, hop);
        if (item) this.where(function (this: Knex.QueryBuilder) {
          apply(this, item, dialect, false, 'and');
        });
      };
      if (bool === 'and') {
        if (negate) qb.whereNotExists(sub);
        else qb.whereExists(sub);
      } else if (negate) qb.orWhereNotExists(sub);
      else qb.orWhereExists(sub);
      return;
    }
    default:
      assertNever(node);
  }
}

/** Adds the filter's conditions to `qb` (AND-ed with what it already has). */
export function compileFilter(qb: Knex.QueryBuilder, filter: CheckedFilter, dialect: Dialect): void {
  apply(qb, filter, dialect, false, 'and');
}
