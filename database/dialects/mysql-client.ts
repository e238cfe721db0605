/**
 * knex's mysql2 client with the column types and table defaults that make MariaDB/MySQL store what
 * SQLite and PostgreSQL store (part of the MySQL dialect). The registry's generated migrations call the
 * ordinary schema builder (`t.timestamp`, `t.text`, `t.increments` …); only their MySQL spelling changes:
 *
 * - `increments` → signed `int auto_increment`: knex's default is `int unsigned`, and the foreign keys
 *   of the registry are plain `integer` columns, which MySQL refuses to reference an unsigned key.
 * - `timestamp` (datetime attributes, created_at …) → `varchar(24)` holding the canonical ISO-8601 UTC
 *   text the service binds on every database (`2026-03-31T09:30:00.000Z`, always 24 characters for
 *   years 0001–9999, ordered by bytes as instants are). MySQL's DATETIME refuses the `Z` in strict
 *   mode, and rewriting every bound string that looks like an instant would also rewrite text values;
 *   so MariaDB keeps the same text SQLite keeps, and the date buckets read it (mysql-dates.ts).
 * - `text` → `longtext` (TEXT holds 64 KiB only; PostgreSQL's text has no such bound), with its
 *   default kept (knex drops defaults of text columns; MariaDB 10.2+ takes them).
 * - `varchar(n)` longer than MYSQL_VARCHAR_MAX characters (`string` with `maxLength: 100000`) → `longtext`:
 *   MariaDB's varchar holds 16383 utf8mb4 characters at most and a row's varchars 65535 bytes together.
 * - `time` → `time(6)`: microseconds as PostgreSQL keeps them (mysql-connect.ts reads them back as
 *   PostgreSQL prints them).
 * - every table: `utf8mb4` with a binary, NO PAD collation (see MYSQL_COLLATION).
 * - a bound JS Date becomes that same ISO text;
 * - `.returning()` is ignored without knex's warning: the dialect reads rows back itself.
 * - a duplicate-key error is given the table and columns of its index (the server names only the
 *   index) before knex rethrows it, so a 409 names the field as on the other databases.
 */
import type { Knex } from 'knex';
import { type MysqlError, duplicateKeyName } from './mysql';

/* eslint-disable @typescript-eslint/no-require-imports */
type Ctor = new (...args: unknown[]) => Record<string, unknown>;
const ClientMySQL2 = require('knex/lib/dialects/mysql2') as Ctor;
const ColumnCompilerMySQL = require('knex/lib/dialects/mysql/schema/mysql-columncompiler') as Ctor;
const TableCompilerMySQL = require('knex/lib/dialects/mysql/schema/mysql-tablecompiler') as Ctor;
const QueryCompilerMySQL = require('knex/lib/dialects/mysql/query/mysql-querycompiler') as Ctor;
const BaseColumnCompiler = require('knex/lib/schema/columncompiler') as { prototype: { defaultTo(this: unknown, v: unknown): string } };

/**
 * Binary (code-point) order and equality, like SQLite's BINARY and PostgreSQL's "C": `$eq` and unique
 * indexes are case-sensitive, `a` ≠ `A`. NO PAD: `'a'` ≠ `'a '` (utf8mb4_bin is PAD SPACE on MariaDB,
 * where a unique index would take `a` and `a ` for the same value). MySQL 8 spells it utf8mb4_0900_bin.
 */
export const MYSQL_CHARSET = 'utf8mb4';
export const MARIADB_COLLATION = 'utf8mb4_nopad_bin';
export const MYSQL8_COLLATION = 'utf8mb4_0900_bin';

/** Length of the canonical ISO-8601 UTC text of an instant (`YYYY-MM-DDTHH:MM:SS.mmmZ`). */
export const INSTANT_TEXT_LENGTH = 24;

/**
 * The longest varchar MariaDB is given, in characters: 768 × 4 bytes (utf8mb4) is InnoDB's longest index
 * key, so such a column is still indexed whole. A longer string is `longtext`; its length is checked by the
 * validation on every database (core/validation), not by the column.
 */
export const MYSQL_VARCHAR_MAX = 768;

class ColumnCompiler extends ColumnCompilerMySQL {
  varchar(length: unknown): string {
    const n = typeof length === 'number' ? length : 255;
    return n > MYSQL_VARCHAR_MAX ? 'longtext' : `varchar(${n})`;
  }

