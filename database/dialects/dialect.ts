/** Everything that differs between SQLite, PostgreSQL and MariaDB/MySQL, behind one interface (DESIGN habit 7). */
import knex, { type Knex } from 'knex';
import type { BucketFormat, BucketZone, Granularity } from '../../core/query/group-vocabulary';
import type { MigrationOp } from '../schema/types';

/** A driver error, classified; records/db-errors.ts turns it into an AppError with field names. */
export type DbFault =
  | { readonly kind: 'unique'; readonly table: string | null; readonly columns: readonly string[] }
  | { readonly kind: 'foreignKey'; readonly table: string | null; readonly columns: readonly string[] }
  | { readonly kind: 'notNull'; readonly table: string | null; readonly columns: readonly string[] }
  /** A data error (a value out of the column's range, text the database cannot hold): `detail` is the driver's text, for logs only. */
  | { readonly kind: 'invalidValue'; readonly detail: string }
  | { readonly kind: 'unavailable'; readonly message: string }
  /**
   * Every pooled connection stayed in use by work on a live server (database/pool-busy.ts; `poolMax`: its
   * size), or SQLite's write lock stayed taken (`poolMax` null): 503 ServiceBusyError.
   */
  | { readonly kind: 'busy'; readonly poolMax: number | null }
  /**
   * The database rolled the transaction back because of other transactions: a deadlock, a serialization
   * failure, a lock wait past its limit. Nothing was written; a retry will do (→ 503 WriteConflictError).
   */
  | { readonly kind: 'writeConflict'; readonly reason: 'deadlock' | 'serialization' | 'lockTimeout' }
  /** The statement ran past the per-query time limit (QUERY_TIMEOUT) and the database stopped it. */
  | { readonly kind: 'timeout' };

export interface LikeOptions {
  readonly caseInsensitive: boolean;
  readonly negate: boolean;
  readonly mode: 'contains' | 'startsWith' | 'endsWith';
}

/** A SQL fragment with `??` identifier and `?` value placeholders. */
export interface SqlFragment {
  readonly sql: string;
  readonly bindings: readonly unknown[];
}

/** What `Dialect.claimRows` updates: fragments with `??` / `?` placeholders. */
export interface ClaimRows {
  readonly table: string;
  /** The assignments (`?? = ?, …`). */
  readonly set: SqlFragment;
  /** `SELECT x.id FROM ?? x WHERE … ORDER BY … LIMIT ?`, without FOR UPDATE. */
  readonly candidates: SqlFragment;
  /** Columns answered for each claimed row, besides `id`. */
  readonly columns: readonly string[];
}

/**
 * An exact SUM or AVG computed by the database in parts it answers without overflow or rounding, made
 * into the JSON number PostgreSQL's and MariaDB's exact answers become (the nearest double of the exact
 * result; an average rounded as PostgreSQL's numeric division rounds it). `scale`: digits after the
 * point (0 for integers; a decimal's 4).
 */
export interface ExactAggregate {
  /** Per row: the value of `column` in whole units of its last digit. */
  units(column: string, scale: number): SqlFragment;
  /** Per group: the aggregate's column, of the per-row `units` column; `read` makes the answer of it. */
  value(fn: 'sum' | 'avg', units: string): SqlFragment;
  /** Per group: a number in the order of the answers, for ORDER BY. */
  order(fn: 'sum' | 'avg', units: string, scale: number): SqlFragment;
  /** The aggregate's column as the API answers it; null for a group without values. */
  read(fn: 'sum' | 'avg', raw: unknown, scale: number): number | null;
}

