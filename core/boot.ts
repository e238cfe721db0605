/** The dependencies the server and the admin CLI share: config → registry → database → plugins. */
import { createHash } from 'node:crypto';
import pino, { type Logger } from 'pino';
import type { Config } from '../config/schema';
import { connect } from '../database/connect';
import { createEventPipeline, type EventPipeline } from './events/pipeline';
import { createResponseCache, type ResponseCache } from './cache/response-cache';
import type { Plugin, PluginDeps } from './plugin-api';
import { loadRegistry, type ModelSource } from './registry';

export interface Booted extends PluginDeps {
  readonly plugins: readonly Plugin[];
  readonly events: EventPipeline;
  /** CACHE=memory|redis: the response cache, tracking writes from boot on (seeding included); null: off. */
  readonly responseCache: ResponseCache | null;
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
  const events = createEventPipeline(config, db, dialect, log);
  // Processes sharing a database share cache keys in Redis; other deployments on the same Redis do not.
  const namespace = createHash('sha256').update(JSON.stringify(config.database)).digest('hex').slice(0, 12);
  const responseCache = createResponseCache(config, db, registry, log, namespace);
  return {
    events,
    config,
    db,
    dialect,
    registry,
    plugins,
    log,
    responseCache,
    async close() {
      for (const p of plugins) await p.close?.();
      await events.close();
      await responseCache?.close();
      await db.destroy();
    },
  };
}
