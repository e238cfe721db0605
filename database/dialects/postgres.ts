import type { Knex } from 'knex';
import { type Dialect, type DbFault, SESSION_LOCK_WAIT_S, claimWithReturning, insertWithReturning, likePattern, lockRowsWith, migrateInPlace, nullsSpelledOut, onOwnConnection, withReturning } from './dialect';
import { isPoolBusy } from '../pool-busy';
import { postgresDates } from './postgres-dates';

interface PgError {
  code?: string;
  table?: string;
  column?: string;
  constraint?: string;
  detail?: string;
}

/** `Key (fee_type, deleted_tracker)=(x, not-deleted) already exists.` → columns. */
function detailColumns(detail: string | undefined): string[] {
  const m = /^Key \(([^)]+)\)/.exec(detail ?? '');
  return m ? m[1].split(',').map((s) => s.trim().replace(/^"|"$/g, '')) : [];
}

/**
 * Driver and server codes that mean "the database is not there right now" (→ 503, never 500):
 * socket errors, admin shutdown / crash / starting up (57P0x), connection exceptions (08xxx), too
 * many connections (53300), out of resources (53xxx), and a statement cancelled by someone else
 * (57014 "due to user request": an administrator's pg_cancel_backend). A statement cancelled by
 * statement_timeout (57014 too) is no outage: classifyError answers `timeout` for it first.
 */
const UNAVAILABLE = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN',
  '57P01', '57P02', '57P03', '57014', '08000', '08003', '08006', '08001', '08004', '08P01', '53000', '53100', '53200', '53300',
]);

/**
 * What node-postgres and knex say when the connection is gone or cannot be had in time. "timeout
 * expired" is node-postgres's connectionTimeoutMillis on a server that accepts and never answers
 * (a hung one: tests/hardening/database-hang.test.ts).
 */
const UNAVAILABLE_MESSAGE =
  /Knex: Timeout acquiring a connection|Connection terminated|connection error and is not queryable|Client was closed and is not queryable|Query read timeout|timeout exceeded when trying to connect|^timeout expired$|the database system is (shutting down|starting up|in recovery mode)/;

function isUnavailable(err: unknown, depth = 0): boolean {
  if (typeof err !== 'object' || err === null || depth > 3) return false;
  const e = err as { code?: unknown; name?: unknown; message?: unknown; errors?: unknown };
  if (typeof e.code === 'string' && UNAVAILABLE.has(e.code)) return true;
  if (e.name === 'KnexTimeoutError') return true;
  if (typeof e.message === 'string' && UNAVAILABLE_MESSAGE.test(e.message)) return true;
  // Node's happy-eyeballs connect rejects with an AggregateError of one error per address.
  return Array.isArray(e.errors) && e.errors.some((x) => isUnavailable(x, depth + 1));
}

const rawRows: Dialect['rawRows'] = (result) => (result as { rows: Record<string, unknown>[] }).rows;

/**
 * Class 40 (transaction rollback) and a lock not had in time: the transaction collided with others and
 * was rolled back (nothing written); the same write may be sent again. 55P03: lock_timeout / NOWAIT.
 */
const WRITE_CONFLICTS: Readonly<Record<string, 'deadlock' | 'serialization' | 'lockTimeout'>> = { '40P01': 'deadlock', '40001': 'serialization', '55P03': 'lockTimeout' };

