/**
 * What one write call may do, checked from its body before any SQL (README, Security):
 * - records per bulk create, ids per bulk publish / unpublish / delete / recover (constants);
 * - relation links the call writes, every item and many-to-many relation together, the links a
 *   publish copies into the published tables included (WRITE_MAX_LINKS). A call's transaction holds
 *   SQLite's one writer (and PostgreSQL / MariaDB row locks) while it writes them: unbounded, one bulk
 *   of 420 items × 500 ids held it 8-16 s and made every other user's write wait.
 * Past each: 400 BadRequestError whose details name the limit, its maximum and its setting.
 */
import { BadRequestError } from '../errors/errors';
import type { ContentType } from '../registry/types';

/** Records one bulk create takes. */
export const MAX_BULK_ITEMS = 1000;
/** Ids one bulk publish, unpublish, delete or recover takes. */
export const MAX_BULK_IDS = 1000;
/** The default of WRITE_MAX_LINKS (config/schema.ts). */
export const DEFAULT_WRITE_MAX_LINKS = 10_000;
export const WRITE_MAX_LINKS_SETTING = 'WRITE_MAX_LINKS';

export function tooManyItems(count: number): BadRequestError {
  return new BadRequestError(`at most ${MAX_BULK_ITEMS} records per bulk call (this one has ${count})`, { limit: 'bulkItems', max: MAX_BULK_ITEMS });
}

export function tooManyIds(count: number): BadRequestError {
  return new BadRequestError(`at most ${MAX_BULK_IDS} ids per call (this one has ${count})`, { limit: 'bulkIds', max: MAX_BULK_IDS });
}

/** Links a validated body of `model` sets: the ids it gives its many-to-many relations. */
export function linksOf(model: ContentType, data: Record<string, unknown>): number {
  let n = 0;
  for (const a of model.attributes) {
    if (a.kind !== 'relation' || !a.joinTable || !Object.hasOwn(data, a.name)) continue;
    const ids = data[a.name];
    if (Array.isArray(ids)) n += ids.length;
  }
  return n;
}

/** Throws the 400 when a call would write more than `max` links. */
export function checkLinks(links: number, max: number): void {
  if (links <= max) return;
  throw new BadRequestError(
    `the call would write ${links} relation links; one call writes at most ${max} (setting ${WRITE_MAX_LINKS_SETTING}; a publish counts the links it copies): split it into smaller calls`,
    { limit: 'writeLinks', setting: WRITE_MAX_LINKS_SETTING, max, links },
  );
}
