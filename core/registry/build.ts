/**
 * Raw YAML documents → frozen Registry. Every problem becomes a RegistryError naming the file,
 * the path inside it and the problem (`content-types/fee-type.yaml: attributes.institute.target:
 * unknown model "institue"`).
 */
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { ATTRIBUTE_KINDS } from './attribute-kinds';
import { boundsProblem } from './bounds';
import type { RawDocument } from './load';
import { linearRegExp, patternProblem } from './linear-pattern';
import { CONTENT_TYPE_META_SCHEMA, type RawAttribute, type RawContentType } from './meta-schema';
import { INHERITED_NAMES, MODEL_NAME, inheritedNameProblem, snakeCase, tableName } from './naming';
import { buildPermissions, checkWriteOptions } from './permissions';
import { RegistryError } from './registry-error';
import {
  type Attribute,
  type ContentType,
  type IndexSpec,
  type JoinTable,
  type Registry,
  type RelationAttribute,
  type ScalarAttribute,
  type ScalarType,
  PERMISSION_ROLES,
  SYSTEM_FIELDS,
} from './types';

// Defaults and examples are checked against the attribute's `pattern` too: RE2 here as everywhere.
const ajv = new Ajv({ allErrors: false, strict: true, code: { regExp: linearRegExp } });
addFormats(ajv);
const validateMeta = ajv.compile<RawContentType>(CONTENT_TYPE_META_SCHEMA);

const SYSTEM_NAMES: ReadonlySet<string> = new Set(SYSTEM_FIELDS.map((f) => f.name));

interface Draft {
  readonly doc: RawDocument;
  readonly raw: RawContentType;
  readonly name: string;
  readonly table: string;
}

function fail(doc: RawDocument, path: string, problem: string): never {
  throw new RegistryError(`${doc.file}: ${path ? `${path}: ` : ''}${problem}`);
}

function checkShape(doc: RawDocument): RawContentType {
  if (!validateMeta(doc.data)) {
    const e = validateMeta.errors?.[0];
    const path = (e?.instancePath ?? '').split('/').filter(Boolean).join('.');
    let problem = e?.message ?? 'invalid';
    if (e?.keyword === 'additionalProperties') problem = `unknown option "${String(e.params.additionalProperty)}"`;
    if (e?.keyword === 'enum') problem = `must be one of ${(e.params.allowedValues as unknown[]).join(', ')}`;
    if (e?.propertyName !== undefined) problem = `attribute name "${e.propertyName}" must be camelCase letters and digits`;
    if (e?.propertyName !== undefined && INHERITED_NAMES.has(e.propertyName)) fail(doc, `${path}.${e.propertyName}`, inheritedNameProblem(e.propertyName));
    if (e?.keyword === 'additionalProperties' && path === 'permissions') {
      problem = `unknown role "${String(e.params.additionalProperty)}" (roles: ${PERMISSION_ROLES.join(', ')}; admin holds every permission)`;
    }
    fail(doc, path, problem);
  }
  return doc.data;
}

const scalarType = (t: RawAttribute['type']): ScalarType | null =>
  t === 'media' || t === 'relation' ? null : t === 'slug' ? 'uid' : t;

const RELATION_ONLY = ['relation', 'target', 'inversedBy', 'mappedBy', 'onDelete'] as const;
const MEDIA_ONLY = ['multiple', 'allowedTypes'] as const;
const SCALAR_ONLY = ['unique', 'index', 'default', 'example', 'min', 'max', 'minLength', 'maxLength', 'pattern', 'enum', 'renamedFrom', 'keyOf'] as const;

function refuseOptions(doc: RawDocument, path: string, raw: RawAttribute, keys: readonly (keyof RawAttribute)[]): void {
  for (const k of keys) if (raw[k] !== undefined) fail(doc, `${path}.${k}`, `not allowed for type ${raw.type}`);
}

