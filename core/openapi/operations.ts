/**
 * The ten record endpoints (records/routes.ts RECORD_ROUTES) of one model as OpenAPI path items.
 * Each route is looked up by `<method> <path>`; a route without an entry here stops the build.
 */
import { RECORD_ROUTES } from '../records/routes';
import { MAX_BULK_ITEMS } from '../records/write-limits';
import type { ContentType, Registry } from '../registry/types';
import { EXAMPLE_CREATED_BY, EXAMPLE_UPDATED_BY, recordExample, writeExample } from './examples';
import { hasMedia, modelNames } from './model-schemas';
import { LOCALE_USES, localeParameter } from './locales';
import { findOneParameters, findParameters } from './query-parameters';
import { createStatusParameters, readStatusParameters } from './drafts';
import { BEARER, DEFAULT_ERROR, type ErrorResponseName, errorStatus } from './shared';
import { pascalCase, ref, type Schema, schemaRef } from './types';

type Operation = Record<string, unknown>;

interface OperationDoc {
  readonly id: (p: string) => string;
  readonly summary: (m: ContentType) => string;
  readonly description?: (m: ContentType) => string;
  readonly errors: readonly ErrorResponseName[];
  readonly build: (m: ContentType, registry: Registry) => { parameters?: Record<string, unknown>[]; requestBody?: Record<string, unknown>; ok: Record<string, unknown> };
  /** A read: answers carry an ETag and If-None-Match may answer 304. */
  readonly conditional?: boolean;
}

const READ_ERRORS = ['BadRequest', 'Unauthorized', 'Forbidden', 'AnswerTooLarge'] as const;
const WRITE_ERRORS = ['BadRequest', 'Unauthorized', 'Forbidden', 'Conflict', 'PayloadTooLarge', 'UnsupportedMediaType', 'ValidationFailed'] as const;
const BY_ID_ERRORS = ['BadRequest', 'Unauthorized', 'Forbidden', 'NotFound', 'Conflict'] as const;
const BULK_ID_ERRORS = [...BY_ID_ERRORS, 'PayloadTooLarge', 'UnsupportedMediaType'] as const;

const idParameter = { name: 'id', in: 'path', required: true, description: 'Record id (a positive integer).', schema: { type: 'integer', minimum: 1 } };

const json = (schema: Schema, example?: unknown): Record<string, unknown> => ({ 'application/json': { schema, ...(example !== undefined && { example }) } });
const ok = (description: string, schema: Schema, example?: unknown) => ({ description, content: json(schema, example) });
const envelope = (data: unknown, message: string[] = []) => ({ statusCode: 200, message, error: '', data });

/** Headers of a Find/FindOne answer (issue 17: conditional reads). */
const READ_HEADERS = {
  ETag: { description: 'Strong validator of the answer bytes (SHA-1, base64url). Send it back in `If-None-Match` to get 304 while the answer is unchanged.', schema: { type: 'string', pattern: '^"[A-Za-z0-9_-]{27}"$' } },
  'Cache-Control': { description: '`private, no-cache`: answers depend on the caller (shared caches must not keep them); a client keeps one only to revalidate it.', schema: { type: 'string' } },
  Vary: { description: 'Names `Authorization`: the answer differs per caller.', schema: { type: 'string' } },
};

/** 304 of a Find/FindOne whose `If-None-Match` names the current answer's ETag (or is `*`). */
const NOT_MODIFIED = {
  description: 'Not modified: `If-None-Match` names the current ETag of this answer (weak comparison, RFC 9110), or is `*`. No body.',
  headers: READ_HEADERS,
};

const ifNoneMatchParameter = {
  name: 'If-None-Match',
  in: 'header',
  required: false,
  description: 'ETags of answers the client holds (`"…"`, `W/"…"`, a comma-separated list, or `*`): 304 without a body when one is the current answer\'s.',
  schema: { type: 'string' },
};

const GROUPED_EXAMPLE = {
  records: [{ 'createdAt:month': '2026-01', id_max: 7 }],
  meta: { totalRecords: 1, currentPage: 1, totalPages: 1 },
  groupMeta: [{ groupKey: { 'createdAt:month': '2026-01' }, aggregates: { id_max: 7 } }],
};

/** The Content-Types a record part may declare (core/media/form.ts). */
const RECORD_PART_TYPES = 'A text part: without a Content-Type, or with application/json, text/plain or any +json type (UTF-8; a JSON Blob of a browser\'s FormData too); another type answers 400 naming the part. Counts against BODY_MAX_BYTES, not UPLOAD_MAX_BYTES.';

