/**
 * The `/api/<segment>` paths that are no model's: core's own routes and each plugin's `apiSegments`.
 * The registry refuses a model so named (its record routes would share or shadow them), before any
 * migration is written.
 */
import type { Plugin } from './plugin-api';
import { REALTIME_SEGMENT } from './realtime/segment';

/** segment → what routes it, for the boot error (`/api/realtime is taken by the realtime event stream`). */
export function reservedModelNames(plugins: readonly Plugin[]): ReadonlyMap<string, string> {
  return new Map([
    [REALTIME_SEGMENT, 'the realtime event stream'],
    ...plugins.flatMap((p) => (p.apiSegments ?? []).map((s) => [s, `the routes of the ${p.name} plugin`] as const)),
  ]);
}
