/** Config → Knex for SQLite, PostgreSQL or MariaDB/MySQL (dialects/mysql-connect.ts), with the pragmas and type parsers that make both answer alike. */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import knex, { type Knex } from 'knex';
import pg from 'pg';
import type { DatabaseTarget } from '../config/schema';
import type { Dialect } from './dialects/dialect';
import { type ProbeResult, destroySocket, withinResponsiveTime } from './liveness';
import { watchPool } from './pool-busy';
import { mysqlDialect } from './dialects/mysql';
import { connectMysql } from './dialects/mysql-connect';
import { postgresDialect } from './dialects/postgres';
import { sqliteDialect } from './dialects/sqlite';
import { sqliteImmediateClient } from './dialects/sqlite-client';
import { type InterruptibleConnection, stopStatementsAfter } from './dialects/sqlite-interrupt';
import { type StatementConnection, keepStatements } from './dialects/sqlite-statements';

export interface Database {
  readonly db: Knex;
  readonly dialect: Dialect;
  /**
   * SQLite on a file with SQLITE_READERS > 0: connections that only read (`PRAGMA query_only`), for the
   * record reads (Find, FindOne, grouped lists). In WAL mode they read while the one writer connection
   * writes, and one another, so a slow list or a long write no longer holds every other request.
   * Absent elsewhere: PostgreSQL and MariaDB pool their connections already.
   */
  readonly readDb?: Knex;
}

/**
 * int8 → number when it is safe, numeric → number, date stays `YYYY-MM-DD` (never shifted by the server's zone),
 * json and jsonb stay JSON text, as SQLite answers them: the json attribute kind parses them once
 * (attribute-kinds.ts). Parsed here too, a JSON string that reads as JSON (`"null"`, `"123"`, `"{}"`) was
 * parsed twice and came back as null, a number or an object.
 */
const PG_PARSERS: Record<number, (v: string) => unknown> = {
  20: (v) => (Number.isSafeInteger(Number(v)) ? Number(v) : v),
  1700: (v) => Number(v),
  1082: (v) => v,
  114: (v) => v,
  3802: (v) => v,
};

const pgTypes = {
  getTypeParser: (oid: number, format?: 'text' | 'binary') =>
    PG_PARSERS[oid] ?? (format === 'binary' ? pg.types.getTypeParser(oid, 'binary') : pg.types.getTypeParser(oid, 'text')),
};

/**
 * PostgreSQL time bounds. A lost database must cost a request well under a second, not a hang:
 * a refused connection fails at once (knex propagates create errors to the waiting request); a
 * connection that cannot be made or a pool slot that cannot be had in time fails after the bounds
 * below (503: database/dialects/postgres.ts classifies the errors). A statement the server works on
 * longer than the QUERY_TIMEOUT setting is cancelled there (statement_timeout: 504, a query too
 * costly, not an outage), and a server that stops answering on an open socket is given up
 * PG_CLIENT_GRACE_MS later on the client (or, when it is hung as a whole, cut by the liveness
 * watchdog below): 503. The acquire bound is also what a request
 * queued behind connections caught by a hang waits at most (1.5 s: the watchdog cuts them after
 * about 1.6 s, and a new connection would take the connect timeout on top).
 */
export const PG_CONNECT_TIMEOUT_MS = 1000;
export const PG_ACQUIRE_TIMEOUT_MS = 1500;
/** The default of QUERY_TIMEOUT (config/schema.ts), for callers that pass none (bench seeding). */
export const DEFAULT_QUERY_TIMEOUT_MS = 10_000;
/**
 * How much longer than the statement timeout the client waits for an answer before it calls the server
 * silent (503). Generous: a server that hangs is cut by the liveness watchdog long before, and a busy
 * server can take a while to act on its own statement_timeout (under CPU load we saw over 2 s).
 */
export const PG_CLIENT_GRACE_MS = 5_000;
export const PG_IDLE_IN_TRANSACTION_TIMEOUT_MS = 15_000;
/**
 * A server that hangs (stopped, or a silent network) answers nothing and closes nothing: a pooled
 * connection held longer than PG_HANG_SUSPECT_MS makes database/liveness.ts ask the server on a fresh
 * connection; no answer within PG_PROBE_TIMEOUT_MS cuts every pooled connection (→ 503 at once).
 * A request caught by a hang is so answered within about SUSPECT + PROBE + one tick (~1.6 s).
 */
export const PG_HANG_SUSPECT_MS = 500;
export const PG_PROBE_TIMEOUT_MS = 1000;

/** A SQLSTATE (class 00–58, F0, HV, P0, XX): the server answered, even if with an error. */
const SQLSTATE = /^([0-9]{2}|F0|HV|P0|XX)[0-9A-Z]{3}$/;

/** Connect on a connection of its own and `select 1`: did the server answer within the probe time? */
async function probePostgres(connectionString: string): Promise<ProbeResult> {
  // No timeouts of pg's own: they count wall time, and a busy event loop is not a silent server.
  const client = new pg.Client({ connectionString });
  client.on('error', () => undefined);
  try {
    const answer = await withinResponsiveTime(client.connect().then(() => client.query('select 1')), PG_PROBE_TIMEOUT_MS, PG_PROBE_TIMEOUT_MS * 10);
    return answer === 'timeout' ? 'silent' : 'answered';
  } catch (e) {
    const code = (e as { code?: unknown }).code;
    return typeof code === 'string' && SQLSTATE.test(code) ? 'answered' : 'silent';
  } finally {
    destroySocket(client);
    client.end().catch(() => undefined);
  }
}

