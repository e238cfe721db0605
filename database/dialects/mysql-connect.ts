/**
 * DATABASE_URL=mysql://… → knex on MariaDB (10.6+: SKIP LOCKED) or MySQL (8.0+) through mysql2, with a session that
 * answers like the other two databases:
 *
 * - `SET NAMES utf8mb4 COLLATE utf8mb4_nopad_bin` (MySQL 8: utf8mb4_0900_bin): literals compare as the
 *   binary columns do (mysql-client.ts creates every table with that collation);
 * - strict SQL mode (`STRICT_ALL_TABLES`: a value the column cannot hold is an error, never silently
 *   cut or zeroed), plus ANSI_QUOTES and PIPES_AS_CONCAT so `"name"` and `||` mean what they mean in
 *   SQLite and PostgreSQL;
 * - `time_zone = '+00:00'`: NOW() and CONVERT_TZ start from UTC, never from the server's zone;
 * - `div_precision_increment = 30`: AVG and `/` keep the digits a double holds (4 by default);
 * - `max_sort_length` = 16 KiB (1024 bytes by default), with a sort buffer of at least 2.5 MiB: ORDER BY
 *   compares long text past its first kilobyte (MYSQL_MAX_SORT_LENGTH);
 * - READ COMMITTED, PostgreSQL's default (InnoDB's REPEATABLE READ takes gap locks that make
 *   concurrent inserts deadlock);
 * - QUERY_TIMEOUT as MariaDB's `max_statement_time` (seconds; every statement) or MySQL's
 *   `max_execution_time` (milliseconds; SELECT only): a statement past it fails with 1969 / 3024 → 504;
 * - MariaDB: `idle_transaction_timeout = 15` s, as PostgreSQL's idle_in_transaction_session_timeout;
 * - a connection attempt gives up after 1 s, a pool slot after 1.5 s (503), and the liveness watchdog
 *   of database/liveness.ts cuts the pooled connections of a server that hangs, as on PostgreSQL.
 *
 * The first connection checks the server (version, time zone tables) and logs what is missing.
 * Driver values: DATE as `YYYY-MM-DD` text, DECIMAL and BIGINT as numbers when safe, TIME as
 * PostgreSQL prints it (`09:30:00`, `09:30:00.5`), JSON as its text.
 */
import knex, { type Knex } from 'knex';
import type { DbLogger } from '../connect';
import { type ProbeResult, withinResponsiveTime } from '../liveness';
import { watchPool } from '../pool-busy';
import { MARIADB_COLLATION, MYSQL8_COLLATION, MYSQL_CHARSET, MysqlClient, setTableCollation } from './mysql-client';
import type { MysqlError } from './mysql';
import { MAX_SORT_KEYS } from '../../core/query/limits';

export const MYSQL_CONNECT_TIMEOUT_MS = 1000;
export const MYSQL_ACQUIRE_TIMEOUT_MS = 1500;
export const MYSQL_HANG_SUSPECT_MS = 500;
export const MYSQL_PROBE_TIMEOUT_MS = 1000;
export const MYSQL_IDLE_IN_TRANSACTION_TIMEOUT_S = 15;
/**
 * Bytes of a value ORDER BY compares (MariaDB's default, 1024, sorted text sharing a longer prefix in id
 * order): 16 KiB, the first 4,096 characters at least (every string field of the shipped models whole).
 * A filesort needs room for ~16 rows of keys in its sort buffer, and a row's key is every sort key at
 * up to this length: MAX_SORT_KEYS (10) text keys are 160 KiB a row. 128 KiB keys answered "Out of sort
 * memory" (a 500) for a populate sorted twice by one text field with a 2 MiB buffer, and longer keys
 * made a paged sort of 20,000 texts 7 times slower (1 MiB keys, 16 MiB buffer).
 */
export const MYSQL_MAX_SORT_LENGTH = 16384;
export const MYSQL_SORT_BUFFER_BYTES = 16 * MAX_SORT_KEYS * MYSQL_MAX_SORT_LENGTH;

