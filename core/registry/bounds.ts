/**
 * Bounds a scalar attribute declares that no value could meet, or that a database could not hold: the
 * registry refuses them at boot (one line naming file and path) instead of a model no write can satisfy
 * or a migration that fails on one database.
 */
import { ATTRIBUTE_KINDS } from './attribute-kinds';
import type { ScalarAttribute } from './types';

/**
 * The longest `maxLength` a `string`, `email` or `uid` (a varchar) may declare: PostgreSQL's varchar holds
 * 10485760 characters at most (MariaDB keeps a longer varchar as longtext, SQLite has no bound). Longer
 * text is `type: text`.
 */
export const MAX_VARCHAR_LENGTH = 10485760;

const VARCHAR_TYPES: ReadonlySet<string> = new Set(['string', 'email', 'uid']);

const num = (v: unknown): number | undefined => (typeof v === 'number' ? v : undefined);

/** The first impossible bound of `a` as [option, problem], or null. Reads the kind's own schema, so column limits count. */
export function boundsProblem(a: ScalarAttribute): readonly [string, string] | null {
  if (a.maxLength !== undefined && VARCHAR_TYPES.has(a.type) && a.maxLength > MAX_VARCHAR_LENGTH) {
    return ['maxLength', `${a.maxLength} is more than ${MAX_VARCHAR_LENGTH}, the longest ${a.type} every database stores (use type: text for longer text)`];
  }
  const schema = ATTRIBUTE_KINDS[a.type].schema(a);
  const [minLength, maxLength] = [num(schema.minLength), num(schema.maxLength)];
  if (minLength !== undefined && maxLength !== undefined && minLength > maxLength) {
    const limit = a.maxLength !== undefined ? `maxLength (${maxLength})` : `${maxLength}, the length a ${a.type} has without maxLength`;
    return [a.minLength !== undefined ? 'minLength' : 'maxLength', a.minLength !== undefined ? `${minLength} is greater than ${limit}: no value fits` : `${maxLength} is less than the least length of a ${a.type} (${minLength}): no value fits`];
  }
  const low = num(schema.minimum) ?? num(schema.exclusiveMinimum);
  const high = num(schema.maximum) ?? num(schema.exclusiveMaximum);
  if (low !== undefined && high !== undefined && low > high) {
    if (a.min !== undefined && a.max !== undefined) return ['min', `${a.min} is greater than max (${a.max}): no value fits`];
    if (a.min !== undefined) return ['min', `${a.min} is greater than ${high}, the largest value the ${a.type} column holds: no value fits`];
    return ['max', `${a.max ?? high} is less than ${low}, the smallest value the ${a.type} column holds: no value fits`];
  }
  return null;
}