/** A file part of a multipart form (spec 4.3 "With media"). */
function filePart(allowedTypes: readonly string[]): Schema {
  return { type: 'string', format: 'binary', contentMediaType: allowedTypes.length === 1 ? allowedTypes[0] : 'application/octet-stream' };
}

/** The parts of a multipart write: the record as JSON in `data` (or `updateDto`), one or more file parts per media field. */
function formParts(m: ContentType, jsonSchema: string): { properties: Record<string, Schema>; encoding: Record<string, unknown> } {
  const properties: Record<string, Schema> = {
    data: { type: 'string', contentMediaType: 'application/json', contentSchema: schemaRef(jsonSchema), description: `The ${m.name} fields as a JSON string. ${RECORD_PART_TYPES}` },
  };
  const encoding: Record<string, unknown> = { data: { contentType: 'application/json' } };
  for (const a of m.attributes) {
    if (a.kind !== 'media' || a.private) continue;
    const about = `${a.description ? `${a.description} ` : ''}${a.multiple ? 'Repeat the part for several files (appended).' : 'One file (replaces the current one).'}`;
    properties[a.name] = a.multiple ? { type: 'array', items: filePart(a.allowedTypes), description: about } : { ...filePart(a.allowedTypes), description: about };
    encoding[a.name] = { contentType: a.allowedTypes.length ? a.allowedTypes.join(', ') : 'application/octet-stream' };
  }
  return { properties, encoding };
}

function createBody(m: ContentType, registry: Registry): Record<string, unknown> {
  const n = modelNames(m);
  const content: Record<string, unknown> = json(schemaRef(n.create), writeExample(m, registry, 'create'));
  if (hasMedia(m)) {
    const { properties, encoding } = formParts(m, n.create);
    content['multipart/form-data'] = { schema: { type: 'object', required: ['data'], properties }, encoding };
  }
  return { required: true, content };
}

function updateBody(m: ContentType, registry: Registry, mode: 'put' | 'patch'): Record<string, unknown> {
  const n = modelNames(m);
  const name = mode === 'put' ? n.replace : n.update;
  const content: Record<string, unknown> = json(schemaRef(name), writeExample(m, registry, mode));
  // Every +json type is read as JSON (core/http/body.ts); a merge patch is what PATCH does with a JSON object.
  if (mode === 'patch') content['application/merge-patch+json'] = { schema: schemaRef(name) };
  if (hasMedia(m)) {
    const { properties, encoding } = formParts(m, name);
    content['multipart/form-data'] = {
      schema: {
        type: 'object',
        description: 'Either the create form (`data` + parts named after media fields) or the spec form (`updateDto` + `files`).',
        properties: {
          updateDto: { type: 'string', contentMediaType: 'application/json', contentSchema: schemaRef(name), description: `The fields to change as a JSON string (spec 4.3). ${RECORD_PART_TYPES}` },
          files: { type: 'array', items: filePart([]), description: "File(s) for the model's only media field (a model with several names the field instead)." },
          ...properties,
        },
      },
      encoding: { updateDto: { contentType: 'application/json' }, ...encoding },
    };
  }
  return { required: true, content };
}

const idsBody = (what: string) => ({ required: true, description: `Ids of the records to ${what}.`, content: json(schemaRef('IdList'), [1, 2]) });

