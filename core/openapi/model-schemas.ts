/**
 * One model → its component schemas: the record (readOnly system fields, relations as ids and
 * populated objects, `_media`), the write bodies (validation/compile.ts writeSchema, not a copy),
 * list and grouped list, the success envelopes of spec 2.1 / 4.3, and the filter object of spec 4.4.
 */
import { draftRecordProperties } from './drafts';
import { OPERATORS, operatorAllows, LOGICAL } from '../query/operators';
import { MAX_IN_LIST } from '../query/limits';
import { ATTRIBUTE_KINDS } from '../registry/attribute-kinds';
import { LOCALIZATIONS_PROPERTY } from './locales';
import { type Attribute, type ContentType, type MediaAttribute, type Registry, type ScalarType, SYSTEM_FIELDS, type SystemField, NOT_DELETED } from '../registry/types';
import { type WriteMode, writeSchema } from '../validation/compile';
import { scalarExample } from './examples';
import { nullable, pascalCase, type Schema, schemaRef } from './types';

/** Component names of one model's schemas. */
export function modelNames(model: ContentType) {
  const p = pascalCase(model.name);
  return {
    record: p,
    create: `${p}Create`,
    replace: `${p}Replace`,
    update: `${p}Update`,
    list: `${p}List`,
    groupedList: `${p}GroupedList`,
    envelope: `${p}Envelope`,
    bulkEnvelope: `${p}BulkEnvelope`,
    recovered: `${p}Recovered`,
    recoverEnvelope: `${p}RecoverEnvelope`,
    bulkRecoverEnvelope: `${p}BulkRecoverEnvelope`,
    filters: `${p}Filters`,
    media: `${p}Media`,
  } as const;
}

export const WRITE_SCHEMA_NAME: Readonly<Record<WriteMode, 'create' | 'replace' | 'update'>> = { create: 'create', put: 'replace', patch: 'update' };

/** Spec 2.2: what each common field means and whether it may be null. */
const SYSTEM_DOCS: { readonly [K in SystemField['name']]: { readonly description: string; readonly nullable: boolean } } = {
  id: { description: 'Record identifier.', nullable: false },
  createdAt: { description: 'When the record was created (UTC, ISO 8601).', nullable: false },
  updatedAt: { description: 'When the record last changed (UTC, ISO 8601).', nullable: false },
  deletedAt: { description: 'When the record was archived; null while active (spec 3.1).', nullable: true },
  deletedTracker: { description: '`not-deleted` while active, `deleted` when archived (spec 3.1).', nullable: false },
  publishedAt: { description: 'Publication time (spec 2.2).', nullable: true },
  localeName: { description: 'Locale of the record (spec 2.2).', nullable: true },
  defaultEntityLocaleId: { description: 'Id of the default-locale record (spec 2.2).', nullable: true },
  createdById: { description: 'Id of the user who created the record.', nullable: true },
  updatedById: { description: 'Id of the user who last changed the record.', nullable: true },
};

function systemFieldSchema(f: SystemField): Schema {
  const doc = SYSTEM_DOCS[f.name];
  const base: Schema = f.name === 'deletedTracker' ? { type: 'string', enum: [NOT_DELETED, 'deleted'] } : plainValueSchema(f.type);
  return { ...(doc.nullable ? nullable(base) : base), readOnly: true, description: doc.description };
}

/** The JSON type of a value of `type`, without the attribute's own limits (query values, system fields). */
export function plainValueSchema(type: ScalarType): Schema {
  const s = ATTRIBUTE_KINDS[type].schema({ kind: 'scalar', name: 'value', type, column: 'value', required: true, private: false, unique: false, index: false });
  if (type === 'enumeration') return { type: 'string' };
  if (type === 'password') return { type: 'string' };
  return s;
}

function described(s: Schema, description: string | undefined, example?: unknown): Schema {
  return { ...s, ...(description !== undefined && { description }), ...(example !== undefined && { examples: [example] }) };
}

function mediaAttributes(model: ContentType): MediaAttribute[] {
  return model.attributes.filter((a): a is MediaAttribute => a.kind === 'media' && !a.private);
}

export function hasMedia(model: ContentType): boolean {
  return mediaAttributes(model).length > 0;
}

