#!/usr/bin/env node
/**
 * admin-cli: commander program; core commands plus each plugin's `cli` hook.
 * Exit codes: 0 done; 2 the input was refused, nothing written (a usage error commander finds, a field
 * breaking its rule: UsageError, user:import's failed rows); 1 anything else (one `error:` line, no stack).
 */
import { Command, CommanderError } from 'commander';
import { ConfigError } from '../config';
import { USAGE_EXIT_CODE, UsageError } from '../core/errors/usage-error';
import { DestructiveChangeError } from '../database/migrate';
import { RegistryError } from '../core/registry';
import { cliDeps, cliPlugins, closeCliDeps } from './boot';
import { registerContentTypes } from './commands/content-types';
import { registerMedia } from './commands/media';
import { registerMigrate } from './commands/migrate';
import { registerOpenApi } from './commands/openapi';

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
    await closeCliDeps().catch(() => undefined);
    if (e instanceof CommanderError) {
      process.exitCode = e.exitCode === 0 ? 0 : USAGE_EXIT_CODE; // commander has printed its message (and the help)
      return;
    }
    if (e instanceof UsageError) {
      console.error(`error: ${e.message}`);
      process.exitCode = e.exitCode;
      return;
    }
    const known = e instanceof RegistryError || e instanceof ConfigError || e instanceof DestructiveChangeError;
    console.error(`error: ${known ? (e as Error).message : e instanceof Error ? e.message : String(e)}`);
    process.exitCode = 1;
  });
