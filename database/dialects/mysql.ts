/**
 * The MariaDB/MySQL dialect (mysql2). Text columns are utf8mb4 with a binary NO PAD collation
 * (mysql-client.ts), so `=`, LIKE, ORDER BY and unique indexes compare code points as SQLite and
 * PostgreSQL ("C") do; `…i` operators go through the `__fold` shadow columns like everywhere.
 */
import type { Knex } from 'knex';
import { type Dialect, type DbFault, LOCKED_TRANSACTION_WAIT_S, SESSION_LOCK_WAIT_S, likePattern, lockRowsWith, migrateInPlace, onOwnConnection } from './dialect';
import { isPoolBusy } from '../pool-busy';
import { mysqlDates } from './mysql-dates';
import { prefixUpperBound } from './prefix-range';
import { mysqlUndoCommittedSteps } from './mysql-undo-migration';

/** A mysql2 error, as far as we read it. `keyTable`/`keyColumns` are added by mysql-connect.ts for ER_DUP_ENTRY. */
export interface MysqlError {
  code?: string;
  errno?: number;
  sqlState?: string;
  sqlMessage?: string;
  fatal?: boolean;
  keyTable?: string | null;
  keyColumns?: readonly string[];
}

/** `Duplicate entry 'x-not-deleted' for key 'fee_type_fee_type_deleted_tracker_unique'` → the key's name. */
export function duplicateKeyName(message: string): string | null {
  const m = /for key '(?:[^'.]+\.)?([^']+)'$/.exec(message);
  return m ? m[1] : null;
}

/** `… a foreign key constraint fails (`db`.`fee_type`, CONSTRAINT `…` FOREIGN KEY (`institute_id`) REFERENCES …` → table + columns. */
function foreignKeyParts(message: string): { table: string | null; columns: string[] } {
  const table = /fails \(`[^`]*`\.`([^`]+)`/.exec(message)?.[1] ?? null;
  const cols = /FOREIGN KEY \(([^)]+)\)/.exec(message)?.[1] ?? '';
  return { table, columns: cols.split(',').map((c) => c.trim().replace(/^`|`$/g, '')).filter(Boolean) };
}

/**
 * "The database is not there right now" (→ 503): socket errors, a lost or closed connection, too many
 * connections (1040), shutdown (1053), a connection or query killed by an administrator (1927, 1317),
 * read-only (1290, 1836). Deadlocks and lock waits are no outage: WRITE_CONFLICTS.
 */
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN',
  'PROTOCOL_CONNECTION_LOST', 'PROTOCOL_SEQUENCE_TIMEOUT', 'PROTOCOL_ENQUEUE_AFTER_FATAL_ERROR', 'PROTOCOL_ENQUEUE_AFTER_QUIT', 'ER_CON_COUNT_ERROR', 'ER_SERVER_SHUTDOWN',
]);
const UNAVAILABLE_ERRNOS = new Set([1040, 1053, 1290, 1317, 1836, 1927, 2002, 2003, 2006, 2013]);
const UNAVAILABLE_MESSAGE = /Knex: Timeout acquiring a connection|Can't add new command when connection is in closed state|Connection lost|connect ETIMEDOUT|Pool is closed|The server closed the connection/;

function isUnavailable(err: unknown, depth = 0): boolean {
  if (typeof err !== 'object' || err === null || depth > 3) return false;
  const e = err as MysqlError & { name?: unknown; message?: unknown; errors?: unknown };
  if (typeof e.code === 'string' && UNAVAILABLE_CODES.has(e.code)) return true;
  if (typeof e.errno === 'number' && UNAVAILABLE_ERRNOS.has(e.errno)) return true;
  if (e.name === 'KnexTimeoutError') return true;
  if (typeof e.message === 'string' && UNAVAILABLE_MESSAGE.test(e.message)) return true;
  return Array.isArray(e.errors) && e.errors.some((x) => isUnavailable(x, depth + 1));
}

/**
 * The transaction collided with others and was rolled back (InnoDB rolls back the whole transaction on a
 * deadlock, 1213; on a lock wait timeout, 1205, the session's innodb_rollback_on_timeout decides, and the
 * service rolls back the rest on the error it throws): nothing written, a retry will do. 1020: a record
 * changed since this transaction read it (MariaDB's snapshot isolation).
 */
const WRITE_CONFLICTS: ReadonlyMap<number, 'deadlock' | 'serialization' | 'lockTimeout'> = new Map([
  [1213, 'deadlock'],
  [1205, 'lockTimeout'],
  [1020, 'serialization'],
] as const);

/** Statement time limits: MariaDB's max_statement_time (1969), MySQL's max_execution_time (3024). */
const TIMEOUT_ERRNOS = new Set([1969, 3024]);
/** Data errors besides SQLSTATE class 22: CHECK failed (4025: JSON_VALID of a json column), invalid JSON (3140). */
const INVALID_ERRNOS = new Set([4025, 3140]);

