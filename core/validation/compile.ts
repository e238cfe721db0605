/**
 * ContentType → ajv validators for create, PUT and PATCH bodies, compiled once at boot.
 * Unknown fields are refused; read-only system fields are dropped before validation. Private fields
 * (passwords included) are write-only: accepted here, never returned.
 */
import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { ValidationError, BadRequestError } from '../errors/errors';
import { ATTRIBUTE_KINDS } from '../registry/attribute-kinds';
import { linearRegExp } from '../registry/linear-pattern';
import { type ContentType, type Registry, SYSTEM_FIELDS } from '../registry/types';
import { formatErrors } from './format-errors';

export type WriteMode = 'create' | 'put' | 'patch';

export interface ModelValidators {
  /** Validates one body; returns it as a plain object without read-only fields, or throws 422. */
  check(body: unknown, mode: WriteMode): Record<string, unknown>;
  /** The per-item field errors, or null when the body is valid. */
  errors(body: unknown, mode: WriteMode): Record<string, string[]> | null;
  readonly schemas: Readonly<Record<WriteMode, Record<string, unknown>>>;
}

/** Fields a record shows that a client may send back but never sets (OpenAPI readOnly). */
export const READ_ONLY_FIELDS: ReadonlySet<string> = new Set([...SYSTEM_FIELDS.map((f) => f.name), 'createdBy', 'updatedBy']);

/** The JSON schema of one model's writable body for a mode (exported for OpenAPI). */
export function writeSchema(model: ContentType, registry: Registry, mode: WriteMode): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  const anyOf: Record<string, unknown>[] = [];
  for (const a of model.attributes) {
    if (a.kind === 'scalar') {
      const base = ATTRIBUTE_KINDS[a.type].schema(a);
      const nullable = !a.required;
      properties[a.name] = nullable ? { anyOf: [base, { type: 'null' }] } : base;
      if (a.required && a.default === undefined && mode !== 'patch') required.push(a.name);
    } else if (a.kind === 'relation' && a.owner && !a.private) {
      if (a.idField) {
        properties[a.idField] = a.required ? { type: 'integer', minimum: 1 } : { anyOf: [{ type: 'integer', minimum: 1 }, { type: 'null' }] };
        if (a.userKeyField) properties[a.userKeyField] = { type: 'string', minLength: 1 };
        if (a.required && mode !== 'patch') {
          anyOf.push(...[a.idField, a.userKeyField].filter((f): f is string => f !== null).map((f) => ({ required: [f] })));
        }
      } else if (a.joinTable) {
        properties[a.name] = { type: 'array', uniqueItems: true, maxItems: 1000, items: { type: 'integer', minimum: 1 } };
      }
    } else if (a.kind === 'media' && !a.private) {
      // Files come as multipart parts; in JSON a media field is the list of its file ids to keep (null: none).
      properties[a.name] = { anyOf: [{ type: 'array', uniqueItems: true, maxItems: a.multiple ? 1000 : 1, items: { type: 'integer', minimum: 1 } }, { type: 'null' }] };
    }
  }
  void registry;
  return {
    type: 'object',
    additionalProperties: false,
    properties,
    ...(required.length > 0 && { required }),
    ...(anyOf.length > 0 && { anyOf }),
  };
}

// Patterns run on RE2 (linear time): a model's pattern cannot be made to backtrack (issue 13).
const ajv = new Ajv({ allErrors: true, strict: false, coerceTypes: false, useDefaults: false, code: { regExp: linearRegExp } });
addFormats(ajv);

export function compileValidators(model: ContentType, registry: Registry): ModelValidators {
  const schemas = { create: writeSchema(model, registry, 'create'), put: writeSchema(model, registry, 'put'), patch: writeSchema(model, registry, 'patch') };
  const compiled: Record<WriteMode, ValidateFunction> = {
    create: ajv.compile(schemas.create),
    put: ajv.compile(schemas.put),
    patch: ajv.compile(schemas.patch),
  };
  const strip = (body: unknown): Record<string, unknown> => {
    if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new BadRequestError(`the body must be a JSON object (a ${model.name} record)`);
    return Object.fromEntries(Object.entries(body).filter(([k]) => !READ_ONLY_FIELDS.has(k)));
  };
  const errors = (body: unknown, mode: WriteMode): Record<string, string[]> | null => {
    const clean = strip(body);
    if (compiled[mode](clean)) return null;
    const fields = formatErrors(compiled[mode].errors, model.name);
    if (Object.keys(fields).length === 0) {
      for (const a of model.attributes) if (a.kind === 'relation' && a.required && a.idField) fields[a.idField] = [`is required (or ${a.userKeyField ?? a.idField})`];
    }
    return fields;
  };
  return {
    schemas,
    errors,
    check(body, mode) {
      const fields = errors(body, mode);
      if (fields) throw new ValidationError(`invalid ${model.name}`, fields);
      return strip(body);
    },
  };
}
