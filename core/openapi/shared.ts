/** Components every model and plugin shares: spec 7 errors, list meta, media, user summaries, bearer auth. */
import { OPENAPI_REFS } from '../plugin-api';
import { MAX_BULK_IDS } from '../records/write-limits';
import { type OpenApiComponents, type Schema, schemaRef } from './types';

const lastSegment = (r: string): string => r.slice(r.lastIndexOf('/') + 1);
export const ERROR_SCHEMA = lastSegment(OPENAPI_REFS.errorSchema);
export const BEARER = OPENAPI_REFS.bearerAuth;

/** The error responses of CONTRACT "Errors", keyed by the component name OPENAPI_REFS gives them. */
const ERROR_RESPONSES = {
  BadRequest: { status: 400, name: 'BadRequestError', description: 'Malformed input: a bad id, body shape, unknown query parameter, field or operator (the message names it).', message: 'filters[bogus]: unknown field "bogus" of fee-type', details: { parameter: 'filters[bogus]' } },
  Unauthorized: { status: 401, name: 'UnauthorizedError', description: 'No or an invalid bearer token, on a call the public role may not make.', message: 'authentication required: fee-type.create', details: {} },
  Forbidden: { status: 403, name: 'ForbiddenError', description: "The token's roles lack the permission `<model>.<action>`; or the permission covers some fields only and the body writes another (the message names it); or a create/update would leave the record outside the caller's row-level rule (README: Who can see what).", message: 'missing permission fee-type.create', details: {} },
  NotFound: { status: 404, name: 'NotFoundError', description: 'No (active) record with this id, or none the caller may reach under its row-level rules (the same answer: existence is not revealed), or no such model.', message: 'no fee-type with id 42', details: {} },
  Conflict: { status: 409, name: 'ConflictError', description: 'A unique value another active record holds (also on recover), or a record other records still reference.', message: 'feeType is already taken', details: { fields: { feeType: ['is already taken'] } } },
  PayloadTooLarge: { status: 413, name: 'PayloadTooLargeError', description: 'The body (BODY_MAX_BYTES; on the identity endpoints that take no token IAM_BODY_MAX_BYTES; `details.setting` and `details.limit` name which) or, in a multipart form, a file (UPLOAD_MAX_BYTES), the number of file parts (UPLOAD_MAX_FILES) or the headers of one part (UPLOAD_PART_HEADER_MAX_BYTES) is too large; or (`AnswerTooLargeError`) the answer of a write that was carried out is past ANSWER_MAX_BYTES.', message: 'the request body is larger than BODY_MAX_BYTES (1048576 bytes)', details: { setting: 'BODY_MAX_BYTES', limit: 1048576 } },
  AnswerTooLarge: { status: 413, name: 'AnswerTooLargeError', description: 'The answer would be past ANSWER_MAX_RECORDS records (populated ones counted each time they appear) or ANSWER_MAX_BYTES bytes; `details.setting` names which. Ask for less: `limit`, `fields`, `populate[<relation>][limit]`, `filters`.', message: 'the answer would hold more than 50000 records, populated records counted each time they appear (ANSWER_MAX_RECORDS); ask for fewer with limit, populate[<relation>][limit], fields or filters', details: { setting: 'ANSWER_MAX_RECORDS', limit: 50000 } },
  UnsupportedMediaType: { status: 415, name: 'UnsupportedMediaTypeError', description: 'The body is neither JSON (application/json, or any +json type such as application/merge-patch+json, read as JSON) nor multipart/form-data.', message: 'unsupported content type "text/plain"; send application/json (or another +json type)', details: {} },
  ValidationFailed: { status: 422, name: 'ValidationError', description: 'The body failed validation: `details.fields.<name>` lists the messages per field; bulk calls add `details.errors: [{index, fields}]` and prefix each message of `details.fields` with its item (`item 1: must be string`).', message: 'invalid fee-type', details: { fields: { feeType: ['is required'], latePaymentFees: ['must be >= 0'] } } },
  QueryTimeout: { status: 504, name: 'QueryTimeoutError', description: 'A database statement ran longer than QUERY_TIMEOUT and the database stopped it: the query is too costly (narrow it); the database is fine.', message: 'the query ran longer than the per-query time limit (setting QUERY_TIMEOUT) and was stopped; narrow it (fewer relation conditions, a smaller limit) and try again', details: { limit: 'queryTimeout', setting: 'QUERY_TIMEOUT' } },
  TooManyRequests: { status: 429, name: 'RateLimitedError', description: 'Rate limited; or, on record endpoints, more of this caller\'s requests are running and waiting than CALLER_CONCURRENCY + CALLER_QUEUE allow (`details.limit: callerConcurrency`). Retry after the `Retry-After` seconds.', message: 'too many attempts; retry later', details: { retryAfterSeconds: 30 } },
  ServiceUnavailable: {
    status: 503,
    name: 'WriteConflictError',
    description:
      'Try again after the `Retry-After` seconds. `WriteConflictError` (writes): the write collided with concurrent writes to the same records (a deadlock or serialization failure the database broke, or a lock not had in time; `details.reason`) and was rolled back, nothing was written: send it again. `ServiceBusyError`: every pooled database connection stayed in use by other requests (`details.setting: DATABASE_POOL_MAX`), nothing of the request ran; or (reads) the node holds ANSWER_BUFFER_MAX_BYTES of answers their clients have not taken yet (`details.setting: ANSWER_BUFFER_MAX_BYTES`), nothing was changed. `ServiceUnavailableError`: the database is unavailable, or this caller\'s turn did not come within CALLER_QUEUE_TIMEOUT (`details.setting`).',
    message: 'the write collided with concurrent writes to the same records and was rolled back; nothing was written: send it again',
    details: { reason: 'deadlock', retryable: true, retryAfterSeconds: 1 },
  },
} as const;
export type ErrorResponseName = keyof typeof ERROR_RESPONSES;
export const errorStatus = (name: ErrorResponseName): number => ERROR_RESPONSES[name].status;
export const DEFAULT_ERROR = lastSegment(OPENAPI_REFS.responses.error);

