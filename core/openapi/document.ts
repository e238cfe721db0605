/**
 * registry + plugin fragments → the OpenAPI 3.1 document behind /docs and `openapi:export` (pure:
 * no I/O; the same input gives the same document). Everything per model is derived from the
 * registry: schemas (model-schemas.ts), query parameters (query-parameters.ts), the ten record
 * operations (operations.ts); errors and shared parts come from shared.ts.
 */
import type { ContentType, Registry } from '../registry/types';
import { mergeFragment, type NamedFragment } from './merge';
import { filterTypes, modelSchemas, typeFilterName, typeFilterSchema } from './model-schemas';
import { modelPaths } from './operations';
import { draftPaths } from './drafts';
import { BEARER, sharedComponents } from './shared';
import { type OpenApiDocument, schemaRef } from './types';

export interface DocumentInput {
  readonly registry: Registry;
  readonly fragments?: readonly NamedFragment[];
  readonly version?: string;
  readonly title?: string;
}

const DESCRIPTION = `Every model of the registry has the same ten record endpoints under \`/api/{model}\` (spec 4.3).

* **Auth**: protected calls carry \`Authorization: Bearer <accessToken>\` ("Authorize" above). No token on a call the public role may not make answers 401; a token without the permission \`<model>.<action>\` answers 403. A permission may hold on some rows only (a row-level rule: other records are absent from every answer, count in no total and answer 404) or on some fields only (others are absent from answers and unknown to filters, sort, groupBy and populate; writing one answers 403); admins manage these as \`/api/access-rule\` records (README: Who can see what).
* **Envelopes**: create, update, delete and recover answer \`{ statusCode, message, error, data }\`; Find answers \`{ records, meta }\`; FindOne the record itself.
* **Errors**: \`{ error: { status, name, message, details } }\`; 422 lists \`details.fields.<name>: [messages]\`.
* **Queries**: qs style, as \`qs.stringify(query, { encodeValuesOnly: true })\` writes: \`filters[feeType][$containsi]=tui&sort[0]=-createdAt&populate[0]=institute\`.`;

const HEALTH_PATHS: OpenApiDocument['paths'] = {
  '/health': {
    get: {
      operationId: 'health',
      summary: 'Liveness',
      description: 'Answers 200 while the process runs.',
      tags: ['operations'],
      security: [],
      responses: { '200': { description: 'The process runs.', content: { 'application/json': { schema: schemaRef('HealthStatus'), example: { status: 'ok' } } } } },
    },
  },
  '/health/ready': {
    get: {
      operationId: 'ready',
      summary: 'Readiness',
      description:
        'Answers 200 only while the database answers (503 otherwise). When every pooled connection is in use, the database is asked on a connection of its own: a busy pool on a live database is ready, with `pool: busy`.',
      tags: ['operations'],
      security: [],
      responses: {
        '200': {
          description: 'The database answers.',
          content: { 'application/json': { schema: schemaRef('HealthStatus'), examples: { ready: { value: { status: 'ready' } }, busy: { value: { status: 'ready', pool: 'busy' } } } } },
        },
        '503': { description: 'The database does not answer.', content: { 'application/json': { schema: schemaRef('HealthStatus'), example: { status: 'unavailable' } } } },
      },
    },
  },
};

/**
 * Builds the document.
 * @example buildOpenApiDocument({ registry, fragments: [{ plugin: 'users-permissions', fragment }] }).paths['/api/fee-type'].get.operationId // 'findFeeType'
 */
export function buildOpenApiDocument(input: DocumentInput): OpenApiDocument {
  const { registry } = input;
  const doc: OpenApiDocument = {
    openapi: '3.1.0',
    info: {
      title: input.title ?? 'Record and Identity Service',
      version: input.version ?? '0.0.0',
      description: DESCRIPTION,
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: '/', description: 'This service (same origin)' }],
    security: [{ [BEARER]: [] }],
    tags: [],
    paths: {},
    components: sharedComponents(),
  };
  const schemas = doc.components.schemas;
  for (const model of registry.contentTypes) {
    for (const [name, schema] of Object.entries(modelSchemas(model, registry))) {
      if (name in schemas) throw new Error(`OpenAPI: the schema name ${name} of model ${model.name} clashes with another component`);
      schemas[name] = schema;
    }
    for (const type of filterTypes(model)) schemas[typeFilterName(type)] ??= typeFilterSchema(type);
    if (!hasRoutes(model)) continue; // its schemas stay for relations that reach it; unreachable ones are pruned
    const tag = model.name;
    doc.tags.push({ name: tag, description: `${model.displayName}${model.description ? `: ${model.description}` : ''}${model.softDelete ? ' Soft delete: deleted records are archived and recoverable.' : ''}${model.plugin ? ` (plugin ${model.plugin})` : ''}` });
    Object.assign(doc.paths, modelPaths(model, registry, tag), draftPaths(model, tag));
  }
  Object.assign(doc.paths, HEALTH_PATHS);
  doc.tags.push({ name: 'operations', description: 'Liveness and readiness.' });
  for (const f of input.fragments ?? []) mergeFragment(doc, f);
  pruneUnreachable(doc);
  return doc;
}

/**
 * A model gets REST routes unless it says `api: false` (a registry option of the identity branch for
 * plugin-internal state such as sessions; absent here until it merges, hence the optional read).
 */
function hasRoutes(model: ContentType): boolean {
  return (model as ContentType & { readonly api?: boolean }).api !== false;
}

/**
 * Keeps only the components the paths reach (transitively): shared error responses no operation
 * uses (429 is there for plugin fragments) and schemas of route-less models nothing points at.
 */
function pruneUnreachable(doc: OpenApiDocument): void {
  const reached = new Set<string>();
  const queue: unknown[] = [doc.paths];
  while (queue.length > 0) {
    const v = queue.pop();
    if (Array.isArray(v)) for (const x of v) queue.push(x);
    else if (v !== null && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) {
        if (k === '$ref' && typeof x === 'string' && !reached.has(x)) {
          reached.add(x);
          const [, , section, name] = x.split('/');
          queue.push((doc.components as unknown as Record<string, Record<string, unknown> | undefined>)[section]?.[name]);
        } else queue.push(x);
      }
    }
  }
  for (const section of ['schemas', 'responses', 'parameters', 'requestBodies', 'headers', 'examples'] as const) {
    const entries = doc.components[section] as Record<string, unknown>;
    for (const name of Object.keys(entries)) if (!reached.has(`#/components/${section}/${name}`)) delete entries[name];
  }
}
