/** The Dialect of a Knex instance, for code given only the instance (database/migrate.ts: every migration run). */
import type { Knex } from 'knex';
import type { Dialect } from './dialect';
import { mysqlDialect } from './mysql';
import { postgresDialect } from './postgres';
import { sqliteDialect } from './sqlite';

/** knex's own name of its client's SQL dialect → ours (a client class of our own inherits the name). */
const BY_KNEX_DIALECT: Readonly<Record<string, Dialect>> = { sqlite3: sqliteDialect, postgresql: postgresDialect, mysql: mysqlDialect };

export function dialectOf(db: Knex): Dialect {
  const name = (db.client as { dialect?: unknown }).dialect;
  const dialect = typeof name === 'string' ? BY_KNEX_DIALECT[name] : undefined;
  if (!dialect) throw new Error(`no dialect for the knex client "${String(name)}": SQLite, PostgreSQL or MySQL/MariaDB`);
  return dialect;
}