const OPERATIONS: Readonly<Record<string, OperationDoc>> = {
  'get ': {
    id: (p) => `find${p}`,
    summary: (m) => `List ${m.name} records`,
    description: () => 'Find (spec 4.3): filters, sort, paging, field selection, populate, media, soft-delete scope, grouping and aggregation.',
    errors: [...READ_ERRORS, 'QueryTimeout'],
    conditional: true,
    build: (m, r) => ({
      parameters: [...findParameters(m), ...readStatusParameters(r)],
      ok: {
        description: 'A page of records, or of groups when `groupBy` is given.',
        headers: READ_HEADERS,
        content: {
          'application/json': {
            schema: { oneOf: [schemaRef(modelNames(m).list), schemaRef(modelNames(m).groupedList)] },
            examples: {
              list: { summary: 'records', value: { records: [recordExample(m, r)], meta: { totalRecords: 1, currentPage: 1, totalPages: 1 } } },
              grouped: { summary: 'groupBy[0]=createdAt:month&aggregates[0]=id:max', value: GROUPED_EXAMPLE },
            },
          },
        },
      },
    }),
  },
  'get /:id': {
    id: (p) => `findOne${p}`,
    summary: (m) => `Get one ${m.name} record`,
    description: () => 'FindOne (spec 4.3): the record itself, not enveloped; `_media` when `populateMedia` names media fields.',
    errors: [...READ_ERRORS, 'NotFound'],
    conditional: true,
    build: (m, r) => ({ parameters: [idParameter, ...findOneParameters(m), ...readStatusParameters(r)], ok: { ...ok('The record.', schemaRef(modelNames(m).record), recordExample(m, r)), headers: READ_HEADERS } }),
  },
  'post ': {
    id: (p) => `create${p}`,
    summary: (m) => `Create a ${m.name} record`,
    description: (m) => `Create (spec 4.3). Answers the record with its relations populated.${hasMedia(m) ? ' With files: multipart/form-data, the record as JSON in the part `data`, one part per media field.' : ''}`,
    errors: WRITE_ERRORS,
    build: (m, r) => ({
      ...(createStatusParameters(m).length > 0 && { parameters: createStatusParameters(m) }),
      requestBody: createBody(m, r),
      ok: ok('The created record in an envelope.', schemaRef(modelNames(m).envelope), envelope({ ...recordExample(m, r, { populated: true }), createdBy: EXAMPLE_CREATED_BY, updatedBy: EXAMPLE_UPDATED_BY })),
    }),
  },
  'post /bulk': {
    id: (p) => `createMany${p}`,
    summary: (m) => `Create many ${m.name} records`,
    description: () => `Bulk create: one transaction, at most ${MAX_BULK_ITEMS} records; one bad item fails the call (details.errors names its index; a lifecycle hook's refusal too, with the hook's status and message) and nothing is written.`,
    errors: WRITE_ERRORS,
    build: (m, r) => ({
      ...(createStatusParameters(m).length > 0 && { parameters: createStatusParameters(m) }),
      requestBody: { required: true, content: json({ type: 'array', items: schemaRef(modelNames(m).create), minItems: 1, maxItems: MAX_BULK_ITEMS }, [writeExample(m, r, 'create')]) },
      ok: ok('The created records, in body order, in an envelope.', schemaRef(modelNames(m).bulkEnvelope)),
    }),
  },
  'put /:id': {
    id: (p) => `replace${p}`,
    summary: (m) => `Replace a ${m.name} record (PUT)`,
    description: () => 'Full update (spec 4.3): fields left out return to their default or null; idempotent. With files: multipart/form-data with `updateDto` (JSON) and `files`.',
    errors: [...WRITE_ERRORS, 'NotFound'],
    build: (m, r) => ({ parameters: [idParameter], requestBody: updateBody(m, r, 'put'), ok: ok('The updated record in an envelope.', schemaRef(modelNames(m).envelope)) }),
  },
  'patch /:id': {
    id: (p) => `update${p}`,
    summary: (m) => `Update a ${m.name} record (PATCH)`,
    description: () => 'Partial update (spec 4.3): only the given fields change. With files: multipart/form-data with `updateDto` (JSON) and `files`.',
    errors: [...WRITE_ERRORS, 'NotFound'],
    build: (m, r) => ({
      parameters: [idParameter],
      requestBody: updateBody(m, r, 'patch'),
      ok: ok('The updated record in an envelope.', schemaRef(modelNames(m).envelope), envelope({ ...recordExample(m, r, { populated: true }), updatedBy: EXAMPLE_UPDATED_BY })),
    }),
  },
  'delete /:id': {
    id: (p) => `delete${p}`,
    summary: (m) => `Delete a ${m.name} record`,
    description: (m) => (m.softDelete ? 'Soft delete (spec 3.1): the record is archived; the answer shows `deletedAt` and `deletedTracker`.' : 'This model has no soft delete: the row is removed for good; a record others still reference answers 409.'),
    errors: BY_ID_ERRORS,
    build: (m, r) => ({
      parameters: [idParameter],
      ok: ok('The deleted record in an envelope.', schemaRef(modelNames(m).envelope), envelope({ ...recordExample(m, r, { populated: true, archived: m.softDelete }), updatedBy: EXAMPLE_UPDATED_BY })),
    }),
  },
  'delete /bulk': {
    id: (p) => `deleteMany${p}`,
    summary: (m) => `Delete many ${m.name} records`,
    description: () => 'Bulk delete: one transaction; an unknown id fails the call (404) and nothing is deleted; a lifecycle hook\'s refusal fails it with the hook\'s status, details.errors naming the id\'s index. Answers one envelope per record.',
    errors: BULK_ID_ERRORS,
    build: (m) => ({ requestBody: idsBody('delete'), ok: ok('One envelope per deleted record.', { type: 'array', items: schemaRef(modelNames(m).envelope) }) }),
  },
  'post /recover/:id': {
    id: (p) => `recover${p}`,
    summary: (m) => `Recover an archived ${m.name} record`,
    description: (m) => `Recover (spec 3.1): the archived record becomes active again; 409 when an active record holds one of its unique values.${m.softDelete ? '' : ' This model has no soft delete: every id answers 404.'}`,
    errors: BY_ID_ERRORS,
    build: (m, r) => ({
      parameters: [idParameter],
      ok: ok('The recovered record: data = { message, data }.', schemaRef(modelNames(m).recoverEnvelope), envelope({ message: `${m.name} 1 successfully recovered`, data: { ...recordExample(m, r, { populated: true }), updatedBy: EXAMPLE_UPDATED_BY } })),
    }),
  },
  'post /:id/localizations': {
    id: (p) => `createLocalization${p}`,
    summary: (m) => `Create a ${m.name} entry in another locale`,
    description: () =>
      'Locales (issue 14): the entry `{id}` names (any of its locale rows) in the locale `locale=` names, as a row of its own linked through `defaultEntityLocaleId`. The body holds localized fields only; `localized: false` fields and relations are copied from the entry. 409 when the entry already has that locale. The answer lists the entry\'s other locales in `localizations`.',
    errors: [...WRITE_ERRORS, 'NotFound'],
    build: (m, r) => ({
      parameters: [idParameter],
      requestBody: { required: true, content: json(schemaRef(modelNames(m).update), writeExample(m, r, 'patch')) },
      ok: ok('The new locale row in an envelope.', schemaRef(modelNames(m).envelope)),
    }),
  },
  'post /recover/bulk': {
    id: (p) => `recoverMany${p}`,
    summary: (m) => `Recover many archived ${m.name} records`,
    description: () => 'Bulk recover: one transaction; one conflict or unknown id fails the call and nothing is recovered; a lifecycle hook\'s refusal fails it with the hook\'s status, details.errors naming the id\'s index.',
    errors: BULK_ID_ERRORS,
    build: (m) => ({ requestBody: idsBody('recover'), ok: ok('The summary in `message` and one { message, data } per record.', schemaRef(modelNames(m).bulkRecoverEnvelope)) }),
  },
};

