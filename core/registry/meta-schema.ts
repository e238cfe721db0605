/** The ajv schema a content-type YAML file must satisfy (shape only; build.ts checks meaning). */
import { ACTION_NAME, ATTRIBUTE_NAME, MODEL_NAME, SQL_IDENTIFIER } from './naming';
import { PERMISSION_ROLES, RELATION_KINDS, SCALAR_TYPES } from './types';

export const ATTRIBUTE_TYPES = [...SCALAR_TYPES, 'slug', 'media', 'relation'] as const;

const attribute = {
  type: 'object',
  required: ['type'],
  additionalProperties: false,
  properties: {
    type: { enum: ATTRIBUTE_TYPES },
    required: { type: 'boolean' },
    unique: { type: 'boolean' },
    private: { type: 'boolean' },
    index: { type: 'boolean' },
    default: {},
    example: {},
    min: { type: 'number' },
    max: { type: 'number' },
    minLength: { type: 'integer', minimum: 0 },
    maxLength: { type: 'integer', minimum: 1 },
    pattern: { type: 'string' },
    enum: { type: 'array', minItems: 1, uniqueItems: true, items: { type: 'string', minLength: 1 } },
    renamedFrom: { type: 'string', pattern: ATTRIBUTE_NAME.source },
    keyOf: { type: 'string', pattern: ATTRIBUTE_NAME.source },
    description: { type: 'string' },
    multiple: { type: 'boolean' },
    allowedTypes: { type: 'array', items: { type: 'string', pattern: '^[a-z*]+/[a-z0-9.+*-]+$' } },
    relation: { enum: RELATION_KINDS },
    target: { type: 'string' },
    inversedBy: { type: 'string' },
    mappedBy: { type: 'string' },
    onDelete: { enum: ['restrict', 'set null', 'cascade'] },
    writable: { type: 'boolean' },
    shownOnce: { type: 'boolean' },
    writeAction: { type: 'string', pattern: ACTION_NAME.source },
    localized: { type: 'boolean' },
  },
} as const;

/** `permissions: { authenticated: [find, findOne], public: [] }`: the seeded roles' grants (build.ts checks the actions). */
const permissions = {
  type: 'object',
  additionalProperties: false,
  properties: Object.fromEntries(PERMISSION_ROLES.map((r) => [r, { type: 'array', uniqueItems: true, items: { type: 'string' } }])),
} as const;

export const CONTENT_TYPE_META_SCHEMA = {
  type: 'object',
  required: ['attributes'],
  additionalProperties: false,
  properties: {
    name: { type: 'string', pattern: MODEL_NAME.source },
    displayName: { type: 'string' },
    description: { type: 'string' },
    table: { type: 'string', pattern: SQL_IDENTIFIER.source },
    softDelete: { type: 'boolean' },
    i18n: { type: 'boolean' },
    draftAndPublish: { type: 'boolean' },
    userKey: { type: 'string' },
    internal: { type: 'boolean' },
    api: { type: 'boolean' },
    permissions,
    attributes: {
      type: 'object',
      minProperties: 1,
      propertyNames: { pattern: ATTRIBUTE_NAME.source },
      additionalProperties: attribute,
    },
    indexes: {
      type: 'array',
      items: {
        type: 'object',
        required: ['columns'],
        additionalProperties: false,
        properties: {
          columns: { type: 'array', minItems: 1, items: { type: 'string' } },
          unique: { type: 'boolean' },
        },
      },
    },
  },
} as const;

export interface RawAttribute {
  type: (typeof ATTRIBUTE_TYPES)[number];
  required?: boolean;
  unique?: boolean;
  private?: boolean;
  index?: boolean;
  default?: unknown;
  example?: unknown;
  min?: number;
  max?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  enum?: string[];
  renamedFrom?: string;
  keyOf?: string;
  description?: string;
  multiple?: boolean;
  allowedTypes?: string[];
  relation?: (typeof RELATION_KINDS)[number];
  target?: string;
  inversedBy?: string;
  mappedBy?: string;
  onDelete?: 'restrict' | 'set null' | 'cascade';
  writable?: boolean;
  shownOnce?: boolean;
  writeAction?: string;
  localized?: boolean;
}

export interface RawContentType {
  name?: string;
  displayName?: string;
  description?: string;
  table?: string;
  softDelete?: boolean;
  i18n?: boolean;
  draftAndPublish?: boolean;
  userKey?: string;
  internal?: boolean;
  api?: boolean;
  permissions?: Partial<Record<(typeof PERMISSION_ROLES)[number], string[]>>;
  attributes: Record<string, RawAttribute>;
  indexes?: { columns: string[]; unique?: boolean }[];
}
