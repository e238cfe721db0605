/** The registry: frozen, read-only description of every model. Everything else is derived from it. */

export const SCALAR_TYPES = [
  'string', 'text', 'email', 'uid', 'integer', 'biginteger', 'decimal', 'float',
  'boolean', 'date', 'datetime', 'time', 'enumeration', 'json', 'password',
] as const;
export type ScalarType = (typeof SCALAR_TYPES)[number];

export const RELATION_KINDS = ['manyToOne', 'oneToMany', 'oneToOne', 'manyToMany'] as const;
export type RelationKind = (typeof RELATION_KINDS)[number];

/** The record actions a permission names: `<model>.<action>` (CONTRACT: Roles and permissions). */
export const RECORD_ACTIONS = ['find', 'findOne', 'create', 'update', 'delete', 'recover'] as const;
export type RecordAction = (typeof RECORD_ACTIONS)[number];

/**
 * The actions a `draftAndPublish` model adds (issue 14): `publish` guards publish / unpublish and a
 * create that publishes at once; `findDrafts` guards reading the working copies (`status=draft`).
 */
export const DRAFT_ACTIONS = ['publish', 'findDrafts'] as const;

/**
 * The roles a model's YAML `permissions:` may grant to (CONTRACT: the seeded roles). `admin` holds every
 * permission anyway; other roles are made and granted through the API or the CLI.
 */
export const PERMISSION_ROLES = ['public', 'authenticated'] as const;
export type PermissionRole = (typeof PERMISSION_ROLES)[number];

interface AttributeBase {
  /** API name (camelCase). */
  readonly name: string;
  readonly required: boolean;
  /** Never returned, filtered, sorted, grouped or populated. */
  readonly private: boolean;
  /** Free text for the documentation (OpenAPI `description`). */
  readonly description?: string;
  /** False (YAML `writable: false`): set by the server only; no record API body may name it. Absent: true. */
  readonly writable?: boolean;
  /**
   * YAML `writeAction`: writing this attribute through the record API needs `<model>.<writeAction>`
   * besides create / update (e.g. `user.assignRoles` guards `user.roles`). Absent: no extra permission.
   */
  readonly writeAction?: string;
  /**
   * Models with `i18n: true` (issue 14): false (YAML `localized: false`) when every locale of an entry shares
   * the value, e.g. a price. Relations are always shared (they link entries); absent: true.
   */
  readonly localized?: boolean;
}

export interface ScalarAttribute extends AttributeBase {
  /**
   * YAML `shownOnce: true` on a private attribute: the server sets it at creation and the creation
   * answer alone carries it (a webhook's signing secret); documented as an optional answer field.
   */
  readonly shownOnce?: true;
  readonly kind: 'scalar';
  readonly type: ScalarType;
  readonly column: string;
  readonly unique: boolean;
  readonly index: boolean;
  readonly default?: unknown;
  readonly min?: number;
  readonly max?: number;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly pattern?: string;
  readonly enum?: readonly string[];
  /** A declared rename: the migration renames this column instead of drop + add. */
  readonly renamedFrom?: string;
  /**
   * YAML `keyOf: username` on a unique, server-only attribute: it holds a key the server derives from
   * `username` (e.g. its lower-cased form), so a unique conflict on it is answered as one on `username`
   * (409 naming the field the client wrote, never the hidden key).
   */
  readonly keyOf?: string;
  /** A sample value for the documentation (OpenAPI `example`); checked against the attribute at boot. */
  readonly example?: unknown;
}

export interface MediaAttribute extends AttributeBase {
  readonly kind: 'media';
  readonly multiple: boolean;
  /** MIME patterns such as `image/*`; empty: any type. */
  readonly allowedTypes: readonly string[];
}

export interface JoinTable {
  readonly table: string;
  /** Column pointing at the owning model's row. */
  readonly ownerColumn: string;
  /** Column pointing at the target model's row. */
  readonly targetColumn: string;
}

