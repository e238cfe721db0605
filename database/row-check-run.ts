/**
 * Runs a migration's row checks (schema/row-checks.ts) before it changes anything: counts the rows that
 * break each new rule, with a few of their ids, in knex queries every database runs alike (the length of
 * a value through Dialect.charLength, an enumeration's values compared byte for byte). Any broken rule
 * refuses the migration with one RowRulesError naming them all.
 */
import type { Knex } from 'knex';
import { dialectOf } from './dialects/of-knex';
import type { RowCheck } from './schema/types';

/** Ids a message names at most, a rule. */
export const IDS_SHOWN = 5;

export interface BrokenRule {
  readonly check: RowCheck;
  readonly rows: number;
  /** The first IDS_SHOWN ids, in id order. */
  readonly ids: readonly number[];
}

const plural = (n: number, one: string, many: string): string => `${n} ${n === 1 ? one : many}`;

/** `gadget.kind now allows only small, large: 2 rows hold another value (ids 2, 3)`. */
export function describeBroken(b: BrokenRule): string {
  const { check: c, rows: n } = b;
  const more = n > b.ids.length ? ` and ${n - b.ids.length} more` : '';
  const ids = `(${b.ids.length === 1 && n === 1 ? 'id' : 'ids'} ${b.ids.join(', ')}${more})`;
  const what = `${c.model}.${c.field}`;
  switch (c.rule) {
    case 'required':
      return `${what} is now required: ${plural(n, 'row has', 'rows have')} no value ${ids}`;
    case 'unique':
      return `${what} is now unique: ${plural(n, 'row shares', 'rows share')} a value ${ids}`;
    case 'enum':
      return `${what} now allows only ${c.values.join(', ')}: ${plural(n, 'row holds', 'rows hold')} another value ${ids}`;
    case 'minLength':
      return `${what} now has minLength ${c.limit}: ${plural(n, 'row is', 'rows are')} shorter ${ids}`;
    case 'maxLength':
      return `${what} now has maxLength ${c.limit}: ${plural(n, 'row is', 'rows are')} longer ${ids}`;
    case 'min':
      return `${what} now has min ${c.limit}: ${plural(n, 'row is', 'rows are')} below it ${ids}`;
    case 'max':
      return `${what} now has max ${c.limit}: ${plural(n, 'row is', 'rows are')} above it ${ids}`;
  }
}

/** A migration refused before it began: rows break the rules it brings. One line. */
export class RowRulesError extends Error {
  constructor(
    readonly migration: string,
    readonly broken: readonly BrokenRule[],
  ) {
    super(`migration ${migration} was not applied: ${brokenText(broken)}; nothing was changed and it is still pending; fix those rows or relax the model, then run it again`);
    this.name = 'RowRulesError';
  }
}

/** `existing rows break its new rules (…; …)`. */
export function brokenText(broken: readonly BrokenRule[]): string {
  return `existing rows break its new rules (${broken.map(describeBroken).join('; ')})`;
}

/** The rows of `c.table` that break `c`. */
function breaking(db: Knex, c: RowCheck): Knex.QueryBuilder {
  const q = db(c.table);
  const [column] = c.columns;
  if (c.rule === 'required') return column === undefined ? q : q.whereNull(column);
  if (c.rule === 'unique') {
    const dupes = db(c.table).select(c.columns as string[]).groupBy(c.columns as string[]).havingRaw('count(*) > 1');
    for (const col of c.columns) dupes.whereNotNull(col);
    return c.columns.length === 1 ? q.whereIn(column, dupes) : q.whereIn(c.columns as string[], dupes);
  }
  q.whereNotNull(column);
  const dialect = dialectOf(db);
  if (c.rule === 'enum') {
    const exact = dialect.byteOrdered(column);
    return q.whereRaw(`${exact.sql} NOT IN (${c.values.map(() => '?').join(', ')})`, [...exact.bindings, ...c.values] as Knex.RawBinding[]);
  }
  if (c.rule === 'min') return q.where(column, '<', c.limit);
  if (c.rule === 'max') return q.where(column, '>', c.limit);
  const length = dialect.charLength(column);
  return q.whereRaw(`${length.sql} ${c.rule === 'maxLength' ? '>' : '<'} ?`, [...length.bindings, c.limit] as Knex.RawBinding[]);
}

/** The rules of `checks` some row breaks, counted on `db` (the migration's transaction where it has one). */
export async function brokenRules(db: Knex, checks: readonly RowCheck[]): Promise<BrokenRule[]> {
  const out: BrokenRule[] = [];
  for (const check of checks) {
    const [row] = (await breaking(db, check).count({ n: '*' })) as { n: number | string }[];
    const rows = Number(row?.n ?? 0);
    if (rows === 0) continue;
    const ids = (await breaking(db, check).select('id').orderBy('id').limit(IDS_SHOWN)) as { id: number | string }[];
    out.push({ check, rows, ids: ids.map((r) => Number(r.id)) });
  }
  return out;
}

/** Refuses `migration` (its file name) when rows break the rules of `checks`. */
export async function refuseBrokenRules(db: Knex, migration: string, checks: readonly RowCheck[]): Promise<void> {
  const broken = await brokenRules(db, checks);
  if (broken.length > 0) throw new RowRulesError(migration, broken);
}