export interface Dialect {
  readonly name: 'sqlite' | 'postgres' | 'mysql';
  /** SELECT … FOR UPDATE is meaningful (SQLite serializes writers anyway). */
  readonly rowLocks: boolean;
  /**
   * A statement inside a transaction sees every transaction committed before it began (PostgreSQL's
   * READ COMMITTED; SQLite: one writer at a time), and `INSERT … RETURNING` answers many rows. MySQL:
   * no (REPEATABLE READ keeps the transaction's first snapshot; no RETURNING).
   */
  readonly freshInsertReturning: boolean;
  /** The rows of a `knex.raw` SELECT (the drivers answer in different shapes). */
  rawRows(result: unknown): Record<string, unknown>[];
  /** `column` matches `value` as plain text (`%`, `_`, `\` match themselves); never NULL for a non-null column. */
  like(column: string, value: string, opts: Omit<LikeOptions, 'negate'>): SqlFragment;
  /**
   * A text column as ordered comparisons (`$lt`, `$between`, …) and ORDER BY see it: byte order
   * (`B` < `a`) on both databases, whatever collation a PostgreSQL database was created with.
   */
  byteOrdered(column: string): SqlFragment;
  /** The length of a text column's value in characters, as an attribute's minLength / maxLength counts it (MariaDB's LENGTH counts bytes). */
  charLength(column: string): SqlFragment;
  /**
   * SUM and AVG of integer, biginteger and decimal columns where the database's own are not exact
   * (SQLite: SUM fails past 2^63, AVG and decimal sums are float arithmetic). Absent: the database's own
   * SUM and AVG answer the exact decimal (PostgreSQL's numeric, MariaDB's DECIMAL), read with Number().
   */
  readonly exactAggregate?: ExactAggregate;
  /**
   * INSERT of one row answering the stored row's `columns` (`INSERT … RETURNING` where the database
   * has it; MySQL has none: the row is read back by its new id on the same connection).
   */
  insertReturning(db: Knex, table: string, row: Record<string, unknown>, columns: readonly string[]): Promise<Record<string, unknown>>;
  /**
   * INSERT of one row answering its new `id` and the value of each of `expressions` (SQL with `?`
   * bindings, e.g. a probe of another table or `pg_notify(…)`), in one `INSERT … RETURNING id, <expr>…`
   * where the database has it; MySQL: the INSERT, then one SELECT of the expressions on the same
   * connection (MariaDB refuses a RETURNING subquery on the table it inserts into).
   */
  insertWithExpressions(db: Knex, table: string, row: Record<string, unknown>, expressions: readonly SqlFragment[]): Promise<{ id: number; values: unknown[] }>;
  /** UPDATE of the rows matching `where` (at most one: `where` names an id) answering the row's `columns`; undefined when none matched. */
  updateReturning(db: Knex, table: string, where: Record<string, unknown>, row: Record<string, unknown>, columns: readonly string[]): Promise<Record<string, unknown> | undefined>;
  /**
   * `ASC`/`DESC` with NULLs as the smallest value (first ascending, last descending): `NULLS FIRST|LAST`
   * spelled out where the database takes it; MySQL has no such clause and sorts NULLs so already.
   */
  sortDirection(direction: 'asc' | 'desc'): string;
  /**
   * A `?` placeholder of a timestamp or JSON column's type, for places where the database cannot take the
   * type from a column (a CASE branch): PostgreSQL casts (`CAST(? AS timestamptz)`); the others store
   * both as text and take the text as it is.
   */
  typedParam(kind: 'timestamp' | 'json'): string;
  /**
   * A last ORDER BY term of a grouped Find (after every group key, so it never changes the order), or
   * null. MariaDB drops an ORDER BY that repeats its GROUP BY when the query also has COUNT(DISTINCT …)
   * and a window function (the groups then come in hash order): one more term keeps it.
   */
  readonly groupedOrderTail: string | null;
  /** Refreshes the planner's statistics of `tables` (after a bulk load: the bench's seeding). */
  analyze(db: Knex, tables: readonly string[]): Promise<void>;
  /**
   * Claims rows for one worker among several: `UPDATE table SET set WHERE id IN (candidates)`, where
   * `candidates` is a `SELECT <alias>.id FROM table <alias> … ORDER BY … LIMIT n` (no locking clause),
   * answering the claimed rows' `id` and `columns`. Candidates another transaction holds are skipped
   * (`FOR UPDATE SKIP LOCKED` where there are row locks), so two workers never claim the same row.
   * RETURNING in one statement on SQLite/PostgreSQL; MySQL has neither RETURNING nor an UPDATE whose
   * subquery reads its own table: lock the candidates, update them, read them back, in one transaction.
   */
  claimRows(db: Knex, claim: ClaimRows): Promise<Record<string, unknown>[]>;
  /**
   * Locks rows `ids` of `table` until the transaction `db` ends: another transaction's `lockRows` of one of
   * them (or an UPDATE of it) waits. Rows are taken in id order, so two calls never deadlock on each other.
   * Unknown ids are passed over. A no-op where writers are serialized anyway (SQLite: one writer at a time).
   */
  lockRows(db: Knex, table: string, ids: readonly number[]): Promise<void>;
  /**
   * Runs `work` in a transaction that holds the lock `name` from before its first statement to its end: a
   * `lockedTransaction` of the same name on the same database (schema), in this process or another node's,
   * waits until it has ended, then sees what it committed. For work that reads, decides and writes where no
   * unique key guards against a second writer deciding the same (the access-rules file, applied by every node
   * at its start). PostgreSQL: `pg_advisory_xact_lock` (per database and schema; released with the
   * transaction); MySQL/MariaDB: `GET_LOCK` (per database, waits at most LOCKED_TRANSACTION_WAIT_S) taken on the
   * transaction's connection before its BEGIN and released after its COMMIT or ROLLBACK (a named lock belongs
   * to the session, and a REPEATABLE READ snapshot taken before the lock would not see the other's commit);
   * SQLite: a plain transaction (BEGIN IMMEDIATE: one writer at a time).
   */
  lockedTransaction<T>(db: Knex, name: string, work: (trx: Knex.Transaction) => Promise<T>): Promise<T>;
  /**
   * Runs `work` (which uses `db` as it likes: DDL, several transactions) while this process holds the lock
   * `name` of the database, on a connection of its own beside `db`'s pool: the same call in another process
   * waits (at most SESSION_LOCK_WAIT_S) until `work` has ended, and a process that dies lets go of it. For
   * what nodes starting together must not do at once: applying migrations (knex's own lock table lets a
   * second node fail instead of waiting, and is not there yet on an empty database). PostgreSQL:
   * `pg_advisory_lock` (per schema); MySQL/MariaDB: `GET_LOCK` (per database); SQLite: `BEGIN IMMEDIATE` on
   * a lock file beside the database file (`<file>.<name>.lock`; none for an in-memory database).
   */
  lockedSession<T>(db: Knex, name: string, work: () => Promise<T>): Promise<T>;
  /**
   * Runs a migration run (`run`: knex's migrator on `db`, given the hooks to pass it) so that no migration
   * changes a row it does not name. SQLite alters most columns by rebuilding the table (new table, copy,
   * drop, rename): with foreign keys on, the drop would delete the rows that reference the table (CASCADE),
   * clear their values (SET NULL) or fail (RESTRICT), and `PRAGMA foreign_keys` cannot change inside the
   * migration's transaction: there (dialects/sqlite-migrations.ts) the run has foreign keys off on its
   * connection, and each migration ends with a foreign-key check that fails it (rolled back) when a row
   * names a missing one. PostgreSQL and MySQL/MariaDB alter tables in place: the run as it is.
   */
  migrationRun<T>(db: Knex, run: (hooks: MigrationHooks) => Promise<T>): Promise<T>;
  /**
   * Present where each CREATE, ALTER and DROP commits as it runs (MariaDB/MySQL): a failed migration's
   * transaction does not take back the steps before the failing one. Undoes those of `ops` (a generated
   * migration's changes) the database shows done and that can be undone without losing data. Absent
   * (SQLite, PostgreSQL): a failed migration's schema changes roll back with its transaction.
   */
  undoCommittedSteps?(db: Knex, ops: readonly MigrationOp[]): Promise<UndoneSteps>;
  /** Classifies a driver error, or null when it is none of ours to explain. */
  classifyError(err: unknown): DbFault | null;
  /** The tables of the current database / schema. */
  listTables(db: Knex): Promise<string[]>;
  /**
   * The highest `id` the auto-increment of `table` (an `increments` column) has handed out, 0 when none,
   * however many rows were deleted since: what was there before an outbox pruned itself empty. SQLite:
   * `sqlite_sequence` (AUTOINCREMENT; a table without it answers its largest id); PostgreSQL: the serial's
   * sequence (`pg_sequence_last_value`); MariaDB/MySQL: the table's next AUTO_INCREMENT less the increment.
   * May run ahead of what is committed (an id taken by a transaction still running or rolled back).
   */
  lastIssuedId(db: Knex, table: string): Promise<number>;

