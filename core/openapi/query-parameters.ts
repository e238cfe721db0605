/**
 * The Find / FindOne query parameters (spec 4.3–4.5), one entry per name in query/parse.ts
 * FIND_PARAMS: a parameter added there fails to compile until it is documented here.
 */
import { defaultSelect } from '../query/check';
import { AGGREGATE_FUNCTIONS, BUCKET_FORMATS, DEFAULT_GROUP_RECORDS_LIMIT, GRANULARITIES, MAX_AGGREGATES, MAX_GROUP_KEYS, ROW_COUNT_ALIAS } from '../query/group-vocabulary';
import { DEFAULT_LIMIT, DEFAULT_POPULATE_LIMIT, MAX_LIST_PARAM, MAX_POPULATE_LIMIT, MAX_SORT_KEYS } from '../query/limits';
import { FIND_ONE_PARAMS, FIND_PARAMS } from '../query/parse';
import type { ContentType } from '../registry/types';
import { modelNames } from './model-schemas';
import { schemaRef } from './types';

type FindParam = (typeof FIND_PARAMS)[number];
type Parameter = Record<string, unknown>;

const list = (name: string, description: string, items: Record<string, unknown>, max = MAX_LIST_PARAM): Parameter => ({
  name,
  in: 'query',
  description,
  style: 'form',
  explode: true,
  schema: { type: 'array', items, maxItems: max },
});

function relationNames(model: ContentType): string[] {
  return model.attributes.filter((a) => a.kind === 'relation' && !a.private).map((a) => a.name);
}

function mediaNames(model: ContentType): string[] {
  return model.attributes.filter((a) => a.kind === 'media' && !a.private).map((a) => a.name);
}

const code = (names: readonly string[]): string => (names.length ? names.map((n) => `\`${n}\``).join(', ') : 'none');

