/** Composition root: loadConfig → boot (registry, database) → migrate → plugins → createApp → listen. */
// First: sizes libuv's threadpool before anything starts it.
import { warnSqliteShares } from './threadpool';
import { setFlagsFromString } from 'node:v8';
import { ConfigError, loadConfig } from '../config';
import { enabledPlugins } from '../config/plugins';
import { MigrationFailedError } from '../database/failed-migration';
import { DestructiveChangeError, prepareSchema } from '../database/migrate';
import { boot, createLogger } from './boot';
import { createApp } from './http/app';
import { ListenError, httpTimeouts, listen, onShutdownSignal } from './http/server';
import { RegistryError } from './registry';

async function main(): Promise<void> {
  const config = loadConfig();
  // V8 reads it at every full collection: set before the heap has grown (BENCHMARKS.md, "Heap growth").
  if (config.heapGrowthPercent > 0) setFlagsFromString(`--heap-growing-percent=${config.heapGrowthPercent}`);
  // Buffered: the access log is written in the background (boot.ts createLogger).
  const deps = boot(config, enabledPlugins(), createLogger(config, true));
  const { log } = deps;
  warnSqliteShares(deps.dialect.name, config.sqliteReaders, config.callerGate.running, log);
  try {
    const { made, applied } = await prepareSchema(deps.db, deps.registry, { dir: config.migrationsDir, autoMigrate: config.autoMigrate, allowDestructive: config.allowDestructive, defaultLocale: config.locales.defaultLocale, dialect: deps.dialect, log });
    if (made) log.info({ file: made.file, changes: made.changes }, 'wrote a migration for the registry change');
    if (applied.length) log.info({ applied }, 'migrations applied');
    for (const p of deps.plugins) await p.bootstrap?.(deps);
  } catch (e) {
    await deps.close();
    throw e;
  }
  const server = await listen(createApp(deps), config.port, config.host, httpTimeouts(config.http)).catch(async (e: unknown) => {
    await deps.close();
    throw e;
  });
  log.info({ port: config.port, host: config.host, database: deps.dialect.name, models: deps.registry.contentTypes.map((c) => c.name) }, `listening on http://localhost:${config.port}`);
  onShutdownSignal(server, () => deps.close(), log);
}

main().catch((e: unknown) => {
  // A bad model, setting, pending destructive change, failed migration or a port in use: one clear line, no stack trace.
  if (e instanceof RegistryError || e instanceof ConfigError || e instanceof DestructiveChangeError || e instanceof MigrationFailedError || e instanceof ListenError) {
    console.error(`error: ${e.message}`);
  } else {
    console.error(e);
  }
  process.exit(1);
});
