/**
 * The dependencies the server and the admin CLI share: config → registry → database → event pipeline
 * (its record reader and the plugins' consumers, wired here once for every process) → plugins.
 */
import pino, { type Logger } from 'pino';
import type { Knex } from 'knex';
import type { Config } from '../config/schema';
import { connect, type DbLogger } from '../database/connect';
import { createEventPipeline, type EventPipeline } from './events/pipeline';
import { createResponseCache, type ResponseCache } from './cache/response-cache';
import { eventRecordReader } from './records/record-reader';
import type { Plugin, PluginDeps } from './plugin-api';
import { foreignKeyEventsOf } from './records/cascade-events';
import { loadRegistry, type ModelSource } from './registry';
import { reservedModelNames } from './api-segments';

export interface Booted extends PluginDeps {
  readonly plugins: readonly Plugin[];
  readonly events: EventPipeline;
  /** CACHE=memory|redis: the response cache, tracking writes from boot on (seeding included); null: off. */
  readonly responseCache: ResponseCache | null;
  /** SQLite on a file with SQLITE_READERS > 0: the read-only connections (database/connect.ts). */
  readonly readDb?: Knex;
  close(): Promise<void>;
}

export function modelSources(config: Config, plugins: readonly Plugin[]): ModelSource[] {
  return [
    { dir: config.contentTypesDir, plugin: null },
    ...plugins.flatMap((p) => (p.contentTypesDir ? [{ dir: p.contentTypesDir, plugin: p.name }] : [])),
  ];
}

/** Log lines a buffered logger gathers into one write, at most (bytes), and how long one waits at most (ms). */
export const LOG_BUFFER_BYTES = 4096;
export const LOG_FLUSH_MS = 200;
/** Past this many bytes waiting for a stuck stdout, lines are dropped rather than held in memory without bound. */
const LOG_BACKLOG_MAX_BYTES = 16 * 1024 * 1024;

/**
 * `buffered` (the server): lines are gathered and written to stdout in the background, at least every
 * LOG_FLUSH_MS and in full on exit (pino flushes at process exit), so a request's access-log line
 * costs no write system call of its own. Otherwise (the CLI) every line is written at once, in order
 * with the command's own output.
 */
export function createLogger(config: Config, buffered = false): Logger {
  const options = { level: config.logLevel, base: undefined, timestamp: pino.stdTimeFunctions.isoTime };
  if (!buffered) return pino(options);
  return pino(options, pino.destination({ dest: 1, sync: false, minLength: LOG_BUFFER_BYTES, periodicFlush: LOG_FLUSH_MS, maxLength: LOG_BACKLOG_MAX_BYTES }));
}

/**
 * Loads the registry (RegistryError on a bad model), connects and wires the event pipeline (the record
 * reader, each plugin's `events` hook); the schema is not touched here.
 */
/** `dbLog`: where knex's own warnings go (default `log`; the CLI sends them to debug: its one error line says it). */
export function boot(config: Config, plugins: readonly Plugin[], log: Logger = createLogger(config), dbLog: DbLogger = log): Booted {
  const registry = loadRegistry(modelSources(config, plugins), config.rootDir, reservedModelNames(plugins));
  const { db, dialect, readDb } = connect(config.database, { log: dbLog, queryTimeoutMs: config.query.timeoutMs, sqliteReaders: config.sqliteReaders, poolMax: config.poolMax });
  const events = createEventPipeline(config, db, dialect, log, readDb);
  // Plugins' own hard deletes announce what their foreign keys change, as the record service's deletes do.
  const foreignKeyEvents = foreignKeyEventsOf(registry, dialect, events);
  // Every process, not only a server, appends events (the CLI's user:create): each gets its record as
  // FindOne answers it and whatever the plugins run with an append (the webhook fan-out's deliveries).
  const reader = eventRecordReader({ config, db, dialect, registry, log });
  events.setRecordReader(reader.read);
  for (const p of plugins) p.events?.({ config, db, dialect, registry, log, events, foreignKeyEvents });
  // Processes sharing a database share cache keys in Redis; other deployments on the same Redis do not.
  const responseCache = createResponseCache(config, db, registry, log, config.redisNamespace);
  return {
    events,
    foreignKeyEvents,
    config,
    db,
    readDb,
    dialect,
    registry,
    plugins,
    log,
    responseCache,
    async close() {
      for (const p of plugins) await p.close?.();
      await events.close();
      reader.close();
      await responseCache?.close();
      await db.destroy();
      await readDb?.destroy();
    },
  };
}
