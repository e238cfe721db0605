/** `status=published|draft` of Find / FindOne / create (issue 14): taken off the query before it is parsed. */
import { BadRequestError } from '../errors/errors';
import { type Version, VERSIONS } from './names';

export const STATUS_PARAM = 'status';

/** The status a query asks for (default `published`) and the query without it. */
export function takeStatus(raw: unknown): { status: Version; given: boolean; query: unknown } {
  if (typeof raw !== 'object' || raw === null || !(STATUS_PARAM in raw)) return { status: 'published', given: false, query: raw };
  const { [STATUS_PARAM]: value, ...query } = raw as Record<string, unknown>;
  if (typeof value !== 'string' || !(VERSIONS as readonly string[]).includes(value)) {
    throw new BadRequestError(`status must be one of ${VERSIONS.join(', ')}`, { parameter: STATUS_PARAM });
  }
  return { status: value as Version, given: true, query };
}
