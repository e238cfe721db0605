#!/usr/bin/env node
/**
 * admin-cli: commander program; core commands plus each plugin's `cli` hook.
 * Exit codes: 0 done; 2 the input was refused, nothing written (a usage error commander finds, an option value
 * breaking its rule, a name that names nothing: UsageError, user:import's failed rows); 1 anything else (the
 * database not migrated or not reachable, a failed migration, a setting, a file, a name already taken). Either
 * way one `error:` line on stderr, no stack (admin-cli/failure.ts), and the process exits: pools closed.
 */
import { Command, CommanderError } from 'commander';
import { USAGE_EXIT_CODE } from '../core/errors/usage-error';
import { cliDeps, cliDialect, cliPlugins, closeCliDeps } from './boot';
import { registerContentTypes } from './commands/content-types';
import { registerMedia } from './commands/media';
import { registerMigrate } from './commands/migrate';
import { registerOpenApi } from './commands/openapi';
import { cliFailure, wantsStack } from './failure';

/** Past this, a process that has finished its command but is held open (a socket not closed) is ended. */
const EXIT_GRACE_MS = 5_000;

const program = new Command();
// exitOverride: commander's usage errors (missing or unknown option, unknown command) reach the catch below
// instead of exiting 1 themselves; the commands made after this line inherit it.
program.name('admin-cli').description('Record and Identity Service administration').showHelpAfterError().exitOverride();
registerMigrate(program);
registerContentTypes(program);
registerMedia(program);
registerOpenApi(program);
for (const p of cliPlugins()) p.cli?.(program, async () => cliDeps());

program
  .parseAsync(process.argv)
  .then(closeCliDeps)
  .catch(async (e: unknown) => {
    if (e instanceof CommanderError) {
      await closeCliDeps().catch(() => undefined);
      process.exitCode = e.exitCode === 0 ? 0 : USAGE_EXIT_CODE; // commander has printed its message (and the help)
      return;
    }
    const failure = cliFailure(e, cliDialect()); // before closing: the dialect names the database's errors
    await closeCliDeps().catch(() => undefined);
    console.error(`error: ${failure.line.replace(/\s*\n\s*/g, ' ')}`);
    if (wantsStack() && e instanceof Error && e.stack) console.error(e.stack);
    process.exitCode = failure.exitCode;
  })
  .finally(() => {
    // Every pool is closed by now; should a stray socket hold the process, it still ends (the unref'd timer
    // keeps nothing alive itself).
    setTimeout(() => process.exit(), EXIT_GRACE_MS).unref();
  });