function buildScalar(doc: RawDocument, name: string, raw: RawAttribute, type: ScalarType): ScalarAttribute {
  const path = `attributes.${name}`;
  refuseOptions(doc, path, raw, [...RELATION_ONLY, ...MEDIA_ONLY]);
  if (type === 'enumeration' && !raw.enum) fail(doc, `${path}.enum`, 'required for type enumeration');
  if (type !== 'enumeration' && raw.enum) fail(doc, `${path}.enum`, `not allowed for type ${raw.type}`);
  if (raw.pattern !== undefined) {
    const problem = patternProblem(raw.pattern);
    if (problem) fail(doc, `${path}.pattern`, problem);
  }
  if (type === 'password' && raw.unique) fail(doc, `${path}.unique`, 'a password cannot be unique');
  if ((type === 'json' || type === 'text') && raw.unique) fail(doc, `${path}.unique`, `a ${type} field cannot be unique`);
  const attr: ScalarAttribute = {
    kind: 'scalar',
    name,
    type,
    column: snakeCase(name),
    required: raw.required ?? false,
    unique: raw.unique ?? false,
    index: raw.index ?? false,
    // spec: a password is private and stored hashed
    private: type === 'password' ? true : (raw.private ?? false),
    ...(raw.shownOnce === true && { shownOnce: true as const }),
    ...(raw.default !== undefined && { default: raw.default }),
    ...(raw.min !== undefined && { min: raw.min }),
    ...(raw.max !== undefined && { max: raw.max }),
    ...(raw.minLength !== undefined && { minLength: raw.minLength }),
    ...(raw.maxLength !== undefined && { maxLength: raw.maxLength }),
    ...(raw.pattern !== undefined && { pattern: raw.pattern }),
    ...(raw.enum !== undefined && { enum: raw.enum }),
    ...(raw.renamedFrom !== undefined && { renamedFrom: raw.renamedFrom }),
    ...(raw.keyOf !== undefined && { keyOf: raw.keyOf }),
    ...(raw.description !== undefined && { description: raw.description }),
    ...(raw.example !== undefined && { example: raw.example }),
  };
  const bounds = boundsProblem(attr);
  if (bounds) fail(doc, `${path}.${bounds[0]}`, bounds[1]);
  for (const key of ['default', 'example'] as const) {
    if (raw[key] === undefined) continue;
    const check = ajv.compile(ATTRIBUTE_KINDS[type].schema(attr));
    if (!check(raw[key])) fail(doc, `${path}.${key}`, `${JSON.stringify(raw[key])} ${check.errors?.[0]?.message ?? 'is not valid'}`);
    const problem = ATTRIBUTE_KINDS[type].valueProblem(raw[key]);
    if (problem) fail(doc, `${path}.${key}`, `${JSON.stringify(raw[key])} ${problem}`);
  }
  return attr;
}

/**
 * `localized` (issue 14): only on `i18n: true` models; relations link entries, so every locale of an entry
 * shares them (always `localized: false`); a media field keeps files per locale row (no `localized: false` yet).
 */
function localizedOption(doc: RawDocument, raw: RawContentType, name: string, a: RawAttribute): { localized?: boolean } {
  const path = `attributes.${name}.localized`;
  if (a.localized !== undefined && !raw.i18n) fail(doc, path, 'only models with i18n: true have locales');
  if (!raw.i18n) return {};
  if (a.type === 'relation') {
    if (a.localized === true) fail(doc, path, 'relations link entries: every locale of an entry shares them');
    return { localized: false };
  }
  if (a.type === 'media' && a.localized === false) fail(doc, path, 'media files are kept per locale; localized: false is not supported for media');
  return { localized: a.localized ?? true };
}

function joinTableFor(owner: Draft, attrName: string, target: Draft): JoinTable {
  const ownerColumn = `${owner.table}_id`;
  const targetColumn = owner.table === target.table ? `related_${target.table}_id` : `${target.table}_id`;
  return { table: `${owner.table}_${snakeCase(attrName)}_links`, ownerColumn, targetColumn };
}

