/** The enabled plugins: the one place that names a plugin (composition). */
import type { Plugin } from '../core/plugin-api';

export function enabledPlugins(): readonly Plugin[] {
  return [];
}