function recordSchema(model: ContentType, registry: Registry): Schema {
  const names = modelNames(model);
  const properties: Record<string, Schema> = {};
  for (const f of SYSTEM_FIELDS) properties[f.name] = systemFieldSchema(f);
  for (const a of model.attributes) {
    if (a.kind === 'scalar' && a.private && a.shownOnce) {
      properties[a.name] = { ...ATTRIBUTE_KINDS[a.type].schema(a), readOnly: true, description: `${a.description ? `${a.description} ` : ''}In the creation answer only: never answered again.` };
      continue;
    }
    if (a.private) continue;
    if (a.kind === 'scalar') {
      const base = ATTRIBUTE_KINDS[a.type].schema(a);
      properties[a.name] = described(a.required ? base : nullable(base), a.description, scalarExample(a));
    } else if (a.kind === 'relation') {
      const target = registry.get(a.target);
      if (!target) continue;
      const targetRef = schemaRef(modelNames(target).record);
      const about = a.description ? `${a.description} ` : '';
      if (a.idField) {
        properties[a.idField] = { ...nullable({ type: 'integer' }), description: `Id of the related ${target.name} (relation \`${a.name}\`).` };
      }
      if (a.relation === 'oneToMany' || a.relation === 'manyToMany') {
        properties[a.name] = { type: 'array', items: targetRef, description: `${about}Related ${target.name} records; present when \`populate\` names \`${a.name}\`.` };
      } else {
        properties[a.name] = {
          anyOf: [targetRef, { type: 'null' }],
          description: `${about}The related ${target.name}; present when \`populate\` names \`${a.name}\` (write endpoints always populate it: as \`{ id }\` alone for a caller without \`${target.name}.find\`).`,
        };
      }
    }
  }
  const media = mediaAttributes(model);
  if (media.length > 0) {
    properties._media = { ...schemaRef(names.media), readOnly: true, description: 'Resolved files of the media fields `populateMedia` names (spec 2.5).' };
  }
  if (model.i18n) properties.localizations = LOCALIZATIONS_PROPERTY;
  Object.assign(properties, draftRecordProperties(model));
  properties.createdBy = { anyOf: [schemaRef('CreatedBy'), { type: 'null' }], readOnly: true, description: 'Write answers only: the creating user (null without a signed-in user).' };
  properties.updatedBy = { anyOf: [schemaRef('UpdatedBy'), { type: 'null' }], readOnly: true, description: 'Write answers only: the changing user (null without a signed-in user).' };
  return {
    type: 'object',
    description: `${model.displayName}${model.description ? `: ${model.description}` : ''} Only \`id\` is always present: \`fields\` narrows the rest.`,
    required: ['id'],
    additionalProperties: false,
    properties,
  };
}

function mediaSchema(model: ContentType): Schema {
  const properties: Record<string, Schema> = {};
  for (const a of mediaAttributes(model)) {
    properties[a.name] = { type: 'array', items: schemaRef('MediaFile'), description: a.description ?? `Files of \`${a.name}\`.` };
  }
  return { type: 'object', description: 'Media field name → its files (spec 2.5).', additionalProperties: false, properties };
}

/** An attribute with a `writeAction`: its body fields say which permission writing them needs (a PUT writes them always). */
function guarded(props: Record<string, Schema>, a: Attribute, permission: string): void {
  const fields = a.kind === 'relation' && a.idField ? [a.idField, a.userKeyField] : [a.name];
  for (const f of fields) {
    if (f === null || !props[f]) continue;
    const before = typeof props[f].description === 'string' ? `${props[f].description as string} ` : '';
    props[f] = { ...props[f], description: `${before}Writing it needs the permission \`${permission}\` (and so does every PUT of this model).` };
  }
}

