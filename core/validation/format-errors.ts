import type { ErrorObject } from 'ajv';
import { clip } from '../errors/client-text';

/** ajv errors → `{ field: [messages] }` (spec 7: details.fields maps a field name to messages). */
export function formatErrors(errors: readonly ErrorObject[] | null | undefined, modelName: string): Record<string, string[]> {
  // A Map, not an object: a client's field may be called `constructor` or `__proto__`.
  const fields = new Map<string, string[]>();
  const add = (field: string, message: string): void => {
    const list = fields.get(field) ?? [];
    fields.set(field, list);
    if (!list.includes(message)) list.push(message);
  };
  // A nullable field is `anyOf: [<its schema>, {type: 'null'}]`: a wrong value fails both branches, and
  // the null branch's "must be null" says nothing useful. Drop it; a type error of the other branch
  // becomes "must be <type> or null" instead.
  const isNullBranch = (e: ErrorObject): boolean => e.keyword === 'type' && e.params.type === 'null' && /\/anyOf\/\d+\/type$/.test(e.schemaPath);
  const nullableAt = new Map<string, string>(); // instancePath → schemaPath of the anyOf holding the null branch
  for (const e of errors ?? []) if (isNullBranch(e)) nullableAt.set(e.instancePath, e.schemaPath.replace(/\/\d+\/type$/, '/'));
  const orNull = (e: ErrorObject): boolean => {
    const anyOf = nullableAt.get(e.instancePath);
    return anyOf !== undefined && e.schemaPath.startsWith(anyOf);
  };
  for (const e of errors ?? []) {
    if (isNullBranch(e)) continue;
    const path = e.instancePath.split('/').filter(Boolean);
    const field = path[0] ?? '';
    switch (e.keyword) {
      case 'required':
        add(String(e.params.missingProperty), 'is required');
        break;
      case 'additionalProperties':
        add(clip(String(e.params.additionalProperty)), `is not a field of ${modelName}`); // a client's name, of any length
        break;
      case 'enum':
        add(field, `must be one of: ${(e.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`);
        break;
      case 'type':
        add(field, e.params.type === 'null' ? 'must be null' : `must be ${String(e.params.type).replace(',null', '').replace('null,', '')}${String(e.params.type).includes('null') || orNull(e) ? ' or null' : ''}`);
        break;
      case 'anyOf':
      case 'oneOf':
      case 'if':
        break; // the branch errors say more
      default:
        add(field || '_body', e.message ?? 'is invalid');
    }
  }
  // Should a nullable value's own branch have said nothing (only anyOf-like errors), still name the field.
  for (const path of nullableAt.keys()) {
    const field = path.split('/').filter(Boolean)[0] ?? '_body';
    if (!fields.has(field)) add(field, 'is invalid');
  }
  return Object.fromEntries(fields);
}