export const postgresDialect: Dialect = {
  ...postgresDates,
  ...withReturning,
  insertWithExpressions: insertWithReturning(rawRows),
  groupedOrderTail: null,
  async analyze(db) {
    await db.raw('ANALYZE');
  },
  typedParam: (kind) => (kind === 'timestamp' ? 'CAST(? AS timestamptz)' : 'CAST(? AS jsonb)'),
  sortDirection: nullsSpelledOut,
  rowLocks: true,
  freshInsertReturning: true,
  rawRows,
  claimRows: claimWithReturning(true, rawRows),
  // NO KEY UPDATE: two lockers (and UPDATEs) still queue, but a foreign-key check of another table's insert
  // (KEY SHARE) does not wait for the lock holder.
  lockRows: lockRowsWith('FOR NO KEY UPDATE'),
  lockedTransaction(db, name, work) {
    // Advisory locks are per database: the schema in the key keeps deployments (and test schemas) apart.
    return db.transaction(async (trx) => {
      await trx.raw("SELECT pg_advisory_xact_lock(hashtext(current_schema() || ':' || ?))", [`ris:${name}`]);
      return work(trx);
    });
  },
  lockedSession(db, name, work) {
    // no statement or client timeout on the lock's own connection: it waits for another node's migrations
    return onOwnConnection(db, { statement_timeout: 0, query_timeout: undefined }, async (own, conn) => {
      const searchPath = (db.client.config as Knex.Config).searchPath;
      const key = `ris:${[searchPath ?? []].flat()[0] ?? ''}:${name}`;
      await own.raw(`SET lock_timeout = '${SESSION_LOCK_WAIT_S}s'`).connection(conn);
      await own.raw('SELECT pg_advisory_lock(hashtext(?))', [key]).connection(conn);
      try {
        return await work();
      } finally {
        await own.raw('SELECT pg_advisory_unlock(hashtext(?))', [key]).connection(conn).catch(() => undefined);
      }
    });
  },
  name: 'postgres',
  migrationRun: migrateInPlace,

  like(column, value, { caseInsensitive, mode }) {
    return { sql: `?? ${caseInsensitive ? 'ILIKE' : 'LIKE'} ? ESCAPE '\\'`, bindings: [column, likePattern(value, mode)] };
  },

  charLength(column) {
    return { sql: 'char_length(??)', bindings: [column] };
  },
  byteOrdered(column) {
    // The database's default collation (en_US.UTF-8 and the like) orders `a` before `B`; "C" orders bytes as SQLite does.
    return { sql: '?? COLLATE "C"', bindings: [column] };
  },

  classifyError(err): DbFault | null {
    if (typeof err !== 'object' || err === null) return null;
    const e = err as PgError;
    const message = err instanceof Error ? err.message : '';
    switch (e.code) {
      case '23505':
        return { kind: 'unique', table: e.table ?? null, columns: detailColumns(e.detail) };
      case '23503':
        return { kind: 'foreignKey', table: e.table ?? null, columns: detailColumns(e.detail) };
      case '23502':
        return { kind: 'notNull', table: e.table ?? null, columns: e.column ? [e.column] : [] };
    }
    if (typeof e.code === 'string' && e.code in WRITE_CONFLICTS) return { kind: 'writeConflict', reason: WRITE_CONFLICTS[e.code] };
    if (e.code === '57014' && /statement timeout/.test(message)) return { kind: 'timeout' };
    // Class 22, data exception: numeric overflow, date out of range, NUL in text, untranslatable
    // character, unknown time zone … The values are checked before SQL; this is the safety net.
    if (typeof e.code === 'string' && e.code.startsWith('22')) return { kind: 'invalidValue', detail: `${e.code}: ${message.replace(/^.* - /, '')}` };
    if (isPoolBusy(err)) return { kind: 'busy', poolMax: err.poolMax };
    if (isUnavailable(err)) return { kind: 'unavailable', message: 'the database is unavailable' };
    return null;
  },

  async lastIssuedId(db: Knex, table: string) {
    // NULL until the sequence has handed out a value.
    const rows = rawRows(await db.raw("SELECT pg_sequence_last_value(pg_get_serial_sequence(?, 'id')::regclass) AS v", [table]));
    return Number(rows[0]?.v ?? 0);
  },

  async listTables(db: Knex) {
    const rows: { table_name: string }[] = await db('information_schema.tables')
      .select('table_name')
      .whereRaw('table_schema = current_schema()')
      .andWhere('table_type', 'BASE TABLE');
    return rows.map((r) => r.table_name);
  },
};
