/**
 * Migrations on SQLite keep the rows that reference a table they rebuild. knex alters most columns (a
 * type, a drop, a NOT NULL) by rebuilding the table: create a new one, copy the rows, drop the old one,
 * rename. It turns foreign keys off for that, but `PRAGMA foreign_keys` does nothing inside a transaction,
 * and every migration runs in one: the drop then deleted the rows of every table that references the
 * rebuilt one with ON DELETE CASCADE (the link tables of many-to-many relations), cleared the SET NULL
 * references, and failed on a RESTRICT one. SQLite's own way (https://www.sqlite.org/lang_altertable.html,
 * "other kinds of table schema changes") is what a migration run here does:
 * 1. foreign keys off on the connection, outside any transaction, before the first migration begins (the
 *    writer is the pool's one connection: every migration's transaction runs on it);
 * 2. before each migration, inside its transaction: foreign keys must be off (a connection made since, or
 *    a caller already in a transaction, would have them on: refused before anything is done);
 * 3. after each migration, before its commit: `PRAGMA foreign_key_check`; a row that names a missing row
 *    fails the migration with one error naming the tables and columns, and its transaction rolls back;
 * 4. foreign keys on again, whatever happened.
 * Inside a migration ON DELETE actions do not fire: one that deletes rows deletes what references them.
 */
import type { Knex } from 'knex';
import type { Dialect, MigrationHooks } from './dialect';

interface Violation {
  readonly table: string;
  readonly parent: string;
  readonly fkid: number;
}

/** A migration left rows whose foreign key names no row (SQLite's `PRAGMA foreign_key_check`). */
export class DanglingReferenceError extends Error {
  constructor(
    readonly migration: string,
    /** `<n> rows of <table>.<column> name no row of <parent>`, one per foreign key. */
    readonly references: readonly string[],
    rolledBack: boolean,
  ) {
    const outcome = rolledBack ? 'it was rolled back' : 'it ran outside a transaction (config.transaction = false) and its changes stay: repair them';
    super(`migration ${migration} would leave rows that name a missing row: ${references.join('; ')}; ${outcome}`);
    this.name = 'DanglingReferenceError';
  }
}

function migrationName(migrations: readonly unknown[]): string {
  const names = migrations.map((m) => (typeof m === 'object' && m !== null && 'file' in m ? String((m as { file: unknown }).file) : String(m)));
  return names.join(', ') || 'the migration';
}

const requireForeignKeysOff: MigrationHooks['beforeEach'] = async (trx, migrations) => {
  const [row] = (await trx.raw('PRAGMA foreign_keys')) as { foreign_keys: number }[];
  if (row?.foreign_keys === 0) return;
  throw new Error(
    `migration ${migrationName(migrations)} was not run: foreign keys are on for its connection, and rebuilding a table would delete or clear the rows that reference it (run migrations through database/migrate.ts, outside any transaction, on a pool of one connection)`,
  );
};

/** `3 rows of item.widget_id name no row of widget`, one per foreign key that rows violate. */
async function describeViolations(trx: Knex, violations: readonly Violation[]): Promise<string[]> {
  const counts = new Map<string, { v: Violation; rows: number }>();
  for (const v of violations) {
    const key = `${v.table}\u0000${v.fkid}`;
    counts.set(key, { v, rows: (counts.get(key)?.rows ?? 0) + 1 });
  }
  const columns = new Map<string, Map<number, string>>();
  for (const table of new Set(violations.map((v) => v.table))) {
    const keys = (await trx.raw('PRAGMA foreign_key_list(??)', [table])) as { id: number; from: string }[];
    columns.set(table, new Map(keys.map((k) => [k.id, k.from])));
  }
  return [...counts.values()].map(({ v, rows }) => `${rows === 1 ? '1 row' : `${rows} rows`} of ${v.table}.${columns.get(v.table)?.get(v.fkid) ?? `foreign key ${v.fkid}`} name${rows === 1 ? 's' : ''} no row of ${v.parent}`);
}

const refuseDanglingReferences: MigrationHooks['afterEach'] = async (trx, migrations) => {
  const violations = (await trx.raw('PRAGMA foreign_key_check')) as Violation[];
  if (violations.length === 0) return;
  const rolledBack = (trx as { isTransaction?: boolean }).isTransaction === true;
  throw new DanglingReferenceError(migrationName(migrations), await describeViolations(trx, violations), rolledBack);
};

export const sqliteMigrationRun: Dialect['migrationRun'] = async (db, run) => {
  await db.raw('PRAGMA foreign_keys = OFF');
  try {
    return await run({ beforeEach: requireForeignKeysOff, afterEach: refuseDanglingReferences });
  } finally {
    await db.raw('PRAGMA foreign_keys = ON');
  }
};
