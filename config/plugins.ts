/** The enabled plugins: the one place that names a plugin (composition). */
import type { Plugin } from '../core/plugin-api';
import { usersPermissions } from '../core/plugins/users-permissions';
import { webhooks } from '../core/plugins/webhooks';

/** A fresh instance per call: each server or CLI run owns its plugin state. */
export function enabledPlugins(): readonly Plugin[] {
  return [usersPermissions(), webhooks()];
}