const fieldMessages: Schema = {
  type: 'object',
  description: 'Field name → messages.',
  additionalProperties: { type: 'array', items: { type: 'string' } },
};

/** `{ error: { status, name, message, details } }` with the given status and details schemas. */
function errorBody(status: Schema, details: Schema, description: string): Schema {
  return {
    type: 'object',
    description,
    required: ['error'],
    additionalProperties: false,
    properties: {
      error: {
        type: 'object',
        required: ['status', 'name', 'message', 'details'],
        additionalProperties: false,
        properties: {
          status: { ...status, description: 'The HTTP status again.' },
          name: { type: 'string', description: 'Error class, e.g. `ValidationError`.' },
          message: { type: 'string', description: 'What went wrong, naming the parameter or field.' },
          details,
        },
      },
    },
  };
}

function sharedSchemas(): Record<string, Schema> {
  return {
    [ERROR_SCHEMA]: errorBody({ type: 'integer', minimum: 400, maximum: 599 }, schemaRef('ErrorDetails'), 'Error body of every failed call (spec 7).'),
    ErrorDetails: {
      type: 'object',
      description: 'Machine-readable details; the keys present depend on the error.',
      properties: {
        fields: { ...fieldMessages, description: 'Validation and unique conflicts: field name → messages (spec 7).' },
        errors: {
          type: 'array',
          description: 'Bulk calls: the failing items by index.',
          items: { type: 'object', required: ['index', 'fields'], additionalProperties: false, properties: { index: { type: 'integer', minimum: 0 }, fields: fieldMessages } },
        },
        parameter: { type: 'string', description: 'The offending query parameter path, e.g. `filters[feeType][$foo]`.' },
        missingIds: { type: 'array', items: { type: 'integer' }, description: 'Bulk delete / recover: ids that name no (archived) record.' },
        retryAfterSeconds: { type: 'number', description: '429, 503 WriteConflictError: seconds until a retry may succeed.' },
        reason: { type: 'string', description: '503 WriteConflictError: `deadlock`, `serialization` or `lockTimeout`.' },
      },
      additionalProperties: true,
    },
    ListMeta: {
      type: 'object',
      description: 'Paging of a list (spec 2.4); when grouping, totalRecords counts groups.',
      required: ['totalRecords', 'currentPage', 'totalPages'],
      additionalProperties: false,
      properties: {
        totalRecords: { type: 'integer', minimum: 0, description: 'Matching records (grouped: groups), without paging.' },
        currentPage: { type: 'integer', minimum: 1 },
        totalPages: { type: 'integer', minimum: 0 },
      },
    },
    GroupValues: {
      type: 'object',
      description: 'Values by name: group keys by their `groupBy` entry (`institute.name`, `dueDate:month`), aggregates by alias (`<field>_<function>`, `count`).',
      additionalProperties: { type: ['string', 'number', 'boolean', 'null'] },
    },
    GroupRow: {
      type: 'object',
      description: 'One group as a record of a grouped answer: one property per key, in `groupBy` order, then one per aggregate (spec 4.5).',
      additionalProperties: { type: ['string', 'number', 'boolean', 'null'] },
      examples: [{ 'institute.name': 'Springfield High', 'dueDate:month': '2026-03', latePaymentFees_sum: 12.5, id_max: 1 }],
    },
    GroupMeta: {
      type: 'object',
      description: 'One group: its key values and its aggregate values (spec 2.4).',
      required: ['groupKey', 'aggregates'],
      additionalProperties: false,
      properties: { groupKey: schemaRef('GroupValues'), aggregates: schemaRef('GroupValues') },
    },
    MediaFile: {
      type: 'object',
      description: 'A stored file of a media field (spec 2.5).',
      required: ['id', 'name', '_full_url'],
      properties: {
        id: { type: 'integer' },
        name: { type: 'string', examples: ['logo.png'] },
        _full_url: {
          type: ['string', 'null'],
          format: 'uri',
          description:
            'Where to fetch the bytes: PUBLIC_URL + /uploads/<key> (local disk), the object under S3_PUBLIC_URL (public bucket) or a presigned GET living S3_SIGNED_URL_TTL (private bucket). null in a write answer to a caller without <model>.find.',
          examples: ['http://localhost:1337/uploads/ab/ab0123456789abcdef0123456789abcd.png'],
        },
      },
    },
    CreatedBy: {
      type: 'object',
      description: 'The user who created the record (spec 2.2).',
      required: ['id'],
      additionalProperties: false,
      properties: { id: { type: 'integer' }, fullName: { type: ['string', 'null'] }, username: { type: 'string' }, email: { type: 'string', format: 'email' } },
    },
    UpdatedBy: {
      type: 'object',
      description: 'The user who last changed the record (spec 2.2).',
      required: ['id'],
      additionalProperties: false,
      properties: { id: { type: 'integer' }, fullName: { type: ['string', 'null'] }, email: { type: 'string', format: 'email' }, active: { type: 'boolean' } },
    },
    IdList: {
      type: 'array',
      description: `Record ids (bulk delete / recover), at most ${MAX_BULK_IDS}, each once.`,
      minItems: 1,
      maxItems: MAX_BULK_IDS,
      uniqueItems: true,
      items: { type: 'integer', minimum: 1 },
      examples: [[1, 2]],
    },
    HealthStatus: {
      type: 'object',
      required: ['status'],
      additionalProperties: false,
      properties: {
        status: { type: 'string', enum: ['ok', 'ready', 'unavailable'] },
        pool: { type: 'string', enum: ['busy'], description: 'Every pooled database connection is in use (DATABASE_POOL_MAX); the database answered on a connection of its own.' },
      },
    },
  };
}

