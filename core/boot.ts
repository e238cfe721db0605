/** The dependencies the server and the admin CLI share: config → registry → database → plugins. */
import pino, { type Logger } from 'pino';
import type { Config } from '../config/schema';
import { connect } from '../database/connect';
import type { Plugin, PluginDeps } from './plugin-api';
import { loadRegistry, type ModelSource } from './registry';

export interface Booted extends PluginDeps {
  readonly plugins: readonly Plugin[];
  close(): Promise<void>;
}

export function modelSources(config: Config, plugins: readonly Plugin[]): ModelSource[] {
  return [
    { dir: config.contentTypesDir, plugin: null },
    ...plugins.flatMap((p) => (p.contentTypesDir ? [{ dir: p.contentTypesDir, plugin: p.name }] : [])),
  ];
}

export function createLogger(config: Config): Logger {
  return pino({ level: config.logLevel, base: undefined, timestamp: pino.stdTimeFunctions.isoTime });
}

/** Loads the registry (RegistryError on a bad model) and connects; the schema is not touched here. */
export function boot(config: Config, plugins: readonly Plugin[], log: Logger = createLogger(config)): Booted {
  const registry = loadRegistry(modelSources(config, plugins), config.rootDir);
  const { db, dialect } = connect(config.database, { log, queryTimeoutMs: config.query.timeoutMs });
  return {
    config,
    db,
    dialect,
    registry,
    plugins,
    log,
    async close() {
      for (const p of plugins) await p.close?.();
      await db.destroy();
    },
  };
}