function buildRelation(doc: RawDocument, draft: Draft, name: string, raw: RawAttribute, drafts: ReadonlyMap<string, Draft>): RelationAttribute {
  const path = `attributes.${name}`;
  refuseOptions(doc, path, raw, [...SCALAR_ONLY.filter((k) => k !== 'example'), ...MEDIA_ONLY]);
  if (!raw.relation) fail(doc, `${path}.relation`, `required for type relation (${['manyToOne', 'oneToMany', 'oneToOne', 'manyToMany'].join(', ')})`);
  if (!raw.target) fail(doc, `${path}.target`, 'required for type relation');
  const target = drafts.get(raw.target);
  if (!target) fail(doc, `${path}.target`, `unknown model "${raw.target}"`);
  if (raw.inversedBy && raw.mappedBy) fail(doc, path, 'inversedBy and mappedBy exclude each other');

  const mirror = (attrName: string, key: 'inversedBy' | 'mappedBy'): RawAttribute => {
    const other = target.raw.attributes[attrName];
    if (!other || other.type !== 'relation' || other.target !== draft.name) {
      fail(doc, `${path}.${key}`, `model "${target.name}" has no relation "${attrName}" pointing back to "${draft.name}"`);
    }
    return other;
  };
  const kind = raw.relation;
  const targetHasUserKey = typeof target.raw.userKey === 'string';
  const base = {
    kind: 'relation' as const,
    name,
    relation: kind,
    target: target.name,
    required: raw.required ?? false,
    private: raw.private ?? false,
    onDelete: raw.onDelete ?? ('restrict' as const),
    ...(raw.description !== undefined && { description: raw.description }),
  };
  const example = raw.example;
  if (example !== undefined && !(example === null || (Number.isInteger(example) && (example as number) >= 1))) fail(doc, `${path}.example`, 'a record id (1 or more), or null: leave it out of the examples');
  const toOneOwner = (): RelationAttribute => ({
    ...base,
    ...(example !== undefined && { example: example as number | null }),
    owner: true,
    column: `${snakeCase(name)}_id`,
    joinTable: null,
    inverse: raw.inversedBy ?? null,
    idField: `${name}Id`,
    userKeyField: targetHasUserKey ? `${name}UserKey` : null,
  });

  switch (kind) {
    case 'manyToOne':
      if (raw.mappedBy) fail(doc, `${path}.mappedBy`, 'a manyToOne relation owns its column; use inversedBy');
      if (raw.inversedBy && mirror(raw.inversedBy, 'inversedBy').relation !== 'oneToMany') {
        fail(doc, `${path}.inversedBy`, `"${target.name}.${raw.inversedBy}" must be a oneToMany relation`);
      }
      return toOneOwner();
    case 'oneToMany': {
      if (!raw.mappedBy) fail(doc, `${path}.mappedBy`, `required: the manyToOne attribute of "${target.name}" that points here`);
      const other = mirror(raw.mappedBy, 'mappedBy');
      if (other.relation !== 'manyToOne') fail(doc, `${path}.mappedBy`, `"${target.name}.${raw.mappedBy}" must be a manyToOne relation`);
      if (raw.required) fail(doc, `${path}.required`, 'the inverse side of a relation cannot be required');
      return { ...base, owner: false, column: null, joinTable: null, inverse: raw.mappedBy, idField: null, userKeyField: null };
    }
    case 'oneToOne': {
      if (!raw.mappedBy) {
        if (raw.inversedBy && mirror(raw.inversedBy, 'inversedBy').relation !== 'oneToOne') fail(doc, `${path}.inversedBy`, 'must name a oneToOne relation');
        return toOneOwner();
      }
      const other = mirror(raw.mappedBy, 'mappedBy');
      if (other.relation !== 'oneToOne' || other.mappedBy) fail(doc, `${path}.mappedBy`, `"${target.name}.${raw.mappedBy}" must be the owning oneToOne side`);
      return { ...base, owner: false, column: null, joinTable: null, inverse: raw.mappedBy, idField: null, userKeyField: null };
    }
    case 'manyToMany': {
      if (!raw.mappedBy) {
        if (raw.inversedBy && mirror(raw.inversedBy, 'inversedBy').relation !== 'manyToMany') fail(doc, `${path}.inversedBy`, 'must name a manyToMany relation');
        return { ...base, owner: true, column: null, joinTable: joinTableFor(draft, name, target), inverse: raw.inversedBy ?? null, idField: null, userKeyField: null };
      }
      const other = mirror(raw.mappedBy, 'mappedBy');
      if (other.relation !== 'manyToMany' || other.mappedBy) fail(doc, `${path}.mappedBy`, `"${target.name}.${raw.mappedBy}" must be the owning manyToMany side`);
      const owned = joinTableFor(target, raw.mappedBy, draft);
      return { ...base, owner: false, column: null, joinTable: { table: owned.table, ownerColumn: owned.targetColumn, targetColumn: owned.ownerColumn }, inverse: raw.mappedBy, idField: null, userKeyField: null };
    }
  }
}

