/**
 * ContentType → ajv validators for create, PUT and PATCH bodies, compiled once at boot.
 * Unknown fields are refused; read-only system fields are dropped before validation. Private fields
 * (passwords included) are write-only: accepted here, never returned. Server-only attributes
 * (`writable: false`) are unknown fields here.
 */
import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { ValidationError, BadRequestError } from '../errors/errors';
import { ATTRIBUTE_KINDS, INT4_MAX } from '../registry/attribute-kinds';
import { linearRegExp } from '../registry/linear-pattern';
import { type ContentType, type Registry, SYSTEM_FIELDS } from '../registry/types';
import { formatErrors } from './format-errors';
import { MAX_RELATION_IDS, RELATION_IDS_MESSAGE, relationIdsDetails } from './relation-ids';
import { fieldTextProblems } from './storable-text';

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

/** A record id as a body names it: ids are integer columns (32-bit on PostgreSQL), so a larger one is refused here. */
const RECORD_ID = { type: 'integer', minimum: 1, maximum: INT4_MAX } as const;

/** The JSON schema of one model's writable body for a mode (exported for OpenAPI). */
export function writeSchema(model: ContentType, registry: Registry, mode: WriteMode): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  const anyOf: Record<string, unknown>[] = [];
  for (const a of model.attributes) {
    // server-only (`writable: false`): absent from every body schema, so naming it is an unknown field (422)
    if (a.writable === false) continue;
    if (a.kind === 'scalar') {
      const base = ATTRIBUTE_KINDS[a.type].schema(a);
      const nullable = !a.required;
      properties[a.name] = nullable ? { anyOf: [base, { type: 'null' }] } : base;
      if (a.required && a.default === undefined && mode !== 'patch') required.push(a.name);
    } else if (a.kind === 'relation' && a.owner && !a.private) {
      if (a.idField) {
        properties[a.idField] = a.required ? RECORD_ID : { anyOf: [RECORD_ID, { type: 'null' }] };
        if (a.userKeyField) properties[a.userKeyField] = { type: 'string', minLength: 1 };
        if (a.required && mode !== 'patch') {
          anyOf.push(...[a.idField, a.userKeyField].filter((f): f is string => f !== null).map((f) => ({ required: [f] })));
        }
      } else if (a.joinTable) {
        properties[a.name] = { type: 'array', uniqueItems: true, maxItems: MAX_RELATION_IDS, items: RECORD_ID };
      }
    } else if (a.kind === 'media' && !a.private) {
      // Files come as multipart parts; in JSON a media field is the list of its file ids to keep (null: none).
      properties[a.name] = { anyOf: [{ type: 'array', uniqueItems: true, maxItems: a.multiple ? 1000 : 1, items: RECORD_ID }, { type: 'null' }] };
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
// `ownProperties`: a body's fields are its own keys; an inherited one (`constructor`, `toString`) is never
// read as a value a body gave (the registry refuses such attribute names too). Its cost is one
// hasOwnProperty call per declared property present in a body: below measurement on a write.
const ajv = new Ajv({ allErrors: true, strict: false, coerceTypes: false, useDefaults: false, ownProperties: true, code: { regExp: linearRegExp } });
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
  /**
   * What JSON Schema cannot say, in our words, before SQL (issue 13): text no database stores (NUL,
   * lone surrogates; multipart bodies reach here without body.ts's check) and per-kind value rules
   * (a date's year range). Fields the schema already refused are left to its message.
   */
  const valueProblems = (clean: Record<string, unknown>, refused: Record<string, string[]>): Map<string, string[]> => {
    // Maps, and own-property checks: a field may be called `constructor` (see format-errors.ts).
    const fields = new Map(Object.entries(fieldTextProblems(clean)));
    for (const a of model.attributes) {
      if (a.kind !== 'scalar' || Object.hasOwn(refused, a.name) || fields.has(a.name) || !Object.hasOwn(clean, a.name)) continue;
      const v = clean[a.name];
      if (v === undefined || v === null) continue;
      const problem = ATTRIBUTE_KINDS[a.type].valueProblem(v);
      if (problem) fields.set(a.name, [problem]);
    }
    return fields;
  };
  const errors = (body: unknown, mode: WriteMode): Record<string, string[]> | null => {
    const clean = strip(body);
    const valid = compiled[mode](clean);
    const refused = valid ? {} : formatErrors(compiled[mode].errors, model.name);
    const fields = new Map(Object.entries(refused));
    if (!valid && fields.size === 0) {
      for (const a of model.attributes) if (a.kind === 'relation' && a.required && a.idField) fields.set(a.idField, [`is required (or ${a.userKeyField ?? a.idField})`]);
    }
    for (const [name, messages] of valueProblems(clean, refused)) fields.set(name, [...(fields.get(name) ?? []), ...messages]);
    // Too many ids: our words, naming the limit, instead of ajv's "must NOT have more than 1000 items"
    for (const a of model.attributes) {
      const ids = a.kind === 'relation' && a.joinTable && Object.hasOwn(clean, a.name) ? clean[a.name] : undefined;
      if (!Array.isArray(ids) || ids.length <= MAX_RELATION_IDS) continue;
      fields.set(a.name, [RELATION_IDS_MESSAGE, ...(fields.get(a.name) ?? []).filter((m) => !/^must NOT have more than \d+ items$/.test(m))]);
    }
    return fields.size > 0 ? Object.fromEntries(fields) : null;
  };
  return {
    schemas,
    errors,
    check(body, mode) {
      const fields = errors(body, mode);
      if (fields) throw new ValidationError(`invalid ${model.name}`, fields, relationIdsDetails(fields));
      return strip(body);
    },
  };
}
