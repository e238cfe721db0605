import type { Knex } from 'knex';
import { type Dialect, type DbFault, SESSION_LOCK_WAIT_S, claimWithReturning, insertWithReturning, likePattern, nullsSpelledOut, onOwnConnection, withReturning } from './dialect';
import { sqliteDates } from './sqlite-dates';
import { sqliteMigrationRun } from './sqlite-migrations';
import { sqliteSums } from './sqlite-sums';

function errCode(err: unknown): string | undefined {
  return typeof err === 'object' && err !== null && 'code' in err ? String((err as { code: unknown }).code) : undefined;
}

/** `UNIQUE constraint failed: fee_type.fee_type, fee_type.deleted_tracker` → table + columns. */
function constraintColumns(message: string): { table: string | null; columns: string[] } {
  const m = /constraint failed: (.+)$/.exec(message);
  if (!m) return { table: null, columns: [] };
  const parts = m[1].split(',').map((s) => s.trim().split('.'));
  return { table: parts[0]?.length === 2 ? parts[0][0] : null, columns: parts.map((p) => p[p.length - 1]) };
}

const rawRows: Dialect['rawRows'] = (result) => result as Record<string, unknown>[];

export const sqliteDialect: Dialect = {
  ...sqliteDates,
  ...withReturning,
  insertWithExpressions: insertWithReturning(rawRows),
  groupedOrderTail: null,
  async analyze(db) {
    await db.raw('ANALYZE');
  },
  typedParam: () => '?',
  sortDirection: nullsSpelledOut,
  rowLocks: false,
  freshInsertReturning: true,
  // One connection writes at a time (a transaction holds the database's write lock): nothing to take.
  lockRows: async () => undefined,
  // BEGIN IMMEDIATE (sqlite-client.ts) takes the write lock at once: a second writer waits for the first's end.
  lockedTransaction: (db, _name, work) => db.transaction(work),
  async lockedSession(db, name, work) {
    // Another process may use the same file: its write lock, held on a lock file of its own, is the mutex
    // (a file lock: the system lets go of it when the process dies).
    const { filename } = (db.client.config as Knex.Config).connection as { filename: string };
    if (filename === ':memory:' || filename === '') return work();
    return onOwnConnection(db, { filename: `${filename}.${name}.lock` }, async (own, conn) => {
      await own.raw(`PRAGMA busy_timeout = ${SESSION_LOCK_WAIT_S * 1000}`).connection(conn);
      await own.raw('BEGIN IMMEDIATE').connection(conn);
      try {
        return await work();
      } finally {
        await own.raw('ROLLBACK').connection(conn).catch(() => undefined);
      }
    });
  },
  rawRows,
  claimRows: claimWithReturning(false, rawRows),
  name: 'sqlite',
  // tables rebuilt by a migration keep the rows that reference them (sqlite-migrations.ts)
  migrationRun: sqliteMigrationRun,

  like(column, value, { caseInsensitive, mode }) {
    if (caseInsensitive) {
      // SQLite's LIKE folds ASCII case only; lower() on both sides makes the intent explicit.
      return { sql: "lower(??) LIKE lower(?) ESCAPE '\\'", bindings: [column, likePattern(value, mode)] };
    }
    // SQLite's LIKE ignores case: compare exact substrings instead, so the case-sensitive operators are.
    if (mode === 'contains') return { sql: 'instr(??, ?) > 0', bindings: [column, value] };
    if (value === '') return { sql: '?? IS NOT NULL', bindings: [column] };
    if (mode === 'startsWith') return { sql: 'substr(??, 1, length(?)) = ?', bindings: [column, value, value] };
    return { sql: 'substr(??, -length(?)) = ?', bindings: [column, value, value] };
  },

  charLength(column) {
    return { sql: 'length(??)', bindings: [column] };
  },
  byteOrdered(column) {
    // SQLite's default collation (BINARY) already compares bytes.
    return { sql: '??', bindings: [column] };
  },

  exactAggregate: sqliteSums,

  classifyError(err): DbFault | null {
    const code = errCode(err);
    const message = err instanceof Error ? err.message : String(err);
    if (code === 'SQLITE_CONSTRAINT') {
      if (message.includes('UNIQUE constraint failed')) return { kind: 'unique', ...constraintColumns(message) };
      if (message.includes('FOREIGN KEY constraint failed')) return { kind: 'foreignKey', table: null, columns: [] };
      if (message.includes('NOT NULL constraint failed')) return { kind: 'notNull', ...constraintColumns(message) };
    }
    // sqlite-interrupt.ts stopped the statement at QUERY_TIMEOUT (nothing else interrupts this connection).
    if (code === 'SQLITE_INTERRUPT') return { kind: 'timeout' };
    // Busy, not lost: the write lock another process (or a long write here) holds past busy_timeout, or a
    // connection of this process's own not had in time. The file itself is fine.
    if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED') return { kind: 'busy', poolMax: null };
    if (typeof err === 'object' && err !== null && (err as { name?: unknown }).name === 'KnexTimeoutError') return { kind: 'busy', poolMax: null };
    if (code === 'SQLITE_CANTOPEN' || code === 'SQLITE_IOERR') return { kind: 'unavailable', message: 'the database is unavailable' };
    if (code === 'SQLITE_TOOBIG' || code === 'SQLITE_RANGE' || code === 'SQLITE_MISMATCH') return { kind: 'invalidValue', detail: `${code}: ${message}` };
    return null;
  },

  async lastIssuedId(db: Knex, table: string) {
    // knex's `increments` is INTEGER PRIMARY KEY AUTOINCREMENT: sqlite_sequence keeps its highest id ever.
    const seq = (await db.raw('SELECT seq FROM sqlite_sequence WHERE name = ?', [table]).catch(() => [])) as { seq: number | string }[];
    if (seq.length > 0) return Number(seq[0].seq);
    const row = (await db(table).max({ id: 'id' }).first()) as { id: number | string | null } | undefined;
    return Number(row?.id ?? 0);
  },

  async listTables(db: Knex) {
    const rows: { name: string }[] = await db('sqlite_master').select('name').where('type', 'table').whereNot('name', 'like', 'sqlite_%');
    return rows.map((r) => r.name);
  },
};
