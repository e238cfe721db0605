/** The same dependencies as the server (config, registry, database, plugins), no HTTP. */
import { loadConfig } from '../config';
import { enabledPlugins } from '../config/plugins';
import { boot, createLogger, type Booted } from '../core/boot';
import type { Plugin } from '../core/plugin-api';
import type { DbLogger } from '../database/connect';
import type { Dialect } from '../database/dialects/dialect';

let plugins: readonly Plugin[] | null = null;
let booted: Booted | null = null;

/**
 * One plugin list per CLI run: the instances whose commands run are the ones closed at the end
 * (a second list would leave the first one's connections, such as Redis with REDIS_URL, open, and
 * the process would never exit).
 */
export function cliPlugins(): readonly Plugin[] {
  plugins ??= enabledPlugins();
  return plugins;
}

export function cliDeps(): Booted {
  if (booted) return booted;
  const config = loadConfig();
  const log = createLogger(config);
  // knex's own warnings (a migration that failed, a connection refused, with the SQL and the driver's stack)
  // say what the command's one error line says (admin-cli/failure.ts): shown at LOG_LEVEL=debug only.
  const dbLog: DbLogger = { warn: (o, m) => log.debug(o, m), error: (o, m) => log.debug(o, m), debug: (o, m) => log.debug(o, m) };
  booted = boot(config, cliPlugins(), log, dbLog);
  return booted;
}

/** The database's dialect once a command has connected (null before: no database error can have happened). */
export function cliDialect(): Dialect | null {
  return booted?.dialect ?? null;
}

export async function closeCliDeps(): Promise<void> {
  const b = booted;
  booted = null;
  if (!b) return;
  try {
    await b.close();
  } catch (e) {
    // a plugin or the event pipeline could not close (the database gone): the pools are closed all the same
    await Promise.all([b.db.destroy(), b.readDb?.destroy()]).catch(() => undefined);
    throw e;
  }
}
