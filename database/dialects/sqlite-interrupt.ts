/**
 * The per-statement time limit on SQLite (QUERY_TIMEOUT). SQLite has no statement_timeout; a
 * statement runs until it is done, and the service has one connection, so one slow statement made
 * every other request wait (issue 13 item 1). Each statement knex sends through the raw
 * node-sqlite3 connection gets a timer; when it fires while the statement still runs,
 * `Database#interrupt()` (sqlite3_interrupt) stops it at SQLite's next step: the statement fails
 * with SQLITE_INTERRUPT (classified as a timeout by sqlite.ts → 504) and the connection is free at
 * once. An interrupt when nothing runs is a no-op (SQLite's documented behaviour), so a timer that
 * fires just as a statement finishes harms nothing.
 *
 * An interrupted INSERT/UPDATE/DELETE inside a transaction makes SQLite roll the whole transaction back
 * itself; knex's ROLLBACK that follows then fails ("no transaction is active") and would replace the
 * timeout with that error (a 500). After an interrupt, such a ROLLBACK has done what it asked for: it
 * is reported as a success, and the transaction rejects with the timeout.
 */

type Callback = (this: unknown, ...results: unknown[]) => unknown;
type Method = (this: unknown, ...args: unknown[]) => unknown;

/** The raw node-sqlite3 Database, as far as the time limit needs it. */
export interface InterruptibleConnection {
  interrupt(): void;
}

/** The methods knex's sqlite3 client runs statements with (`all` and `run`), and their kin. */
const STATEMENT_METHODS = ['all', 'run', 'get', 'exec', 'each'] as const;

const ROLLBACK = /^\s*ROLLBACK\s*;?\s*$/i;
const NO_TRANSACTION = /no transaction is active/;

/** Makes every statement on `conn` stop after `ms` milliseconds of running. */
export function stopStatementsAfter(conn: InterruptibleConnection, ms: number): void {
  const methods = conn as unknown as Record<string, unknown>;
  // Set when a statement was interrupted, until the next statement starts.
  let interrupted = false;
  for (const name of STATEMENT_METHODS) {
    const original = methods[name];
    if (typeof original !== 'function') continue;
    const run = original as Method;
    methods[name] = function timed(this: unknown, ...args: unknown[]): unknown {
      const last = args.length - 1;
      const done = args[last];
      // Without a completion callback there is no end to wait for (knex always passes one).
      if (typeof done !== 'function') return run.apply(this, args);
      const rollbackAfterInterrupt = interrupted && typeof args[0] === 'string' && ROLLBACK.test(args[0]);
      interrupted = false;
      let running = true;
      const timer = setTimeout(() => {
        if (!running) return;
        interrupted = true;
        conn.interrupt();
      }, ms);
      timer.unref();
      // `this` of the callback carries lastID / changes for `run`: pass it through untouched.
      args[last] = function finished(this: unknown, ...results: unknown[]): unknown {
        running = false;
        clearTimeout(timer);
        const [err] = results;
        if (rollbackAfterInterrupt && err instanceof Error && NO_TRANSACTION.test(err.message)) return (done as Callback).call(this, null);
        return (done as Callback).apply(this, results);
      };
      return run.apply(this, args);
    };
  }
}
