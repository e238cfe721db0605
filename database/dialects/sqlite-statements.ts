/**
 * Prepared statements kept per SQLite connection. knex's sqlite3 client runs every statement through
 * `Database#all` / `Database#run`, which prepare the SQL (`sqlite3_prepare_v2`), run it once and
 * finalize it. Preparing is most of a short statement's cost: a create's transaction (`BEGIN`, the
 * relation check, the `INSERT … RETURNING`, the outbox `INSERT`, `COMMIT`) took 0.46 ms on one connection
 * with a prepare per statement and 0.25 ms with the statements kept (BENCHMARKS.md, "SQLite: each SQL
 * text prepared once per connection").
 * On SQLite's one writing connection that time is what every other write waits for.
 *
 * `keepStatements` replaces the connection's `all` and `run` with versions that run a kept `Statement`
 * for a SQL text seen before: the last `max` texts, least recently used dropped (and finalized) first.
 * The answers are the same: node-sqlite3 binds a statement's parameters anew at every run and resets
 * it before, and a run's `lastID` / `changes` are handed to the callback as they were at that run. A
 * statement whose run fails is finalized and dropped (its next run prepares anew); its error is the
 * error `Database#all` would give. Closing the connection finalizes the kept statements first (SQLite
 * refuses to close a connection with statements left).
 */

type Callback = (this: unknown, err: Error | null, ...results: unknown[]) => void;

/** The node-sqlite3 Statement, as far as kept statements use it. */
interface Statement {
  all(params: readonly unknown[], cb: Callback): unknown;
  run(params: readonly unknown[], cb: Callback): unknown;
  finalize(cb?: () => void): unknown;
}

/** The node-sqlite3 Database, as far as kept statements use it. */
export interface StatementConnection {
  prepare(sql: string, cb: (err: Error | null) => void): Statement;
  close(cb?: (err: Error | null) => void): unknown;
}

/** SQL texts kept per connection, by default (the service sends a few dozen distinct ones per model). */
export const KEPT_STATEMENTS = 200;

/**
 * Longer SQL texts are run the plain way: a long text is a many-row INSERT or a long `IN` list, which
 * rarely comes twice, and would push the short ones out.
 */
export const KEPT_SQL_MAX_CHARS = 4000;

type Method = 'all' | 'run';

export function keepStatements(conn: StatementConnection, max = KEPT_STATEMENTS): void {
  const methods = conn as unknown as Record<string, (...args: unknown[]) => unknown>;
  const plain = { all: methods.all.bind(conn), run: methods.run.bind(conn) };
  // most recently used last (a Map keeps insertion order)
  const kept = new Map<string, Statement>();
  const preparing = new Set<string>();
  let closed = false;

  const drop = (sql: string, stmt: Statement): void => {
    if (kept.get(sql) === stmt) kept.delete(sql);
    stmt.finalize();
  };
  const keep = (sql: string, stmt: Statement): void => {
    kept.set(sql, stmt);
    if (kept.size <= max) return;
    const [oldest, old] = kept.entries().next().value as [string, Statement];
    drop(oldest, old);
  };
  const runKept = (method: Method, sql: string, stmt: Statement, params: readonly unknown[], done: Callback): void => {
    stmt[method](params, function finished(this: unknown, err, ...results) {
      if (err) drop(sql, stmt);
      // the Statement object carries lastID / changes of its latest run: hand over this run's
      const ran = this as { lastID?: unknown; changes?: unknown };
      const context = method === 'run' ? { lastID: ran.lastID, changes: ran.changes } : this;
      done.call(context, err, ...results);
    });
  };

  for (const method of ['all', 'run'] as const) {
    methods[method] = function kept_(sql: unknown, params: unknown, done: unknown): unknown {
      if (closed || typeof sql !== 'string' || sql.length > KEPT_SQL_MAX_CHARS || typeof done !== 'function' || (params !== undefined && !Array.isArray(params))) {
        return (plain[method] as (...a: unknown[]) => unknown)(...arguments);
      }
      const bindings = (params as unknown[] | undefined) ?? [];
      const found = kept.get(sql);
      if (found) {
        kept.delete(sql);
        kept.set(sql, found);
        runKept(method, sql, found, bindings, done as Callback);
        return conn;
      }
      // the same text again while it is being prepared: the plain way, this once
      if (preparing.has(sql)) return plain[method](sql, bindings, done);
      preparing.add(sql);
      const stmt = conn.prepare(sql, (err) => {
        preparing.delete(sql);
        // the error Database#all would give: the prepare's own (the statement is finalized already)
        if (err) return (done as Callback).call(stmt, err);
        if (closed) {
          stmt.finalize();
          return plain[method](sql, bindings, done);
        }
        keep(sql, stmt);
        runKept(method, sql, stmt, bindings, done as Callback);
      });
      return conn;
    };
  }

  const close = methods.close.bind(conn);
  methods.close = function closeKept(...args: unknown[]): unknown {
    closed = true;
    for (const [sql, stmt] of [...kept]) drop(sql, stmt);
    return close(...args);
  };
}