  increments(this: { tableCompiler: { _canBeAddPrimaryKey(o: unknown): boolean } }, options: unknown = { primaryKey: true }): string {
    return `int not null${this.tableCompiler._canBeAddPrimaryKey(options) ? ' auto_increment primary key' : ''}`;
  }

  timestamp(): string {
    return `varchar(${INSTANT_TEXT_LENGTH})`;
  }

  text(): string {
    return 'longtext';
  }

  time(): string {
    return 'time(6)';
  }

  defaultTo(this: { type: string }, value: unknown): string | undefined {
    if (value === null || value === undefined) return undefined;
    if (this.type === 'text' || this.type === 'longtext') return BaseColumnCompiler.prototype.defaultTo.call(this, value);
    return (ColumnCompilerMySQL.prototype as unknown as { defaultTo(this: unknown, v: unknown): string }).defaultTo.call(this, value);
  }
}

/** The collation every table is created with; set by mysql-connect.ts from the server's kind. */
let tableCollation = MARIADB_COLLATION;

class TableCompiler extends TableCompilerMySQL {
  createQuery(this: { single: { charset?: string; collate?: string } }, ...args: unknown[]): unknown {
    this.single.charset ??= MYSQL_CHARSET;
    this.single.collate ??= tableCollation;
    return (TableCompilerMySQL.prototype as unknown as { createQuery(...a: unknown[]): unknown }).createQuery.apply(this, args);
  }
}

class QueryCompiler extends QueryCompilerMySQL {
  _returningCheck(): void {
    // The dialect reads rows back by id instead (mysql.ts insertReturning / updateReturning).
  }
}

interface RawConnection {
  query(sql: string, bindings: unknown[], cb: (err: Error | null, rows: unknown) => void): void;
}

/** Adds the table and columns of the index a duplicate-key error names (one lookup on the same connection). */
async function describeDuplicateKey(conn: RawConnection, err: MysqlError): Promise<void> {
  const key = duplicateKeyName(err.sqlMessage ?? '');
  if (key === null) return;
  const sql = 'SELECT TABLE_NAME AS t, COLUMN_NAME AS c FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE() AND INDEX_NAME = ? ORDER BY TABLE_NAME, SEQ_IN_INDEX';
  try {
    const rows = await new Promise<{ t: string; c: string }[]>((resolve, reject) => conn.query(sql, [key], (e, r) => (e ? reject(e) : resolve(r as { t: string; c: string }[]))));
    if (rows.length === 0) return;
    const table = String(rows[0].t);
    err.keyTable = table;
    err.keyColumns = rows.filter((r) => r.t === table).map((r) => String(r.c));
  } catch {
    // The error stays as it was: a conflict without field names.
  }
}

const baseQuery = (ClientMySQL2.prototype as unknown as { _query(conn: unknown, obj: unknown): Promise<unknown> })._query;

class Client extends ClientMySQL2 {
  /**
   * A JS Date is bound as the canonical ISO text datetimes are stored as (mysql2 would format it
   * `YYYY-MM-DD HH:MM:SS.mmm`, which neither equals nor orders with the stored text).
   */
  prepBindings(bindings: unknown[]): unknown[] {
    return Array.isArray(bindings) ? bindings.map((b) => (b instanceof Date ? b.toISOString() : b)) : bindings;
  }

  async _query(conn: RawConnection, obj: unknown): Promise<unknown> {
    try {
      return await baseQuery.call(this, conn, obj);
    } catch (e) {
      if ((e as MysqlError | null)?.errno === 1062) await describeDuplicateKey(conn, e as MysqlError);
      throw e;
    }
  }

  columnCompiler(...args: unknown[]): unknown {
    return new ColumnCompiler(this, ...args);
  }

  tableCompiler(...args: unknown[]): unknown {
    return new TableCompiler(this, ...args);
  }

  queryCompiler(builder: unknown, formatter: unknown): unknown {
    return new QueryCompiler(this, builder, formatter);
  }
}

/** The knex client class for `knex({ client: … })`. */
export const MysqlClient = Client as unknown as typeof Knex.Client;

export function setTableCollation(collation: string): void {
  tableCollation = collation;
}
