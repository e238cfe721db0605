/**
 * Multi-row INSERTs in pieces every database takes (the one place their caps are written down):
 * - SQLite: knex writes `INSERT … SELECT … UNION ALL SELECT …`, and SQLite refuses a compound SELECT
 *   of more than 500 terms (SQLITE_MAX_COMPOUND_SELECT: "too many terms in compound SELECT"); and at
 *   most 32,766 bound variables per statement (SQLITE_MAX_VARIABLE_NUMBER);
 * - PostgreSQL: at most 65,535 bind parameters per statement;
 * - MariaDB (mysql2 interpolates the values): a statement no longer than max_allowed_packet (16 MiB).
 * INSERT_CHUNK_ROWS rows of at most MAX_BINDINGS / columns values stay inside all three for the narrow
 * rows written in bulk (join rows: 2 columns; media rows: 9).
 */
import type { Knex } from 'knex';

/** Rows per INSERT statement: below SQLite's 500-term compound SELECT cap. */
export const INSERT_CHUNK_ROWS = 400;
/** Bound values per statement: SQLite's cap, the smallest of the three. */
export const MAX_BINDINGS = 32_766;

/** Rows per statement for rows of `columns` columns. */
export function insertChunkRows(columns: number): number {
  return Math.max(1, Math.min(INSERT_CHUNK_ROWS, Math.floor(MAX_BINDINGS / Math.max(1, columns))));
}

/** Inserts `rows` (all with the same columns) in statements of at most insertChunkRows rows; nothing for none. */
export async function insertRows(db: Knex | Knex.Transaction, table: string, rows: readonly Record<string, unknown>[]): Promise<void> {
  if (rows.length === 0) return;
  const size = insertChunkRows(Object.keys(rows[0] as Record<string, unknown>).length);
  for (let at = 0; at < rows.length; at += size) await db(table).insert(rows.slice(at, at + size));
}
