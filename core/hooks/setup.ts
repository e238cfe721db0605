/** The hook runner of a server: the plugins' hooks first (in plugin order), then the project's (HOOKS_DIR). */
import type { Plugin, PluginDeps } from '../plugin-api';
import { loadProjectHooks } from './loader';
import { HookRunner } from './runner';

export function lifecycleHooks(plugins: readonly Plugin[], deps: PluginDeps): HookRunner {
  const runner = new HookRunner(deps.log, (e) => {
    const kind = deps.dialect.classifyError(e)?.kind;
    return kind === 'writeConflict' || kind === 'unavailable' || kind === 'busy' || kind === 'timeout';
  });
  for (const p of plugins) {
    const h = p.hooks?.(deps);
    if (!h) continue;
    for (const one of Array.isArray(h) ? h : [h]) runner.add(one);
  }
  for (const h of loadProjectHooks(deps.config.rootDir, deps.config.hooksDir)) runner.add(h);
  return runner;
}
