/**
 * knex's sqlite3 client whose transactions begin with `BEGIN IMMEDIATE`: the write lock is taken when
 * the transaction starts, waiting up to `busy_timeout` for it. knex's plain `BEGIN` is deferred: a
 * transaction that reads first takes the write lock only at its first write, and when another process
 * (a second node on the same file) has written since its read began, SQLite cannot wait and answers
 * SQLITE_BUSY at once ("database is locked"), a 503 for a write that only had to wait its turn. The
 * service's transactions all write (reads outside them run on their own), so nothing is locked longer.
 */
import type { Knex } from 'knex';

/* eslint-disable @typescript-eslint/no-require-imports */
type Ctor = new (...args: unknown[]) => Record<string, unknown>;
type Query = (conn: unknown, sql: string) => Promise<unknown>;
const ClientSQLite3 = require('knex/lib/dialects/sqlite3') as Ctor;
const TransactionSQLite = require('knex/lib/dialects/sqlite3/execution/sqlite-transaction') as Ctor;

class ImmediateTransaction extends TransactionSQLite {
  begin(conn: unknown): Promise<unknown> {
    return (this.query as Query)(conn, 'BEGIN IMMEDIATE;');
  }
}

class ClientSQLite3Immediate extends ClientSQLite3 {
  transaction(...args: unknown[]): unknown {
    return new ImmediateTransaction(this, ...args);
  }
}

/** The `client` of a knex config for SQLite's writing connection. */
export const sqliteImmediateClient = ClientSQLite3Immediate as unknown as typeof Knex.Client;