function buildModel(draft: Draft, drafts: ReadonlyMap<string, Draft>): ContentType {
  const { doc, raw } = draft;
  const attributes: Attribute[] = [];
  const taken = new Map<string, string>();
  const claim = (fieldName: string, by: string): void => {
    if (SYSTEM_NAMES.has(fieldName)) fail(doc, `attributes.${by}`, `"${fieldName}" is a system field name`);
    if (INHERITED_NAMES.has(fieldName)) fail(doc, `attributes.${by}`, inheritedNameProblem(fieldName));
    const prior = taken.get(fieldName);
    if (prior !== undefined) fail(doc, `attributes.${by}`, `"${fieldName}" clashes with attribute "${prior}"`);
    taken.set(fieldName, by);
  };
  for (const [name, rawAttr] of Object.entries(raw.attributes)) {
    claim(name, name);
    const localized = localizedOption(doc, raw, name, rawAttr);
    const st = scalarType(rawAttr.type);
    const write = checkWriteOptions(rawAttr, `attributes.${name}`, (p, m) => fail(doc, p, m));
    if (st) {
      attributes.push({ ...buildScalar(doc, name, rawAttr, st), ...write, ...localized });
    } else if (rawAttr.type === 'media') {
      refuseOptions(doc, `attributes.${name}`, rawAttr, [...RELATION_ONLY, ...SCALAR_ONLY]);
      attributes.push({
        kind: 'media',
        name,
        multiple: rawAttr.multiple ?? false,
        allowedTypes: rawAttr.allowedTypes ?? [],
        required: rawAttr.required ?? false,
        private: rawAttr.private ?? false,
        ...(rawAttr.description !== undefined && { description: rawAttr.description }),
        ...write,
        ...localized,
      });
    } else {
      const rel = buildRelation(doc, draft, name, rawAttr, drafts);
      if (rawAttr.example !== undefined && !rel.idField) fail(doc, `attributes.${name}.example`, 'only the owning side of a to-one relation (manyToOne, oneToOne) takes an example');
      if (rel.idField) claim(rel.idField, name);
      if (rel.userKeyField) claim(rel.userKeyField, name);
      if (write.writeAction !== undefined && (!rel.owner || rel.private)) fail(doc, `attributes.${name}.writeAction`, 'this relation is not written through the API (an inverse or private side)');
      attributes.push({ ...rel, ...write, ...localized });
    }
  }
  const columns = new Map<string, string>();
  for (const a of attributes) {
    const col = a.kind === 'scalar' ? a.column : a.kind === 'relation' ? a.column : null;
    if (!col) continue;
    const prior = columns.get(col);
    if (prior) fail(doc, `attributes.${a.name}`, `column "${col}" clashes with attribute "${prior}"`);
    if (SYSTEM_FIELDS.some((f) => f.column === col)) fail(doc, `attributes.${a.name}`, `column "${col}" is a system column`);
    columns.set(col, a.name);
  }
  const byName = new Map(attributes.map((a) => [a.name, a] as const));
  if (raw.userKey !== undefined) {
    const key = byName.get(raw.userKey);
    if (!key || key.kind !== 'scalar') fail(doc, 'userKey', `"${raw.userKey}" is not a scalar attribute of this model`);
    if (!key.unique || !key.required) fail(doc, 'userKey', `"${raw.userKey}" must be required and unique`);
  }
  for (const a of attributes) if (a.kind === 'scalar' && a.keyOf !== undefined) checkKeyOf(doc, a, byName);
  const indexes: IndexSpec[] = (raw.indexes ?? []).map((ix, i) => ({
    unique: ix.unique ?? false,
    columns: ix.columns.map((field, j) => {
      const a = byName.get(field);
      const sys = SYSTEM_FIELDS.find((f) => f.name === field);
      const col = sys ? sys.column : a && a.kind === 'scalar' ? a.column : a && a.kind === 'relation' ? a.column : null;
      if (!col) fail(doc, `indexes.${i}.columns.${j}`, `"${field}" is not a column of this model`);
      return col;
    }),
  }));
  return {
    name: draft.name,
    displayName: raw.displayName ?? draft.name,
    description: raw.description ?? '',
    table: draft.table,
    softDelete: raw.softDelete ?? false,
    i18n: raw.i18n ?? false,
    ...(raw.draftAndPublish === true && { draftAndPublish: true }),
    userKey: raw.userKey ?? null,
    attributes,
    byName,
    indexes,
    source: doc.file,
    plugin: doc.plugin,
    internal: raw.internal ?? false,
    api: raw.api ?? true,
    ...buildPermissions(raw, attributes, (p, m) => fail(doc, p, m)),
  };
}

