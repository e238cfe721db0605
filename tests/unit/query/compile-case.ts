/** Compiles a case of filter.cases.ts to a query without a connection, as the app would (qs → parse → check → compile). */
import knex, { type Knex } from 'knex';
import qs from 'qs';
import type { Dialect } from '../../../database/dialects/dialect';
import { postgresDialect } from '../../../database/dialects/postgres';
import { sqliteDialect } from '../../../database/dialects/sqlite';
import { parseQueryString } from '../../../core/http/app';
import { checkListQuery } from '../../../core/query/check';
import type { CheckedQuery } from '../../../core/query/checked';
import { compileFilter } from '../../../core/query/compile-filter';
import { parseListQuery } from '../../../core/query/parse';
import { fixtureRegistry } from '../../fixtures/query-oracle';

export type DialectName = 'sqlite' | 'postgres';

const offline: Record<DialectName, { db: Knex; dialect: Dialect }> = {
  sqlite: { db: knex({ client: 'sqlite3', useNullAsDefault: true }), dialect: sqliteDialect },
  postgres: { db: knex({ client: 'pg' }), dialect: postgresDialect },
};

/** The query string a client sends for `query` (qs.stringify, encodeValuesOnly), as the app parses it. */
export function checkedFrom(model: string, query: Record<string, unknown>, maxLimit = 100): CheckedQuery {
  const ct = fixtureRegistry().get(model);
  if (!ct) throw new Error(`no fixture model ${model}`);
  const parsed = parseListQuery(parseQueryString(qs.stringify(query, { encodeValuesOnly: true })));
  return checkListQuery(parsed, ct, { registry: fixtureRegistry(), maxLimit });
}

/** `select t0.id from <table> as t0 where <filter>` on `db` (live or offline). */
export function filterQuery(db: Knex, dialect: Dialect, model: string, filters: Record<string, unknown>): Knex.QueryBuilder {
  const q = checkedFrom(model, { filters });
  const qb = db.from({ t0: q.model.table }).select('t0.id');
  if (q.filter) compileFilter(qb, q.filter, dialect);
  return qb;
}

export function compileOffline(d: DialectName, model: string, filters: Record<string, unknown>): { sql: string; bindings: unknown[] } {
  const { db, dialect } = offline[d];
  const n = filterQuery(db, dialect, model, filters).toSQL().toNative();
  return { sql: n.sql, bindings: [...n.bindings] };
}
