import type { ErrorObject } from 'ajv';

/** ajv errors → `{ field: [messages] }` (spec 7: details.fields maps a field name to messages). */
export function formatErrors(errors: readonly ErrorObject[] | null | undefined, modelName: string): Record<string, string[]> {
  // A Map, not an object: a client's field may be called `constructor` or `__proto__`.
  const fields = new Map<string, string[]>();
  const add = (field: string, message: string): void => {
    const list = fields.get(field) ?? [];
    fields.set(field, list);
    if (!list.includes(message)) list.push(message);
  };
  for (const e of errors ?? []) {
    const path = e.instancePath.split('/').filter(Boolean);
    const field = path[0] ?? '';
    switch (e.keyword) {
      case 'required':
        add(String(e.params.missingProperty), 'is required');
        break;
      case 'additionalProperties':
        add(String(e.params.additionalProperty), `is not a field of ${modelName}`);
        break;
      case 'enum':
        add(field, `must be one of: ${(e.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`);
        break;
      case 'type':
        add(field, e.params.type === 'null' ? 'must be null' : `must be ${String(e.params.type).replace(',null', '').replace('null,', '')}${String(e.params.type).includes('null') ? ' or null' : ''}`);
        break;
      case 'anyOf':
      case 'oneOf':
      case 'if':
        break; // the branch errors say more
      default:
        add(field || '_body', e.message ?? 'is invalid');
    }
  }
  return Object.fromEntries(fields);
}
