#!/usr/bin/env node
/** admin-cli: commander program; core commands plus each plugin's `cli` hook. */
import { Command } from 'commander';
import { ConfigError } from '../config';
import { DestructiveChangeError } from '../database/migrate';
import { RegistryError } from '../core/registry';
import { cliDeps, cliPlugins, closeCliDeps } from './boot';
import { registerContentTypes } from './commands/content-types';
import { registerMedia } from './commands/media';
import { registerMigrate } from './commands/migrate';
import { registerOpenApi } from './commands/openapi';

const program = new Command();
program.name('admin-cli').description('Record and Identity Service administration').showHelpAfterError();
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
    const known = e instanceof RegistryError || e instanceof ConfigError || e instanceof DestructiveChangeError;
    console.error(`error: ${known ? (e as Error).message : e instanceof Error ? e.message : String(e)}`);
    process.exitCode = 1;
  });