interface SqliteConnection extends InterruptibleConnection, StatementConnection {
  run(sql: string, cb: (err: Error | null) => void): void;
}

/** Where knex's own warnings go (pool errors, deprecations): one JSON line each instead of a bare stack on stderr. */
export interface DbLogger {
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
  debug(obj: object, msg: string): void;
}

function knexLog(log: DbLogger | undefined): Knex.Config['log'] {
  if (!log) return undefined;
  const text = (m: unknown): string => (m instanceof Error ? m.message : typeof m === 'string' ? m : JSON.stringify(m));
  return {
    warn: (m: unknown) => log.warn({ knex: text(m) }, 'database warning'),
    error: (m: unknown) => log.error({ knex: text(m) }, 'database error'),
    deprecate: (m: unknown) => log.warn({ knex: text(m) }, 'database deprecation'),
    debug: (m: unknown) => log.debug({ knex: text(m) }, 'database debug'),
  };
}

/** The default of DATABASE_POOL_MAX (config/schema.ts): connections of a PostgreSQL or MariaDB pool. */
export const DEFAULT_POOL_MAX = 10;

export interface ConnectOptions {
  /** DATABASE_POOL_MAX: connections of a PostgreSQL or MariaDB pool (SQLite: one writer and SQLITE_READERS). */
  readonly poolMax?: number;
  readonly log?: DbLogger;
  /** QUERY_TIMEOUT in ms: the longest one statement may run before the database stops it (0: no limit). */
  readonly queryTimeoutMs?: number;
  /** SQLITE_READERS: SQLite's read-only connections beside the writer (0: the writer reads too). */
  readonly sqliteReaders?: number;
}

export function connect(target: DatabaseTarget, opts: ConnectOptions = {}): Database {
  const timeoutMs = opts.queryTimeoutMs ?? DEFAULT_QUERY_TIMEOUT_MS;
  const poolMax = opts.poolMax ?? DEFAULT_POOL_MAX;
  if (target.client === 'pg') {
    const db = knex({
      client: 'pg',
      log: knexLog(opts.log),
      connection: {
        connectionString: target.connectionString,
        types: pgTypes,
        connectionTimeoutMillis: PG_CONNECT_TIMEOUT_MS,
        // Cancelled by the server itself (SQLSTATE 57014 → 504 QueryTimeoutError); 0 turns it off.
        statement_timeout: timeoutMs,
        query_timeout: timeoutMs > 0 ? timeoutMs + PG_CLIENT_GRACE_MS : undefined,
        idle_in_transaction_session_timeout: PG_IDLE_IN_TRANSACTION_TIMEOUT_MS,
        keepAlive: true,
      } as Knex.PgConnectionConfig,
      searchPath: target.schema ? [target.schema] : undefined,
      pool: { min: 0, max: poolMax, acquireTimeoutMillis: PG_ACQUIRE_TIMEOUT_MS },
      acquireConnectionTimeout: PG_ACQUIRE_TIMEOUT_MS,
    });
    watchPool(db, poolMax, () => probePostgres(target.connectionString), { suspectMs: PG_HANG_SUSPECT_MS, probeGapMs: PG_PROBE_TIMEOUT_MS }, opts.log);
    return { db, dialect: postgresDialect };
  }
  if (target.client === 'mysql') {
    return { db: connectMysql(target.connectionString, { poolMax, log: opts.log, queryTimeoutMs: timeoutMs, knexLog: knexLog(opts.log) }), dialect: mysqlDialect };
  }
  if (target.filename !== ':memory:') mkdirSync(dirname(target.filename), { recursive: true });
  // A reader sets no journal mode (the writer puts the file in WAL) and refuses to write.
  const writerPragmas = ['PRAGMA foreign_keys = ON', 'PRAGMA journal_mode = WAL', 'PRAGMA busy_timeout = 5000', 'PRAGMA synchronous = NORMAL'];
  const readerPragmas = ['PRAGMA query_only = ON', 'PRAGMA foreign_keys = ON', 'PRAGMA busy_timeout = 5000'];
  const sqlite = (client: 'sqlite3' | typeof Knex.Client, pragmas: readonly string[], min: number, max: number): Knex =>
    knex({
      client,
      log: knexLog(opts.log),
      connection: { filename: target.filename },
      useNullAsDefault: true,
      pool: {
        min,
        max,
        afterCreate(conn: SqliteConnection, done: (err: Error | null, conn: SqliteConnection) => void) {
          const next = (i: number): void => {
            if (i === pragmas.length) return done(null, conn);
            conn.run(pragmas[i], (err) => (err ? done(err, conn) : next(i + 1)));
          };
          // Each SQL text is prepared once per connection (dialects/sqlite-statements.ts).
          keepStatements(conn);
          // SQLite has no statement_timeout: an interrupt stops a statement that runs too long (dialects/sqlite-interrupt.ts).
          if (timeoutMs > 0) stopStatementsAfter(conn, timeoutMs);
          next(0);
        },
      },
      acquireConnectionTimeout: 10000,
    });
  // SQLite has one writer at a time: a single writing connection keeps transactions simple and safe;
  // they take the write lock as they begin (dialects/sqlite-client.ts).
  const db = sqlite(sqliteImmediateClient, writerPragmas, 1, 1);
  const readers = opts.sqliteReaders ?? 0;
  // An in-memory database is private to its connection: there, the writer reads too.
  if (target.filename === ':memory:' || readers === 0) return { db, dialect: sqliteDialect };
  return { db, dialect: sqliteDialect, readDb: sqlite('sqlite3', readerPragmas, 0, readers) };
}