  // Date buckets of grouped Find (spec 4.5 rule 2). Every label is made in SQL from UTC plus the
  // zone given, never from the server's or the session's time zone.
  /**
   * The IANA zone names (`Europe/Berlin`) this database buckets in, or null when it buckets only in
   * fixed offsets. Node's list differs from the database's (Node takes `US/Pacific-New`, PostgreSQL
   * answered 22023): the `timezone` parameter is checked against this one.
   */
  timeZones(db: Knex): Promise<readonly string[] | null>;
  /**
   * The first instant of the bucket holding `column`, in local time of `zone` (a `date` column is a
   * calendar day already: the zone does not apply). Weeks are ISO weeks, starting on Monday. Only
   * `dateLabel` and `monthNumber` read the result, so its SQL type is the dialect's own choice.
   */
  dateBucketStart(column: string, source: 'date' | 'datetime', unit: Granularity, zone: BucketZone): SqlFragment;
  /** A bucket start (from `dateBucketStart`) as text in `format`; month names in English. */
  dateLabel(start: SqlFragment, format: BucketFormat): SqlFragment;
  /** The month (1–12) of a bucket start: orders month-name labels by the calendar. */
  monthNumber(start: SqlFragment): SqlFragment;
}

/**
 * knex's migrator hooks (its `beforeEach` / `afterEach` options): called with the migration's transaction
 * (or `knex` itself for a migration with `config.transaction = false`) and the migrations it runs.
 */
