/** The enabled plugins: the one place that names a plugin (composition). */
import type { Plugin } from '../core/plugin-api';
import { usersPermissions } from '../core/plugins/users-permissions';

/** A fresh instance per call: each server or CLI run owns its plugin state. */
export function enabledPlugins(): readonly Plugin[] {
  return [usersPermissions()];
}