type Row = Record<string, unknown>;

/**
 * Runs `work` while session `conn` of `db` holds the named lock `name` (waiting at most `waitS`), released
 * after. A named lock is the server's (every database's) and the session's: the database's name in it keeps
 * deployments apart (at most 64 characters: hashed). A broken connection has lost its lock already.
 */
async function holdingNamedLock<T>(db: Knex, conn: unknown, name: string, waitS: number, work: () => Promise<T>): Promise<T> {
  const lock = "CONCAT('ris:', SHA1(CONCAT(IFNULL(DATABASE(), ''), ':', ?)))";
  const [rows] = (await db.raw(`SELECT GET_LOCK(${lock}, ?) AS got`, [name, waitS]).connection(conn)) as [Row[]];
  if (Number(rows[0]?.got) !== 1) throw new Error(`waited ${waitS} s for the database lock "${name}" (another node holds it)`);
  try {
    return await work();
  } finally {
    await db.raw(`SELECT RELEASE_LOCK(${lock})`, [name]).connection(conn).catch(() => undefined);
  }
}

export const mysqlDialect: Dialect = {
  ...mysqlDates,
  rowLocks: true,
  freshInsertReturning: false,
  lockRows: lockRowsWith('FOR UPDATE'),
  async lockedTransaction<T>(db: Knex, name: string, work: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
    // Taken before BEGIN on the connection the transaction then uses (a REPEATABLE READ snapshot taken before
    // the lock would not see the other's commit), released after its end, then the connection goes back.
    const client = db.client as { acquireConnection(): Promise<Record<string, unknown>>; releaseConnection(c: unknown): Promise<unknown> };
    const conn = await client.acquireConnection();
    const transaction = (): Promise<T> =>
      db.transaction(work, { connection: conn }).finally(() => {
        delete conn.__knexTxId; // knex leaves its transaction id on a connection it was given
      });
    try {
      return await holdingNamedLock(db, conn, name, LOCKED_TRANSACTION_WAIT_S, transaction);
    } finally {
      await client.releaseConnection(conn);
    }
  },
  lockedSession(db, name, work) {
    return onOwnConnection(db, {}, (own, conn) => holdingNamedLock(own, conn, name, SESSION_LOCK_WAIT_S, work));
  },
  // knex.raw answers [rows, fields].
  rawRows: (result) => (result as [Row[]])[0],
  name: 'mysql',
  migrationRun: migrateInPlace,
  undoCommittedSteps: mysqlUndoCommittedSteps,

  async insertReturning(db, table, row, columns) {
    // MariaDB 10.5+ has INSERT … RETURNING, MySQL has not, and knex writes neither: read the row back by its id.
    const [inserted] = (await db(table).insert(row)) as number[];
    const id = row.id ?? inserted;
    return (await db(table).select([...columns]).where('id', id as Knex.Value).first()) as Row;
  },

  // COUNT(*) after every group key: a no-op for the order, but MariaDB no longer drops the ORDER BY
  // (tests/api/records/group.test.ts property: groupBy paid + a year label with note:count_distinct).
  groupedOrderTail: 'COUNT(*) ASC',

  async analyze(db, tables) {
    // MySQL's ANALYZE names its tables (a bare ANALYZE is a syntax error).
    if (tables.length > 0) await db.raw(`ANALYZE TABLE ${tables.map(() => '??').join(', ')}`, [...tables]);
  },

  async insertWithExpressions(db, table, row, expressions) {
    const [id] = (await db(table).insert(row)) as number[];
    if (expressions.length === 0) return { id: Number(id), values: [] };
    const select = expressions.map((x, i) => `${x.sql} AS extra_${i}`).join(', ');
    const [r] = (await db.raw(`SELECT ${select}`, expressions.flatMap((x) => x.bindings as Knex.RawBinding[]))) as unknown as [Row[]];
    return { id: Number(id), values: expressions.map((_, i) => r[0][`extra_${i}`]) };
  },

  async updateReturning(db, table, where, row, columns) {
    // mysql2 reports matched rows (CLIENT_FOUND_ROWS), not changed ones: an update to the same values still counts.
    const n = await db(table).where(where).update(row);
    if (n === 0) return undefined;
    const after = { ...where, ...Object.fromEntries(Object.keys(where).filter((k) => k in row).map((k) => [k, row[k]])) };
    return (await db(table).select([...columns]).where(after as Record<string, Knex.Value>).first()) as Row | undefined;
  },

  async claimRows(db, { table, set, candidates, columns }) {
    // No RETURNING, and an UPDATE may not read its own table in a subquery (1093): lock the candidates
    // (SKIP LOCKED: MariaDB 10.6+, MySQL 8.0+), update those, read them back, in one transaction.
    return db.transaction(async (trx) => {
      const locked = (await trx.raw(`${candidates.sql} FOR UPDATE SKIP LOCKED`, candidates.bindings as Knex.RawBinding[])) as [Row[]];
      const ids = locked[0].map((r) => Object.values(r)[0] as Knex.Value);
      if (ids.length === 0) return [];
      const marks = ids.map(() => '?').join(', ');
      await trx.raw(`UPDATE ?? SET ${set.sql} WHERE id IN (${marks})`, [table, ...set.bindings, ...ids] as Knex.RawBinding[]);
      return (await trx(table).select(['id', ...columns]).whereIn('id', ids)) as Row[];
    });
  },

  // NULL is MySQL's smallest value: first ascending, last descending, as NULLS FIRST|LAST say elsewhere.
  typedParam: () => '?',
  sortDirection: (direction) => (direction === 'asc' ? 'ASC' : 'DESC'),

  like(column, value, { caseInsensitive, mode }) {
    // The columns' binary collation makes LIKE case-sensitive; `\` is MySQL's default LIKE escape.
    if (caseInsensitive) return { sql: 'LOWER(??) LIKE LOWER(?)', bindings: [column, likePattern(value, mode)] };
    if (mode === 'startsWith') {
      // Not LIKE 'x%': MariaDB's index range for it misses values with a character past U+FFFF after the prefix (prefix-range.ts).
      const above = prefixUpperBound(value);
      return above === null ? { sql: '?? >= ?', bindings: [column, value] } : { sql: '(?? >= ? AND ?? < ?)', bindings: [column, value, column, above] };
    }
    return { sql: '?? LIKE ?', bindings: [column, likePattern(value, mode)] };
  },

  charLength(column) {
    return { sql: 'char_length(??)', bindings: [column] };
  },
  byteOrdered(column) {
    // utf8mb4_nopad_bin orders by code point, which is UTF-8 byte order.
    return { sql: '??', bindings: [column] };
  },

  classifyError(err): DbFault | null {
    if (typeof err !== 'object' || err === null) return null;
    const e = err as MysqlError;
    const message = e.sqlMessage ?? (err instanceof Error ? err.message : '');
    switch (e.errno) {
      case 1062: // ER_DUP_ENTRY
      case 1586: // ER_DUP_ENTRY_WITH_KEY_NAME
        return { kind: 'unique', table: e.keyTable ?? null, columns: e.keyColumns ?? [] };
      case 1451: // ER_ROW_IS_REFERENCED_2: the referencing table is named
      case 1452: // ER_NO_REFERENCED_ROW_2
        return { kind: 'foreignKey', ...foreignKeyParts(message) };
      case 1048: // ER_BAD_NULL_ERROR: Column 'x' cannot be null
      case 1364: {
        // ER_NO_DEFAULT_FOR_FIELD: Field 'x' doesn't have a default value
        const col = /^(?:Column|Field) '([^']+)'/.exec(message)?.[1];
        return { kind: 'notNull', table: null, columns: col ? [col] : [] };
      }
    }
    const conflict = typeof e.errno === 'number' ? WRITE_CONFLICTS.get(e.errno) : undefined;
    if (conflict) return { kind: 'writeConflict', reason: conflict };
    if (typeof e.errno === 'number' && TIMEOUT_ERRNOS.has(e.errno)) return { kind: 'timeout' };
    if ((typeof e.sqlState === 'string' && e.sqlState.startsWith('22')) || (typeof e.errno === 'number' && INVALID_ERRNOS.has(e.errno))) {
      return { kind: 'invalidValue', detail: `${e.code ?? e.errno}: ${message}` };
    }
    if (isPoolBusy(err)) return { kind: 'busy', poolMax: err.poolMax };
    if (isUnavailable(err) || e.fatal === true) return { kind: 'unavailable', message: 'the database is unavailable' };
    return null;
  },

  async lastIssuedId(db: Knex, table: string) {
    // AUTO_INCREMENT is the next id (kept across restarts since MariaDB 10.2.4 / MySQL 8): the last one handed out is one step before.
    const [rows] = (await db.raw('SELECT AUTO_INCREMENT - @@auto_increment_increment AS v FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = ?', [table])) as [Row[]];
    return Math.max(0, Number(rows[0]?.v ?? 0));
  },

  async listTables(db: Knex) {
    const rows: { name: string }[] = await db('information_schema.tables')
      .select({ name: 'table_name' })
      .whereRaw('table_schema = DATABASE()')
      .andWhere('table_type', 'BASE TABLE');
    return rows.map((r) => String(r.name));
  },
};
