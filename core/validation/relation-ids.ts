/**
 * Ids one write may give a many-to-many relation (the JSON schema's maxItems, core/validation/compile.ts).
 * Past it the 422 names the limit in the field's message and in `details` (`limit: relationIds`, `max`).
 */
export const MAX_RELATION_IDS = 1000;

export const RELATION_IDS_MESSAGE = `has more than ${MAX_RELATION_IDS} ids: one write sets at most ${MAX_RELATION_IDS} per relation (limit relationIds)`;

/** `{ limit, max }` when a field of `fields` (one body's, or a bulk call's merged: `item <i>: …`) is past the limit; else nothing. */
export function relationIdsDetails(fields: Record<string, readonly string[]>): Record<string, unknown> {
  return Object.values(fields).some((messages) => messages.some((m) => m.endsWith(RELATION_IDS_MESSAGE))) ? { limit: 'relationIds', max: MAX_RELATION_IDS } : {};
}
