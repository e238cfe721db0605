/** The same dependencies as the server (config, registry, database, plugins), no HTTP. */
import { loadConfig } from '../config';
import { enabledPlugins } from '../config/plugins';
import { boot, type Booted } from '../core/boot';

let booted: Booted | null = null;

export function cliDeps(): Booted {
  booted ??= boot(loadConfig(), enabledPlugins());
  return booted;
}

export async function closeCliDeps(): Promise<void> {
  if (booted) await booted.close();
  booted = null;
}
