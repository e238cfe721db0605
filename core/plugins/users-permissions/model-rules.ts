/**
 * A text field checked against what its model declares (the registry: `required`, `minLength`, `maxLength`,
 * `pattern`), the rules the record API's validators apply (core/validation), for the commands that write a
 * row themselves (role:create). Lengths count characters (code points), as those validators and the
 * databases' varchar do; an empty value counts as missing, as FieldCheck counts it.
 */
import type { ContentType } from '../../registry/types';

export function textFieldProblems(model: ContentType, field: string, value: string): string[] {
  const a = model.byName.get(field);
  if (!a || a.kind !== 'scalar') throw new Error(`${model.name}.${field} is not a text field of the registry`);
  if (value === '') return a.required ? ['is required'] : [];
  const problems: string[] = [];
  const length = [...value].length;
  if (a.minLength !== undefined && length < a.minLength) problems.push(`must be at least ${a.minLength} characters`);
  if (a.maxLength !== undefined && length > a.maxLength) problems.push(`must be at most ${a.maxLength} characters`);
  if (a.pattern !== undefined && !new RegExp(a.pattern, 'u').test(value)) problems.push(`must match ${a.pattern}${a.description ? ` (${a.description})` : ''}`);
  return problems;
}