const SQL_MODE = 'STRICT_ALL_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION,ANSI_QUOTES,PIPES_AS_CONCAT';

/** The parts of a mysql://user:pass@host:port/db URL mysql2 takes. */
export function mysqlConnection(url: string): { host: string; port: number; user: string; password: string; database: string } {
  const u = new URL(url);
  return {
    host: u.hostname || '127.0.0.1',
    port: u.port ? Number(u.port) : 3306,
    user: decodeURIComponent(u.username),
    password: decodeURIComponent(u.password),
    database: decodeURIComponent(u.pathname.replace(/^\//, '')),
  };
}

interface RawConnection {
  query(sql: string, bindings: unknown[], cb: (err: Error | null, rows: unknown) => void): void;
  query(sql: string, cb: (err: Error | null, rows: unknown) => void): void;
}

function run(conn: RawConnection, sql: string, bindings: unknown[] = []): Promise<Record<string, unknown>[]> {
  return new Promise((resolve, reject) => conn.query(sql, bindings, (err, rows) => (err ? reject(err) : resolve(rows as Record<string, unknown>[]))));
}

/** A TIME as PostgreSQL prints it: `HH:MM:SS` and the fraction without trailing zeros. */
export function canonicalTimeText(v: string): string {
  const [hms, fraction = ''] = v.split('.');
  const f = fraction.replace(/0+$/, '');
  return f ? `${hms}.${f}` : hms;
}

interface Field {
  type: string;
  string(): string | null;
}

function typeCast(field: Field, next: () => unknown): unknown {
  if (field.type === 'TIME') {
    const v = field.string();
    return v === null ? null : canonicalTimeText(v);
  }
  return next();
}

/** What the first connection learned about the server. */
interface ServerFacts {
  readonly mariadb: boolean;
  readonly version: string;
}

let facts: Promise<ServerFacts> | null = null;

async function learnServer(conn: RawConnection, log: DbLogger | undefined): Promise<ServerFacts> {
  const [row] = await run(conn, 'SELECT VERSION() AS version');
  const version = String(row.version);
  const mariadb = /mariadb/i.test(version);
  const [major, minor] = version.split(/[.-]/).map(Number);
  if (mariadb ? major < 10 || (major === 10 && minor < 6) : major < 8) {
    throw new Error(`the database server is ${version}; the service needs MariaDB 10.6+ or MySQL 8.0+ (SKIP LOCKED)`);
  }
  setTableCollation(mariadb ? MARIADB_COLLATION : MYSQL8_COLLATION);
  // Named time zones need the server's tables (mysql.time_zone*): CONVERT_TZ answers NULL without them.
  const [tz] = await run(conn, "SELECT CONVERT_TZ('2026-01-01 00:00:00', '+00:00', 'Europe/Berlin') AS berlin");
  if (tz.berlin === null) {
    log?.warn(
      { database: 'mysql' },
      'the database has no time zone tables: grouped Find takes fixed UTC offsets only (load them with `mariadb-tzinfo-to-sql /usr/share/zoneinfo | mariadb -u root mysql`, then restart)',
    );
  }
  return { mariadb, version };
}

async function prepareSession(conn: RawConnection, timeoutMs: number, log: DbLogger | undefined): Promise<void> {
  facts ??= learnServer(conn, log).catch((e: unknown) => {
    facts = null;
    throw e;
  });
  const server = await facts;
  await run(conn, `SET NAMES ${MYSQL_CHARSET} COLLATE ${server.mariadb ? MARIADB_COLLATION : MYSQL8_COLLATION}`);
  await run(conn, 'SET SESSION sql_mode = ?', [SQL_MODE]);
  await run(conn, "SET SESSION time_zone = '+00:00'");
  await run(conn, 'SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED');
  // AVG of integers: as many decimals as a double holds (the default, 4, answered 9.2727 for 9.272727…).
  await run(conn, 'SET SESSION div_precision_increment = 30');
  // Text sorts by (nearly) all its bytes, as on SQLite and PostgreSQL: see MYSQL_MAX_SORT_LENGTH.
  await run(conn, 'SET SESSION sort_buffer_size = GREATEST(@@global.sort_buffer_size, ?)', [MYSQL_SORT_BUFFER_BYTES]);
  await run(conn, 'SET SESSION max_sort_length = ?', [MYSQL_MAX_SORT_LENGTH]);
  if (server.mariadb) {
    await run(conn, 'SET SESSION max_statement_time = ?', [timeoutMs / 1000]);
    // PostgreSQL's idle_in_transaction_session_timeout: the server ends a transaction left open.
    await run(conn, 'SET SESSION idle_transaction_timeout = ?', [MYSQL_IDLE_IN_TRANSACTION_TIMEOUT_S]);
  } else {
    await run(conn, 'SET SESSION max_execution_time = ?', [timeoutMs]);
  }
}

/** Connect on a connection of its own and `SELECT 1`: did the server answer within the probe time? */
async function probeMysql(url: string): Promise<ProbeResult> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const mysql2 = require('mysql2') as { createConnection(o: object): RawConnection & { on(e: string, f: () => void): void; connect(cb: (e: Error | null) => void): void; destroy(): void } };
  const conn = mysql2.createConnection({ ...mysqlConnection(url) });
  conn.on('error', () => undefined);
  try {
    const connected = new Promise<void>((resolve, reject) => conn.connect((e) => (e ? reject(e) : resolve())));
    const answer = await withinResponsiveTime(connected.then(() => run(conn, 'SELECT 1')), MYSQL_PROBE_TIMEOUT_MS, MYSQL_PROBE_TIMEOUT_MS * 10);
    return answer === 'timeout' ? 'silent' : 'answered';
  } catch (e) {
    // The server answered with an error of its own (access denied, too many connections …): alive.
    return typeof (e as MysqlError).errno === 'number' && ((e as MysqlError).errno ?? 0) < 2000 ? 'answered' : 'silent';
  } finally {
    conn.destroy();
  }
}

export interface MysqlConnectOptions {
  readonly poolMax: number;
  readonly log?: DbLogger;
  readonly queryTimeoutMs: number;
  readonly knexLog?: Knex.Config['log'];
}

export function connectMysql(url: string, opts: MysqlConnectOptions): Knex {
  const db = knex({
    client: MysqlClient,
    log: opts.knexLog,
    connection: {
      ...mysqlConnection(url),
      charset: 'UTF8MB4_BIN',
      timezone: 'Z',
      dateStrings: ['DATE'],
      supportBigNumbers: true,
      decimalNumbers: true,
      // JSON columns as their text, as SQLite and PostgreSQL (connect.ts) answer them: the json attribute kind
      // parses once; mysql2's own parse made a JSON string such as "null" or "123" null or a number.
      jsonStrings: true,
      connectTimeout: MYSQL_CONNECT_TIMEOUT_MS,
      enableKeepAlive: true,
      typeCast,
    } as unknown as Knex.MySql2ConnectionConfig,
    pool: {
      min: 0,
      max: opts.poolMax,
      acquireTimeoutMillis: MYSQL_ACQUIRE_TIMEOUT_MS,
      afterCreate(conn: RawConnection, done: (err: Error | null, conn: RawConnection) => void) {
        prepareSession(conn, opts.queryTimeoutMs, opts.log).then(
          () => done(null, conn),
          (e: Error) => done(e, conn),
        );
      },
    },
    acquireConnectionTimeout: MYSQL_ACQUIRE_TIMEOUT_MS,
  });
  watchPool(db, opts.poolMax, () => probeMysql(url), { suspectMs: MYSQL_HANG_SUSPECT_MS, probeGapMs: MYSQL_PROBE_TIMEOUT_MS }, opts.log);
  return db;
}
