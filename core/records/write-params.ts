/**
 * The query parameters a write endpoint takes (locale=, status=): any other is a 400 naming it, as
 * Find answers an unknown parameter, rather than a write that silently ignores it (a PATCH with
 * `status=published` would answer 200 and publish nothing).
 */
import { BadRequestError } from '../errors/errors';

export function checkWriteParams(query: Record<string, unknown>, known: readonly string[]): void {
  for (const k of Object.keys(query)) {
    if (known.includes(k)) continue;
    const takes = known.length > 0 ? `this endpoint takes ${known.join(', ')}` : 'this endpoint takes none';
    throw new BadRequestError(`${k}: unknown query parameter (${takes})`, { parameter: k });
  }
}
