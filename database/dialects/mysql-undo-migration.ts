/**
 * MariaDB/MySQL commit each CREATE, ALTER and DROP as it runs (an implicit commit), so a failed migration's
 * transaction does not take back the steps before the failing one. After a generated migration failed at
 * the start, this undoes what the database shows done among the steps that add (a table, a column, an
 * index) or rename, newest first; the migration's snapshot said none of them was there before. A drop or a
 * type change that ran is left: undoing it would not bring the values back.
 */
import type { Knex } from 'knex';
import { describeOp } from '../schema/to-migration';
import type { MigrationOp } from '../schema/types';
import type { Dialect } from './dialect';

async function hasIndex(db: Knex, table: string, index: string): Promise<boolean> {
  const [rows] = (await db.raw('SELECT 1 FROM information_schema.statistics WHERE table_schema = DATABASE() AND table_name = ? AND index_name = ? LIMIT 1', [table, index])) as [unknown[]];
  return rows.length > 0;
}

/** Undoes `op` when the database shows it done: true when it did, false when there was nothing to undo, null when it cannot. */
async function undoStep(db: Knex, op: MigrationOp): Promise<boolean | null> {
  switch (op.op) {
    case 'createTable':
      if (!(await db.schema.hasTable(op.table.name))) return false;
      await db.schema.dropTable(op.table.name);
      return true;
    case 'addColumn': {
      if (!(await db.schema.hasColumn(op.table, op.column.name))) return false;
      // MariaDB refuses to drop a column its own foreign key names.
      if (op.column.references) await db.schema.alterTable(op.table, (t) => t.dropForeign([op.column.name])).catch(() => undefined);
      await db.schema.alterTable(op.table, (t) => t.dropColumn(op.column.name));
      return true;
    }
    case 'addIndex':
      if (!(await hasIndex(db, op.table, op.index.name))) return false;
      await db.raw('ALTER TABLE ?? DROP INDEX ??', [op.table, op.index.name]);
      return true;
    case 'renameColumn':
      if (!(await db.schema.hasColumn(op.table, op.to)) || (await db.schema.hasColumn(op.table, op.from))) return false;
      await db.schema.alterTable(op.table, (t) => t.renameColumn(op.to, op.from));
      return true;
    case 'dropTable':
    case 'dropColumn':
    case 'alterColumn':
    case 'dropIndex':
      return null;
  }
}

export const mysqlUndoCommittedSteps: NonNullable<Dialect['undoCommittedSteps']> = async (db, ops) => {
  const undone: string[] = [];
  const left: string[] = [];
  for (const op of [...ops].reverse()) {
    const done = await undoStep(db, op).catch(() => null);
    if (done === true) undone.push(describeOp(op));
    else if (done === null) left.push(describeOp(op));
  }
  return { undone, left };
};