export interface RelationAttribute extends AttributeBase {
  readonly kind: 'relation';
  readonly relation: RelationKind;
  /** Target model name. */
  readonly target: string;
  /** True when this side stores the link (a column here or the join table). */
  readonly owner: boolean;
  /** Owning to-one: the foreign-key column on this table. */
  readonly column: string | null;
  /** manyToMany: the join table (for an inverse side, the owner's table seen from the owner). */
  readonly joinTable: JoinTable | null;
  /** The attribute on the target that mirrors this one (inversedBy / mappedBy). */
  readonly inverse: string | null;
  /** Owning to-one: the body names `<name>Id` and `<name>UserKey`. */
  readonly idField: string | null;
  readonly userKeyField: string | null;
  readonly onDelete: 'restrict' | 'set null' | 'cascade';
  /** YAML `example` on an owning to-one relation: the id /docs examples give; null: write examples leave it out. */
  readonly example?: number | null;
}

export type Attribute = ScalarAttribute | MediaAttribute | RelationAttribute;

export interface IndexSpec {
  readonly columns: readonly string[];
  readonly unique: boolean;
}

export interface ContentType {
  /** Path name: lower-case, hyphenated (`fee-type`). */
  readonly name: string;
  readonly displayName: string;
  readonly description: string;
  readonly table: string;
  readonly softDelete: boolean;
  /** YAML `i18n: true` (issue 14): each locale of an entry is a row of its own (`localeName`, `defaultEntityLocaleId`). */
  readonly i18n: boolean;
  /**
   * YAML `draftAndPublish: true` (issue 14): the table holds the editors' working copy (the draft) and a
   * shadow table `<table>__published` the published copy of each entry (core/drafts/). Absent: false.
   */
  readonly draftAndPublish?: boolean;
  /** Attribute name of the alternative key other models may use to name a record. */
  readonly userKey: string | null;
  readonly attributes: readonly Attribute[];
  readonly byName: ReadonlyMap<string, Attribute>;
  readonly indexes: readonly IndexSpec[];
  /** The YAML file it came from (for messages). */
  readonly source: string;
  /** The plugin that contributed it, or null for content-types/. */
  readonly plugin: string | null;
  /** Models only admins reach by default (plugin models). */
  readonly internal: boolean;
  /** False: the model gets tables and migrations but no REST routes (plugin-internal state such as sessions). */
  readonly api: boolean;
  /** Every action a permission of this model may name: the record actions, then the attributes' `writeAction`s. */
  readonly actions: readonly string[];
  /** YAML `permissions:` per seeded role: the actions it grants (none when the YAML says nothing: admin only). */
  readonly grants: Readonly<Record<PermissionRole, readonly string[]>>;
}

export interface Registry {
  readonly contentTypes: readonly ContentType[];
  get(name: string): ContentType | undefined;
}

/** bcrypt reads at most 72 bytes: a longer `password` value is refused, never truncated (CONTRACT: Identity). */
export const PASSWORD_MAX_BYTES = 72;

/** Columns every model's table has (spec 2.2). `type` drives query coercion and serialization. */
export const SYSTEM_FIELDS = [
  { name: 'id', column: 'id', type: 'integer' },
  { name: 'createdAt', column: 'created_at', type: 'datetime' },
  { name: 'updatedAt', column: 'updated_at', type: 'datetime' },
  { name: 'deletedAt', column: 'deleted_at', type: 'datetime' },
  { name: 'deletedTracker', column: 'deleted_tracker', type: 'string' },
  { name: 'publishedAt', column: 'published_at', type: 'datetime' },
  { name: 'localeName', column: 'locale_name', type: 'string' },
  { name: 'defaultEntityLocaleId', column: 'default_entity_locale_id', type: 'integer' },
  { name: 'createdById', column: 'created_by_id', type: 'integer' },
  { name: 'updatedById', column: 'updated_by_id', type: 'integer' },
] as const satisfies readonly { name: string; column: string; type: ScalarType }[];
export type SystemField = (typeof SYSTEM_FIELDS)[number];

/** `deletedTracker` of an active record; unique columns of soft-delete models are unique with it (spec 3.1 rule 2). */
export const NOT_DELETED = 'not-deleted';
/** `deletedTracker` of an archived record as answers show it (spec 3.1). */
export const DELETED = 'deleted';