export interface MigrationHooks {
  readonly beforeEach?: (trx: Knex, migrations: readonly unknown[]) => Promise<void>;
  readonly afterEach?: (trx: Knex, migrations: readonly unknown[]) => Promise<void>;
}

/** What `Dialect.undoCommittedSteps` did, as `describeOp` lines (`+ column widget.note`). */
export interface UndoneSteps {
  readonly undone: readonly string[];
  /** Steps that may have run and were left as they are (a drop, a type change). */
  readonly left: readonly string[];
}

/** `migrationRun` of the databases that alter a table in place: the run as it is, no hooks. */
export const migrateInPlace: Dialect['migrationRun'] = (_db, run) => run({});

/** How long a MySQL/MariaDB `lockedTransaction` waits for its lock (seconds) before it fails. */
export const LOCKED_TRANSACTION_WAIT_S = 60;
/** How long a `lockedSession` waits for its lock (seconds) before it fails: a long migration elsewhere. */
export const SESSION_LOCK_WAIT_S = 600;

/**
 * Runs `fn` on one connection of a pool of its own, made from `db`'s configuration (`connection`: settings
 * replaced on it), and closes that pool after: a lock held there is not taken from `db`'s pool, which the
 * locked work uses, and ends with the connection if the process dies. Its warnings go where `db`'s go (`log`).
 */
export async function onOwnConnection<T>(db: Knex, connection: Record<string, unknown>, fn: (own: Knex, conn: unknown) => Promise<T>): Promise<T> {
  const config = db.client.config as Knex.Config;
  const own = knex({ client: config.client, connection: { ...(config.connection as object), ...connection }, searchPath: config.searchPath, useNullAsDefault: config.useNullAsDefault, log: config.log, pool: { min: 0, max: 1 } });
  try {
    const client = own.client as { acquireConnection(): Promise<unknown>; releaseConnection(c: unknown): Promise<unknown> };
    const conn = await client.acquireConnection();
    try {
      return await fn(own, conn);
    } finally {
      await client.releaseConnection(conn);
    }
  } finally {
    await own.destroy();
  }
}

