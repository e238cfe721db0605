/**
 * Driver errors that mean the database is not ready for a command rather than that the command's input is
 * wrong, as the three drivers word them: a table missing (the database not migrated) and a connection that
 * could not be made (refused, unknown host, unknown database or schema, refused credentials, a file SQLite
 * cannot open). The admin CLI turns them into one line saying what to do (admin-cli/failure.ts).
 */

/** SQLite, PostgreSQL (42P01) and MariaDB/MySQL (1146) name the missing table; null when `err` is no such error. */
export function missingTableOf(err: unknown): string | null {
  if (typeof err !== 'object' || err === null) return null;
  const e = err as { code?: unknown; errno?: unknown; message?: unknown };
  const message = typeof e.message === 'string' ? e.message : '';
  const sqlite = /SQLITE_ERROR: no such table: ([\w."-]+)/.exec(message);
  if (sqlite) return sqlite[1];
  if (e.code === '42P01') return /relation "([^"]+)" does not exist/.exec(message)?.[1] ?? 'unknown';
  if (e.code === 'ER_NO_SUCH_TABLE' || e.errno === 1146) return /Table '([^']+)' doesn't exist/.exec(message)?.[1] ?? 'unknown';
  return null;
}

const CONNECT_CODES = new Set([
  // the network (Node)
  'ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'ETIMEDOUT', 'ECONNRESET', 'EAI_AGAIN',
  // PostgreSQL: credentials refused, no such database, no such schema
  '28P01', '28000', '3D000', '3F000',
  // MariaDB/MySQL: no such database, credentials refused
  'ER_BAD_DB_ERROR', 'ER_ACCESS_DENIED_ERROR', 'ER_DBACCESS_DENIED_ERROR', 'ER_HOST_NOT_PRIVILEGED',
  // SQLite: a file it cannot open or that is no database
  'SQLITE_CANTOPEN', 'SQLITE_NOTADB', 'SQLITE_PERM',
]);

/** MariaDB/MySQL: no access to the database (1044), credentials refused (1045, 1698), no such database (1049). */
const CONNECT_ERRNOS = new Set([1044, 1045, 1049, 1698]);

/** The connection to the database could not be made (a knex acquire timeout included). */
export function isConnectFailure(err: unknown, depth = 0): boolean {
  if (typeof err !== 'object' || err === null || depth > 3) return false;
  const e = err as { code?: unknown; errno?: unknown; name?: unknown; errors?: unknown };
  if (typeof e.code === 'string' && CONNECT_CODES.has(e.code)) return true;
  if (typeof e.errno === 'number' && CONNECT_ERRNOS.has(e.errno)) return true;
  if (e.name === 'KnexTimeoutError') return true;
  return Array.isArray(e.errors) && e.errors.some((x) => isConnectFailure(x, depth + 1));
}