function errorResponse(r: (typeof ERROR_RESPONSES)[ErrorResponseName]): Record<string, unknown> {
  return {
    description: r.description,
    ...((r.status === 429 || r.status === 503) && { headers: { 'Retry-After': { description: 'Seconds to wait before retrying.', schema: { type: 'integer', minimum: 1 } } } }),
    content: {
      'application/json': {
        // spec 7 body with the status pinned; 422 always carries details.fields
        schema: errorBody({ type: 'integer', const: r.status }, r.status === 422 ? { allOf: [schemaRef('ErrorDetails'), { required: ['fields'] }] } : schemaRef('ErrorDetails'), r.description),
        example: { error: { status: r.status, name: r.name, message: r.message, details: r.details } },
      },
    },
  };
}

/** The shared part of `components`; models and fragments add to it. */
export function sharedComponents(): OpenApiComponents {
  const responses: Record<string, unknown> = {};
  for (const [name, r] of Object.entries(ERROR_RESPONSES)) responses[name] = errorResponse(r);
  responses[DEFAULT_ERROR] = {
    description: 'Any other failure, e.g. 405 for a method the path does not take or 500 (a logged internal fault that names the request id).',
    content: { 'application/json': { schema: schemaRef(ERROR_SCHEMA), example: { error: { status: 500, name: 'InternalServerError', message: 'internal server error (request 7f3c…)', details: {} } } } },
  };
  return {
    schemas: sharedSchemas(),
    responses,
    parameters: {},
    requestBodies: {},
    headers: {},
    examples: {},
    securitySchemes: {
      [BEARER]: {
        type: 'http',
        scheme: 'bearer',
        description: 'Either the `accessToken` of a password sign-in (`POST /api/iam/authenticate`) or an OTP login confirmation (spec 5.1), a JWT; or an API token (`ris_…`, made by an admin at `POST /api/iam/api-tokens`), which carries its own permissions and reaches the record API only.',
      },
    },
  };
}