/** `%`, `_` and `\` escaped for a LIKE pattern with `ESCAPE '\'`. */
export function escapeLike(value: string): string {
  return value.replace(/[\\%_]/g, (c) => `\\${c}`);
}

export function likePattern(value: string, mode: LikeOptions['mode']): string {
  const v = escapeLike(value);
  return mode === 'contains' ? `%${v}%` : mode === 'startsWith' ? `${v}%` : `%${v}`;
}

type Row = Record<string, unknown>;

/** `insertReturning` / `updateReturning` of the databases that have RETURNING (SQLite 3.35+, PostgreSQL). */
export const withReturning: Pick<Dialect, 'insertReturning' | 'updateReturning'> = {
  async insertReturning(db, table, row, columns) {
    const [inserted] = (await db(table).insert(row).returning([...columns])) as Row[];
    return inserted;
  },
  async updateReturning(db, table, where, row, columns) {
    const [updated] = (await db(table).where(where).update(row).returning([...columns])) as Row[];
    return updated;
  },
};

/** `insertWithExpressions` as one `INSERT … RETURNING id, <expr> AS extra_<i>` (SQLite 3.35+, PostgreSQL). */
export function insertWithReturning(rawRows: Dialect['rawRows']): Dialect['insertWithExpressions'] {
  return async (db, table, row, expressions) => {
    const insert = db(table).insert(row).toSQL();
    const returning = expressions.map((x, i) => `, ${x.sql} AS extra_${i}`).join('');
    const [r] = rawRows(await db.raw(`${insert.sql} RETURNING id${returning}`, [...(insert.bindings as Knex.RawBinding[]), ...expressions.flatMap((x) => x.bindings as Knex.RawBinding[])]));
    return { id: Number(r.id), values: expressions.map((_, i) => r[`extra_${i}`]) };
  };
}

/** `claimRows` as one `UPDATE … WHERE id IN (… [FOR UPDATE SKIP LOCKED]) RETURNING …` (SQLite 3.35+ without the lock, PostgreSQL with it). */
export function claimWithReturning(rowLocks: boolean, rawRows: Dialect['rawRows']): Dialect['claimRows'] {
  return async (db, { table, set, candidates, columns }) => {
    const lock = rowLocks ? ' FOR UPDATE SKIP LOCKED' : '';
    const sql = `UPDATE ?? SET ${set.sql} WHERE id IN (${candidates.sql}${lock}) RETURNING id${columns.map(() => ', ??').join('')}`;
    const result = await db.raw(sql, [table, ...set.bindings, ...candidates.bindings, ...columns] as Knex.RawBinding[]);
    return rawRows(result);
  };
}

/** `sortDirection` of the databases that take `NULLS FIRST|LAST` (SQLite 3.30+, PostgreSQL). */
export const nullsSpelledOut = (direction: 'asc' | 'desc'): string => (direction === 'asc' ? 'ASC NULLS FIRST' : 'DESC NULLS LAST');

/**
 * `lockRows` as one `SELECT id … ORDER BY id <clause>` (PostgreSQL, MySQL); `clause` is the database's
 * row-lock clause. The rows come locked in id order, so concurrent lockers queue instead of deadlocking.
 */
export function lockRowsWith(clause: string): Dialect['lockRows'] {
  return async (db, table, ids) => {
    if (ids.length === 0) return;
    const sorted = [...new Set(ids)].sort((a, b) => a - b);
    await db.raw(`SELECT id FROM ?? WHERE id IN (${sorted.map(() => '?').join(', ')}) ORDER BY id ${clause}`, [table, ...sorted]);
  };
}
