/**
 * The query parameters a write endpoint takes (locale=, status=): any other is a 400 naming it, as
 * Find answers an unknown parameter, rather than a write that silently ignores it (a PATCH with
 * `status=published` would answer 200 and publish nothing).
 */
import { BadRequestError } from '../errors/errors';
import type { ContentType } from '../registry/types';
import { clip } from '../errors/client-text';

/**
 * `known`: the endpoint's parameters. `locale` passes on every model (a model without locales answers
 * its own 400 for it) but is listed only for i18n models.
 */
export function checkWriteParams(query: Record<string, unknown>, known: readonly string[], model: ContentType): void {
  for (const k of Object.keys(query)) {
    if (known.includes(k)) continue;
    const listed = known.filter((p) => p !== 'locale' || model.i18n);
    throw new BadRequestError(`${clip(k)}: unknown query parameter (${listed.length > 0 ? `known: ${listed.join(', ')}` : 'this call takes none'})`, { parameter: clip(k) });
  }
}