/** writeSchema(model, registry, mode) with the attributes' descriptions and examples added, secrets marked writeOnly. */
function bodySchema(model: ContentType, registry: Registry, mode: WriteMode): Schema {
  const s = writeSchema(model, registry, mode);
  // `anyOf: [{}, {type: null}]` (a nullable json field) is just `{}`: any value.
  const props = Object.fromEntries(
    Object.entries(s.properties as Record<string, Schema>).map(([k, v]) => [k, Array.isArray(v.anyOf) && (v.anyOf as Schema[]).some((x) => Object.keys(x).length === 0) ? {} : v]),
  );
  for (const a of model.attributes) {
    if (a.kind === 'scalar' && props[a.name]) {
      // private fields are write-only: accepted here, never returned (a password is stored hashed)
      props[a.name] = {
        ...described(props[a.name], a.description, a.private && a.type !== 'password' ? undefined : scalarExample(a)),
        ...(a.private && { writeOnly: true }),
        ...(a.type === 'password' && { format: 'password' }),
      };
    } else if (a.kind === 'relation') {
      if (a.idField && props[a.idField]) props[a.idField] = { ...props[a.idField], description: `Id of the related ${a.target}${a.userKeyField ? ` (or give ${a.userKeyField})` : ''}.` };
      if (a.userKeyField && props[a.userKeyField]) props[a.userKeyField] = { ...props[a.userKeyField], writeOnly: true, description: `Names the related ${a.target} by its user key instead of ${a.idField}.` };
      if (a.joinTable && props[a.name]) props[a.name] = { ...props[a.name], description: `Ids of the related ${a.target} records (replaces the links).` };
    } else if (a.kind === 'media' && props[a.name]) {
      props[a.name] = { ...props[a.name], description: `Ids of the files of \`${a.name}\` to keep (null: none); new files come as multipart parts.` };
    }
    if (a.writeAction !== undefined) guarded(props, a, `${model.name}.${a.writeAction}`);
  }
  const how = { create: 'Body of a create', put: 'Body of a full update (PUT): fields left out return to their default or null', patch: 'Body of a partial update (PATCH): only the given fields change' }[mode];
  return { ...s, properties: props, description: `${how}. Read-only fields (id, createdAt, …) are ignored; unknown fields are refused (422); private fields are written, never returned.` };
}

function envelopeOf(data: Schema, description: string): Schema {
  return {
    type: 'object',
    description,
    required: ['statusCode', 'message', 'error', 'data'],
    additionalProperties: false,
    properties: {
      statusCode: { type: 'integer', const: 200, description: 'HTTP-like status, 200 on success.' },
      message: { type: 'array', items: { type: 'string' }, description: 'Empty on plain success; bulk recover puts its summary here.' },
      error: { type: 'string', const: '', description: 'Empty string on success.' },
      data,
    },
  };
}

// ---- filters (spec 4.4), derived from the operator table ----

/** The filter object for one scalar type: every operator its value class allows, plus `$and` / `$or` / `$not`. */
export function typeFilterName(type: ScalarType): string {
  return `${pascalCase(type)}Filter`;
}

export function typeFilterSchema(type: ScalarType): Schema {
  const value = plainValueSchema(type);
  const cls = ATTRIBUTE_KINDS[type].valueClass;
  const self = schemaRef(typeFilterName(type));
  const properties: Record<string, Schema> = {};
  for (const [op, spec] of Object.entries(OPERATORS)) {
    if (!operatorAllows(op as keyof typeof OPERATORS, cls)) continue;
    switch (spec.arity) {
      case 'one':
        properties[op] = value;
        break;
      case 'list':
        properties[op] = { type: 'array', items: value, maxItems: MAX_IN_LIST };
        break;
      case 'pair':
        properties[op] = { type: 'array', items: value, minItems: 2, maxItems: 2 };
        break;
      case 'flag':
        properties[op] = { type: 'boolean' };
        break;
    }
  }
  const [and, or, not] = LOGICAL;
  properties[and] = { type: 'array', items: self };
  properties[or] = { type: 'array', items: self };
  properties[not] = self;
  return {
    type: 'object',
    description: `Operators on a ${type} field. Query form: \`filters[<field>][<operator>]=<value>\`; lists \`[$in][0]=a&[$in][1]=b\`, \`$between\` \`[0]\` and \`[1]\`, \`$null=true\`.`,
    additionalProperties: false,
    properties,
  };
}

/** The scalar types that filters of `model` use (to emit only those filter components). */
export function filterTypes(model: ContentType): ScalarType[] {
  const out = new Set<ScalarType>(SYSTEM_FIELDS.map((f) => f.type));
  for (const a of model.attributes) {
    if (a.private) continue;
    if (a.kind === 'scalar' && ATTRIBUTE_KINDS[a.type].valueClass !== 'secret') out.add(a.type);
    if (a.kind === 'relation') out.add('integer');
  }
  return [...out];
}

function fieldFilter(type: ScalarType): Schema {
  // `filters[name]=x` is shorthand for `filters[name][$eq]=x` (query/parse.ts); json fields take $null / $notNull only.
  if (!operatorAllows('$eq', ATTRIBUTE_KINDS[type].valueClass)) return schemaRef(typeFilterName(type));
  return { anyOf: [schemaRef(typeFilterName(type)), plainValueSchema(type)] };
}

