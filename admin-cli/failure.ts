/**
 * What a failed command prints and exits with (README, Admin CLI): one `error:` line, never SQL, a driver's
 * text with its SQL, or a stack trace (LOG_LEVEL=debug or trace adds the stack after the line).
 * Exit 2: the operator's input was refused (UsageError), nothing written. Exit 1: anything else: the
 * database not migrated or not reachable, a migration that failed, a setting, a file, a name already taken.
 */
import { ConfigError } from '../config';
import { RegistryError } from '../core/registry';
import { UsageError } from '../core/errors/usage-error';
import { MigrationFailedError } from '../database/failed-migration';
import { DestructiveChangeError } from '../database/migrate';
import type { Dialect } from '../database/dialects/dialect';
import { isConnectFailure, missingTableOf } from '../database/dialects/setup-faults';
import { driverText } from '../database/schema/failure-reason';

export interface CliFailure {
  readonly line: string;
  readonly exitCode: 1 | 2;
}

/** The first words of an error without the SQL knex puts before them; a nested error's (AggregateError) or its code when it has none. */
function textOf(e: unknown, depth = 0): string {
  const text = driverText(e).trim();
  if (text || depth > 2 || typeof e !== 'object' || e === null) return text;
  const { errors, code } = e as { errors?: unknown; code?: unknown };
  if (Array.isArray(errors) && errors.length > 0) return textOf(errors[0], depth + 1);
  return typeof code === 'string' ? code : '';
}

/** `dialect`: the database the command connected to (null: none, so no database error). */
export function cliFailure(e: unknown, dialect: Dialect | null): CliFailure {
  if (e instanceof UsageError) return { line: e.message, exitCode: 2 };
  if (e instanceof RegistryError || e instanceof ConfigError || e instanceof DestructiveChangeError || e instanceof MigrationFailedError) return { line: e.message, exitCode: 1 };
  const table = missingTableOf(e);
  if (table !== null) return { line: `the database is not migrated (it has no table ${table}); run \`admin-cli migrate:latest\` first`, exitCode: 1 };
  if (isConnectFailure(e) || (dialect !== null && dialect.classifyError(e)?.kind === 'unavailable')) {
    return { line: `cannot connect to the database (${textOf(e) || 'no answer'})`, exitCode: 1 };
  }
  return { line: textOf(e) || String(e), exitCode: 1 };
}

/** LOG_LEVEL=debug or trace: the stack of the error after its line, for a bug report. */
export function wantsStack(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.LOG_LEVEL === 'debug' || env.LOG_LEVEL === 'trace';
}