/** `keyOf` names another scalar attribute of the model, on a unique attribute only the server writes. */
function checkKeyOf(doc: RawDocument, a: ScalarAttribute, byName: ReadonlyMap<string, Attribute>): void {
  const path = `attributes.${a.name}.keyOf`;
  const of = byName.get(a.keyOf ?? '');
  if (!of || of.kind !== 'scalar' || of === a) fail(doc, path, `"${a.keyOf}" is not another scalar attribute of this model`);
  if (!a.unique || a.writable !== false) fail(doc, path, 'only a unique attribute the server writes (writable: false) is a key of another');
}

function deepFreeze<T>(o: T): T {
  if (o !== null && typeof o === 'object' && !Object.isFrozen(o)) {
    Object.freeze(o);
    if (o instanceof Map) for (const v of o.values()) deepFreeze(v);
    else for (const v of Object.values(o)) deepFreeze(v);
  }
  return o;
}

/**
 * Checks every document and builds the immutable registry. `reserved`: model names that `/api/<name>`
 * routes of core or a plugin hold (core/api-segments.ts), each with what holds it.
 */
export function buildRegistry(docs: readonly RawDocument[], reserved: ReadonlyMap<string, string> = new Map()): Registry {
  const drafts = new Map<string, Draft>();
  const tables = new Map<string, string>();
  for (const doc of docs) {
    const raw = checkShape(doc);
    const name = raw.name ?? doc.stem;
    if (!MODEL_NAME.test(name)) fail(doc, 'name', `"${name}" must be lower-case words joined by hyphens`);
    const holder = reserved.get(name);
    if (holder !== undefined) fail(doc, 'name', `model name "${name}" is reserved: /api/${name} is taken by ${holder}; choose another name`);
    const prior = drafts.get(name);
    if (prior) fail(doc, 'name', `model "${name}" is already declared in ${prior.doc.file}`);
    const table = raw.table ?? tableName(name);
    const tablePrior = tables.get(table);
    if (tablePrior) fail(doc, 'table', `table "${table}" is already used by model "${tablePrior}"`);
    tables.set(table, name);
    drafts.set(name, { doc, raw, name, table });
  }
  const contentTypes = [...drafts.values()].map((d) => buildModel(d, drafts));
  const byName = new Map(contentTypes.map((c) => [c.name, c] as const));
  for (const ct of contentTypes) {
    for (const a of ct.attributes) {
      if (a.kind !== 'relation' || !a.owner || a.relation !== 'manyToMany') continue;
      const join = a.joinTable?.table ?? '';
      if (tables.has(join)) throw new RegistryError(`${ct.source}: attributes.${a.name}: join table "${join}" clashes with a model table`);
    }
  }
  const registry: Registry = { contentTypes, get: (name) => byName.get(name) };
  return deepFreeze(registry);
}