function filtersSchema(model: ContentType, registry: Registry): Schema {
  const self = schemaRef(modelNames(model).filters);
  const properties: Record<string, Schema> = {};
  for (const f of SYSTEM_FIELDS) properties[f.name] = fieldFilter(f.type);
  for (const a of model.attributes) {
    if (a.private) continue;
    if (a.kind === 'scalar' && ATTRIBUTE_KINDS[a.type].valueClass !== 'secret') properties[a.name] = fieldFilter(a.type);
    if (a.kind === 'relation') {
      const target = registry.get(a.target);
      if (!target) continue;
      if (a.idField) properties[a.idField] = fieldFilter('integer');
      properties[a.name] = {
        anyOf: [schemaRef(modelNames(target).filters), schemaRef(typeFilterName('integer'))],
        description: `Fields of the related ${target.name} (\`filters[${a.name}][<field>][<op>]\`), or operators on its id; on to-many relations: some related record matches.`,
      };
    }
  }
  const [and, or, not] = LOGICAL;
  properties[and] = { type: 'array', items: self, description: 'All of these match.' };
  properties[or] = { type: 'array', items: self, description: 'At least one of these matches.' };
  properties[not] = { ...self, description: 'This does not match.' };
  return {
    type: 'object',
    description: `Filters on ${model.name} (spec 4.4). Fields at one level are combined with $and. A negated comparison ($ne, $notIn, $not, …) also matches empty (NULL) values.`,
    additionalProperties: false,
    properties,
  };
}

/** Every component schema of one model, by name. */
export function modelSchemas(model: ContentType, registry: Registry): Record<string, Schema> {
  const n = modelNames(model);
  const record = schemaRef(n.record);
  const out: Record<string, Schema> = {
    [n.record]: recordSchema(model, registry),
    [n.create]: bodySchema(model, registry, 'create'),
    [n.replace]: bodySchema(model, registry, 'put'),
    [n.update]: bodySchema(model, registry, 'patch'),
    [n.list]: {
      type: 'object',
      description: `A page of ${model.name} records (spec 2.4).`,
      required: ['records', 'meta'],
      additionalProperties: false,
      properties: { records: { type: 'array', items: record }, meta: schemaRef('ListMeta') },
    },
    [n.groupedList]: {
      type: 'object',
      description: 'A grouped list (spec 2.4, 4.5): `records` has one row per group of the page, `groupMeta` one entry per group; with `populateGroup=true`, `groupRecords` holds each group with its own page of records.',
      required: ['records', 'meta', 'groupMeta'],
      additionalProperties: false,
      properties: {
        records: { type: 'array', items: schemaRef('GroupRow') },
        meta: { ...schemaRef('ListMeta'), description: 'Paging of the groups: totalRecords counts every group.' },
        groupMeta: { type: 'array', items: schemaRef('GroupMeta') },
        groupRecords: {
          type: 'array',
          items: {
            type: 'object',
            description: 'One group: its key and aggregate values, and a page of its records (`groupFilter`).',
            required: ['groupKey', 'aggregates', 'records', 'meta'],
            additionalProperties: false,
            properties: { groupKey: schemaRef('GroupValues'), aggregates: schemaRef('GroupValues'), records: { type: 'array', items: record }, meta: schemaRef('ListMeta') },
          },
        },
      },
    },
    [n.envelope]: envelopeOf(record, `Envelope whose data is one ${model.name} record (spec 2.1).`),
    [n.bulkEnvelope]: envelopeOf({ type: 'array', items: record }, `Envelope whose data lists the created ${model.name} records, in body order.`),
    [n.recovered]: {
      type: 'object',
      required: ['message', 'data'],
      additionalProperties: false,
      properties: { message: { type: 'string', examples: [`${model.name} 1 successfully recovered`] }, data: record },
    },
    [n.recoverEnvelope]: envelopeOf(schemaRef(n.recovered), 'Recover answer: data = { message, data: record } (spec 4.3).'),
    [n.bulkRecoverEnvelope]: envelopeOf({ type: 'array', items: schemaRef(n.recovered) }, 'Bulk recover answer: message = [`<n> records successfully recovered`], data = one { message, data } per record (spec 4.3).'),
    [n.filters]: filtersSchema(model, registry),
  };
  if (hasMedia(model)) out[n.media] = mediaSchema(model);
  return out;
}
