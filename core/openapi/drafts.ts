/**
 * Issue 14 in the OpenAPI document: `status` on Find / FindOne (every model, once the registry has a
 * `draftAndPublish` model: a populate may reach one), `status=published` on the creates of draft-enabled
 * models, the publish / unpublish endpoints, and `_status` / `_hasUnpublishedChanges` on their records.
 */
import { localeParameter } from './locales';
import { DRAFT_ROUTES } from '../drafts/routes';
import { MAX_BULK_IDS } from '../records/write-limits';
import type { ContentType, Registry } from '../registry/types';
import { modelNames } from './model-schemas';
import { BEARER, DEFAULT_ERROR, type ErrorResponseName, errorStatus } from './shared';
import { pascalCase, ref, type Schema, schemaRef } from './types';

type Parameter = Record<string, unknown>;

const anyDrafts = (registry: Registry): boolean => registry.contentTypes.some((m) => m.draftAndPublish === true);

/** The `status` parameter of Find / FindOne, or none when no model of the registry has drafts. */
export function readStatusParameters(registry: Registry): Parameter[] {
  if (!anyDrafts(registry)) return [];
  return [
    {
      name: 'status',
      in: 'query',
      description:
        'Which version to read (draft & publish, issue 14): `published` (default) = the published copy of each entry of a `draftAndPublish` model (entries never published are absent, also through `populate`, filters and grouping); `draft` = the editors\' working copies, which needs `<model>.findDrafts` on every draft-enabled model the query reaches. Models without draft & publish read the same either way.',
      schema: { type: 'string', enum: ['published', 'draft'], default: 'published' },
    },
  ];
}

/** `status=published` on a create of a draft-enabled model. */
export function createStatusParameters(model: ContentType): Parameter[] {
  if (model.draftAndPublish !== true) return [];
  return [
    {
      name: 'status',
      in: 'query',
      description: 'Omitted or `draft`: the new entry is a draft (`publishedAt` null). `published`: it is published in the same transaction (needs `<model>.publish`).',
      schema: { type: 'string', enum: ['draft', 'published'], default: 'draft' },
    },
  ];
}

/** `_status` and `_hasUnpublishedChanges` of a draft-enabled model's records. */
export function draftRecordProperties(model: ContentType): Record<string, Schema> {
  if (model.draftAndPublish !== true) return {};
  return {
    _status: { type: 'string', enum: ['published', 'draft'], readOnly: true, description: 'The version this record shows: the published copy or the working copy (draft).' },
    _hasUnpublishedChanges: { type: 'boolean', readOnly: true, description: 'True when the working copy differs from the published copy (or the entry was never published).' },
  };
}

const ERRORS: readonly ErrorResponseName[] = ['BadRequest', 'Unauthorized', 'Forbidden', 'NotFound', 'Conflict', 'TooManyRequests', 'ServiceUnavailable'];

/** The four publish / unpublish operations of a draft-enabled model. */
export function draftPaths(model: ContentType, tag: string): Record<string, Record<string, unknown>> {
  if (model.draftAndPublish !== true) return {};
  const p = pascalCase(model.name);
  const n = modelNames(model);
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of DRAFT_ROUTES) {
    const verb = r.unpublish ? 'unpublish' : 'publish';
    const responses: Record<string, unknown> = {
      '200': {
        description: r.bulk ? `The ${verb}ed records, in body order, in an envelope.` : `The record in an envelope: ${r.unpublish ? 'its working copy' : 'its published copy'}.`,
        content: { 'application/json': { schema: schemaRef(r.bulk ? n.bulkEnvelope : n.envelope) } },
      },
    };
    for (const e of ERRORS) responses[String(errorStatus(e))] = ref('responses', e);
    responses.default = ref('responses', DEFAULT_ERROR);
    const what = r.unpublish
      ? 'Unpublish: the published copy is removed (readers no longer see the entry); the working copy stays.'
      : 'Publish: the working copy (with its links and files) becomes the published copy readers see; 409 when another published entry holds one of its unique values.';
    paths[`/api/${model.name}${r.path.replace(':id', '{id}')}`] = {
      post: {
        operationId: `${verb}${r.bulk ? 'Many' : ''}${p}`,
        summary: `${r.unpublish ? 'Unpublish' : 'Publish'} ${r.bulk ? 'many' : 'a'} ${model.name} record${r.bulk ? 's' : ''}`,
        description: `${what} Needs \`${model.name}.publish\`.${r.bulk ? ` Bulk: one transaction, at most ${MAX_BULK_IDS} ids; one unknown id (404) or conflict fails the call and nothing changes; a lifecycle hook's refusal fails it with the hook's status, details.errors naming the id's index.` : ''}`,
        tags: [tag],
        security: [{ [BEARER]: [] }],
        ...(r.bulk
          ? { requestBody: { required: true, description: `Ids of the records to ${verb}.`, content: { 'application/json': { schema: schemaRef('IdList'), example: [1, 2] } } } }
          : {}),
        ...((!r.bulk || model.i18n) && {
          parameters: [
            ...(r.bulk ? [] : [{ name: 'id', in: 'path', required: true, description: 'Record id (a positive integer).', schema: { type: 'integer', minimum: 1 } }]),
            ...(model.i18n ? [localeParameter('publish')] : []),
          ],
        }),
        responses,
      },
    };
  }
  return paths;
}