/** Issue 14: the routes of an i18n model take `locale=` (core/openapi/locales.ts). */
function withLocale<T extends { parameters?: Record<string, unknown>[] }>(model: ContentType, key: string, built: T): T {
  const use = LOCALE_USES[key];
  if (!model.i18n || !use) return built;
  return { ...built, parameters: [...(built.parameters ?? []), localeParameter(use)] };
}

/** `/:id` → `/{id}` */
const template = (path: string): string => path.replace(/:([A-Za-z_]\w*)/g, '{$1}');

/** The path items of one model: `/api/<model>…` → { method: operation }. */
export function modelPaths(model: ContentType, registry: Registry, tag: string): Record<string, Record<string, Operation>> {
  const p = pascalCase(model.name);
  const paths: Record<string, Record<string, Operation>> = {};
  for (const route of RECORD_ROUTES) {
    if (route.i18nOnly && !model.i18n) continue;
    const doc = OPERATIONS[`${route.method} ${route.path}`];
    if (!doc) throw new Error(`core/openapi/operations.ts: no documentation for the record route ${route.method.toUpperCase()} ${route.path || '/'}`);
    const built = withLocale(model, `${route.method} ${route.path}`, doc.build(model, registry));
    const responses: Record<string, unknown> = { '200': built.ok, ...(doc.conditional && { '304': NOT_MODIFIED }) };
    // Every record route passes the per-caller gate (core/http/caller-gate.ts): 429 when its line is full, 503
    // when its turn does not come in time (or the database is out; a write: it collided with others, send it again).
    for (const e of [...doc.errors, 'TooManyRequests' as const, 'ServiceUnavailable' as const]) responses[String(errorStatus(e))] = ref('responses', e);
    responses.default = ref('responses', DEFAULT_ERROR);
    const operation: Operation = {
      operationId: doc.id(p),
      summary: doc.summary(model),
      ...(doc.description && { description: doc.description(model) }),
      tags: [tag],
      security: [{ [BEARER]: [] }],
      ...(built.parameters && { parameters: doc.conditional ? [...built.parameters, ifNoneMatchParameter] : built.parameters }),
      ...(built.requestBody && { requestBody: built.requestBody }),
      responses: sortResponses(responses),
    };
    const path = `/api/${model.name}${template(route.path)}`;
    paths[path] = { ...(paths[path] ?? {}), [route.method]: operation };
  }
  return paths;
}

function sortResponses(r: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(r).sort(([a], [b]) => (a === 'default' ? 1 : b === 'default' ? -1 : a.localeCompare(b))));
}
