/**
 * A migration the start could not apply. One written in this start (autoMigrate) is rolled back as far as
 * the database allows and its file removed, so the next start diffs the registry against the last applied
 * migration again: undoing the YAML then writes nothing, fixing the data applies the change. Either way the
 * start stops with one line (MigrationFailedError): what failed, the database's reason in plain words, what
 * became of the migration, and what to do.
 */
import { existsSync, unlinkSync } from 'node:fs';
import { basename } from 'node:path';
import type { Knex } from 'knex';
import type { Registry } from '../core/registry/types';
import { dialectOf } from './dialects/of-knex';
import { failureReason, modelFilesOf, tablesOf } from './schema/failure-reason';
import type { MigrationOp } from './schema/types';
import { RowRulesError, brokenText } from './row-check-run';

/** A migration failed at the start: one line, no stack trace (core/main.ts). Stops the boot. */
export class MigrationFailedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MigrationFailedError';
  }
}

export interface FailedRun {
  readonly error: unknown;
  /** The migration this start wrote, or null. */
  readonly made: { readonly file: string; readonly ops: readonly MigrationOp[] } | null;
  /** The migration that was running when the run failed; null: none had begun (the lock, the connection). */
  readonly failed: string | null;
  /** The migrations still pending after the failure; null: not known. */
  readonly pending: readonly string[] | null;
  /** What to do once fixed (default: `start again`; the CLI's migrate:latest: run it again). */
  readonly retry?: string;
}

/**
 * Cleans up after a failed migration run and answers the error the start stops with: a MigrationFailedError,
 * or `run.error` itself when no migration failed (the database unreachable, the lock not had).
 */
export async function failedStart(db: Knex, registry: Registry, run: FailedRun): Promise<unknown> {
  const { made, error } = run;
  const madeName = made ? basename(made.file) : null;
  const { failed } = run;
  const retry = run.retry ?? 'start again';
  const madeApplied = madeName !== null && run.pending !== null && !run.pending.includes(madeName);
  // Never applied (it failed, or one before it did): without it the next start diffs against the last applied one.
  if (made && !madeApplied && existsSync(made.file)) unlinkSync(made.file);
  if (failed === null) return error;
  // Refused before it began (row-check-run.ts): nothing to roll back or undo, on any database.
  if (error instanceof RowRulesError) {
    const what = `${brokenText(error.broken)}; nothing was changed`;
    const todo = `fix those rows or relax the model, then ${retry}`;
    if (made && failed === madeName) {
      const files = modelFilesOf(registry, [...new Set(error.broken.map((b) => b.check.table))]);
      return new MigrationFailedError(`the change to ${files.join(', ')} was not applied: ${what} and the migration written for it (${madeName}) was removed; ${todo}`);
    }
    const dropped = made ? `; the migration written in this start (${madeName}) was removed` : '';
    return new MigrationFailedError(`migration ${failed} was not applied: ${what} and it is still pending${dropped}; ${todo}`);
  }
  const dialect = dialectOf(db);
  if (made && failed === madeName) {
    const why = failureReason(error, dialect, registry, made.ops);
    const files = modelFilesOf(registry, why.tables.length > 0 ? why.tables : tablesOf(made.ops));
    let outcome = `it was rolled back and the migration written for it (${madeName}) removed`;
    if (dialect.undoCommittedSteps) {
      const { undone, left } = await dialect.undoCommittedSteps(db, made.ops);
      outcome =
        `MariaDB/MySQL commits schema changes as it runs: ${undone.length > 0 ? `the steps it had made were undone (${undone.join(', ')})` : 'it had made no step that needed undoing'}` +
        `${left.length > 0 ? `, these may stay and need a look (${left.join(', ')})` : ''}; the migration written for it (${madeName}) was removed`;
    }
    return new MigrationFailedError(`the change to ${files.join(', ')} could not be applied: ${why.reason}; ${outcome}; fix the data or the YAML, then ${retry}`);
  }
  const why = failureReason(error, dialect, registry, []);
  const outcome = dialect.undoCommittedSteps
    ? 'MariaDB/MySQL commits schema changes as it runs: its steps before the failing one stay; it is still pending'
    : 'it was rolled back and is still pending';
  const dropped = made && failed !== madeName ? `; the migration written in this start (${madeName}) was removed` : '';
  return new MigrationFailedError(`migration ${failed} could not be applied: ${why.reason}; ${outcome}${dropped}; fix the data or the migration, then ${retry}`);
}

/**
 * A rollback that failed (migrate:rollback): one line naming the migration whose `down` failed and the database's
 * reason in plain words; `error` itself when none had begun (the database unreachable).
 */
export function failedRollback(db: Knex, registry: Registry, error: unknown, failed: string | null): unknown {
  if (failed === null) return error;
  const dialect = dialectOf(db);
  const why = failureReason(error, dialect, registry, []);
  const outcome = dialect.undoCommittedSteps
    ? 'MariaDB/MySQL commits schema changes as it runs: the steps its rollback made before the failing one stay; it is still applied'
    : 'its rollback was undone and it is still applied';
  return new MigrationFailedError(`migration ${failed} could not be rolled back: ${why.reason}; ${outcome}; fix the data or the migration, then run \`admin-cli migrate:rollback\` again`);
}
