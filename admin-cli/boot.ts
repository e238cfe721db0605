/** The same dependencies as the server (config, registry, database, plugins), no HTTP. */
import { loadConfig } from '../config';
import { enabledPlugins } from '../config/plugins';
import { boot, type Booted } from '../core/boot';
import type { Plugin } from '../core/plugin-api';

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
  booted ??= boot(loadConfig(), cliPlugins());
  return booted;
}

export async function closeCliDeps(): Promise<void> {
  if (booted) await booted.close();
  booted = null;
}