const PARAMETERS: { readonly [K in FindParam]: (model: ContentType) => Parameter | null } = {
  limit: () => ({
    name: 'limit',
    in: 'query',
    description: `Records per page (default ${DEFAULT_LIMIT}); values above API_MAX_LIMIT (default 100) are clamped. 0 answers only \`meta\`.`,
    schema: { type: 'integer', minimum: 0, default: DEFAULT_LIMIT },
  }),
  offset: () => ({ name: 'offset', in: 'query', description: 'Records to skip (default 0). Give `offset` or `page`, not both.', schema: { type: 'integer', minimum: 0 } }),
  page: () => ({ name: 'page', in: 'query', description: 'Page number from 1, of `limit` records each (instead of `offset`).', schema: { type: 'integer', minimum: 1 } }),
  fields: (m) =>
    list(
      'fields',
      'Fields to return (`id` always comes back). Also written `fields[0]=a&fields[1]=b` or `fields=a,b`.',
      { type: 'string', enum: defaultSelect(m).map((f) => f.name) },
    ),
  sort: (m) =>
    list(
      'sort',
      `Sort keys, first wins: \`name\`, \`-name\` (descending) or \`name:ASC\` / \`name:DESC\`; dotted through to-one relations (\`${relationNames(m)[0] ?? 'relation'}.<field>\`). Also \`sort[0]=-createdAt\`. The id breaks ties. Grouped queries may sort by group keys and aggregate aliases (\`id_max\`).`,
      { type: 'string', pattern: '^-?[A-Za-z0-9_.]+(:[A-Za-z0-9_-]+)*$' },
      MAX_SORT_KEYS,
    ),
  populate: (m) =>
    list(
      'populate',
      `Relations to load: ${code(relationNames(m))}; dotted paths go deeper (\`a.b\`), \`*\` loads every relation. The object form \`populate[<relation>][fields|filters|sort|populate|limit|offset]\` narrows a populated relation. ` +
        `A to-many relation shows at most POPULATE_DEFAULT_LIMIT (default ${DEFAULT_POPULATE_LIMIT}) related records per parent; \`populate[<relation>][limit]\` (clamped to POPULATE_MAX_LIMIT, default ${MAX_POPULATE_LIMIT}) and \`populate[<relation>][offset]\` page them per parent, in the populate's \`sort\` (default: id). ` +
        `An answer past ANSWER_MAX_RECORDS records (populated ones counted each time they appear) or ANSWER_MAX_BYTES answers 413.`,
      { type: 'string' },
    ),
  populateMedia: (m) => {
    const media = mediaNames(m);
    if (media.length === 0) return null; // every value would be refused: not offered
    return list('populateMedia', 'Media fields whose files are resolved into `_media` (spec 2.5).', { type: 'string', enum: media });
  },
  filters: (m) => ({
    name: 'filters',
    in: 'query',
    description:
      'Filter expressions (spec 4.4): `filters[<field>][<operator>]=<value>`, nested through relations (`filters[<relation>][<field>][<operator>]`), ' +
      'combined with `filters[$and][0]…`, `$or`, `$not`. Lists: `filters[id][$in][0]=1&filters[id][$in][1]=2`; `$between`: `[0]` and `[1]`; `$null` / `$notNull`: `true`. ' +
      'An unknown field or operator answers 400 naming it.',
    style: 'deepObject',
    explode: true,
    schema: schemaRef(modelNames(m).filters),
    // Named examples keep Swagger UI from pre-filling "try it out" with a generated sample (which would filter everything away).
    examples: {
      none: { summary: 'no filter', value: {} },
      byId: { summary: 'id in a list', value: { id: { $in: [1, 2] } } },
    },
  }),
  showSoftDeleted: (m) => ({
    name: 'showSoftDeleted',
    in: 'query',
    description: `Archived records: \`inclusive\` = active and archived, \`exclusive\` = archived only; omitted = active only (spec 3.1)${m.softDelete ? '' : '. This model has no soft delete: nothing is ever archived'}. Needs the recover permission.`,
    schema: { type: 'string', enum: ['inclusive', 'exclusive'] },
  }),
  groupBy: () =>
    list(
      'groupBy',
      `Group keys (spec 4.5): \`<field>\`, \`<relation>.<field>\` through many-to-one relations, or a date bucket \`<field>:<${Object.keys(GRANULARITIES).join('|')}>[:<${Object.keys(BUCKET_FORMATS).join('|')}>]\` (a week is the ISO week). The answer has one record per group and \`groupMeta\`; sort, offset and limit then apply to groups.`,
      { type: 'string' },
      MAX_GROUP_KEYS,
    ),
  aggregates: () =>
    list(
      'aggregates',
      `Aggregates per group: \`<field>:<${Object.keys(AGGREGATE_FUNCTIONS).join('|')}>\`, answered under the alias \`<field>_<function>\`; none given: \`${ROW_COUNT_ALIAS}\`, the records per group.`,
      { type: 'string', pattern: `^[A-Za-z0-9_.]+:(${Object.keys(AGGREGATE_FUNCTIONS).join('|')})$` },
      MAX_AGGREGATES,
    ),
  populateGroup: () => ({
    name: 'populateGroup',
    in: 'query',
    description: 'Also return each group\'s records in `groupRecords` (not with a relation group field).',
    schema: { type: 'boolean' },
  }),
  groupFilter: () => ({
    name: 'groupFilter',
    in: 'query',
    description: `Paging and sort inside each group of \`groupRecords\`: \`groupFilter[limit]\` (default ${DEFAULT_GROUP_RECORDS_LIMIT}), \`groupFilter[offset]\`, \`groupFilter[sort][0]\` (default: id).`,
    style: 'deepObject',
    explode: true,
    schema: {
      type: 'object',
      additionalProperties: false,
      properties: { limit: { type: 'integer', minimum: 0 }, offset: { type: 'integer', minimum: 0 }, sort: { type: 'array', items: { type: 'string' }, maxItems: MAX_SORT_KEYS } },
    },
    examples: { none: { summary: 'no group paging', value: {} }, firstThree: { summary: 'three records per group', value: { limit: 3 } } },
  }),
  timezone: () => ({
    name: 'timezone',
    in: 'query',
    description: 'Time zone of datetime buckets in grouped queries: a fixed offset (`+05:30`, `-08:00`, `Z`, `UTC`; write `+` as `%2B`) or an IANA name (`Europe/Berlin`, PostgreSQL only). Default UTC.',
    schema: { type: 'string' },
  }),
};

function build(model: ContentType, names: readonly FindParam[]): Parameter[] {
  return names.map((n) => PARAMETERS[n](model)).filter((p): p is Parameter => p !== null);
}

export const findParameters = (model: ContentType): Parameter[] => build(model, FIND_PARAMS);
export const findOneParameters = (model: ContentType): Parameter[] => build(model, FIND_ONE_PARAMS);
