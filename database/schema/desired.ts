/** Registry → the tables, columns and indexes it needs (pure). */
import { createHash } from 'node:crypto';
import { ATTRIBUTE_KINDS } from '../../core/registry/attribute-kinds';
import { foldColumnName, isFolded } from '../../core/registry/fold';
import { snakeCase } from '../../core/registry/naming';
import { type Attribute, type ContentType, NOT_DELETED, type Registry, type ScalarType } from '../../core/registry/types';
import { MEDIA_TABLE, PUBLISHED_MEDIA_TABLE, mediaTableDef } from '../../core/media/table';
import { EVENTS_TABLE, eventsTableDef } from '../../core/events/table';
import { publishedTable } from '../../core/drafts/names';
import type { ColumnDef, ColumnRules, IndexDef, SchemaDef, TableDef } from './types';

const TIMESTAMP = { method: 'timestamp', args: [{ useTz: true, precision: 3 }] } as const;

/** Index names stay within PostgreSQL's 63 bytes; a hash keeps long ones distinct. */
export function indexName(table: string, columns: readonly string[], unique: boolean): string {
  const name = `${table}_${columns.join('_')}_${unique ? 'unique' : 'index'}`;
  if (name.length <= 63) return name;
  const hash = createHash('sha1').update(name).digest('hex').slice(0, 8);
  return `${name.slice(0, 54)}_${hash}`;
}

function systemColumns(): ColumnDef[] {
  return [
    { name: 'id', spec: { method: 'increments', args: [] }, nullable: false },
    { name: 'created_at', spec: TIMESTAMP, nullable: false },
    { name: 'updated_at', spec: TIMESTAMP, nullable: false },
    { name: 'deleted_at', spec: TIMESTAMP, nullable: true },
    { name: 'deleted_tracker', spec: { method: 'string', args: [64] }, nullable: false, default: NOT_DELETED },
    { name: 'published_at', spec: TIMESTAMP, nullable: true },
    { name: 'locale_name', spec: { method: 'string', args: [32] }, nullable: true },
    { name: 'default_entity_locale_id', spec: { method: 'integer', args: [] }, nullable: true },
    { name: 'created_by_id', spec: { method: 'integer', args: [] }, nullable: true },
    { name: 'updated_by_id', spec: { method: 'integer', args: [] }, nullable: true },
  ];
}

function dbDefault(v: unknown): string | number | boolean | undefined {
  return typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? v : undefined;
}

/** Types whose stored value is the text the rules count (a password's column holds its hash). */
const LENGTH_RULED: ReadonlySet<ScalarType> = new Set(['string', 'text', 'email', 'uid']);
const RANGE_RULED: ReadonlySet<ScalarType> = new Set(['integer', 'biginteger', 'decimal', 'float']);

/** The rules of an attribute's column that rows can be counted against (database/schema/row-checks.ts). */
export function columnRules(ct: ContentType, a: Attribute): ColumnRules {
  const scalar = a.kind === 'scalar' ? a : null;
  const lengths = scalar !== null && LENGTH_RULED.has(scalar.type);
  const range = scalar !== null && RANGE_RULED.has(scalar.type);
  return {
    model: ct.name,
    field: a.name,
    ...(a.required && { required: true as const }),
    ...(scalar?.type === 'enumeration' && scalar.enum !== undefined && { enum: [...scalar.enum] }),
    ...(lengths && scalar.minLength !== undefined && { minLength: scalar.minLength }),
    ...(lengths && scalar.maxLength !== undefined && { maxLength: scalar.maxLength }),
    ...(range && scalar.min !== undefined && { min: scalar.min }),
    ...(range && scalar.max !== undefined && { max: scalar.max }),
  };
}

function modelTable(ct: ContentType, registry: Registry, table: string = ct.table): TableDef {
  const columns = systemColumns();
  const indexes: IndexDef[] = [];
  const addIndex = (cols: string[], unique: boolean, nullsFirst = false): void => {
    const name = indexName(table, cols, unique);
    if (!indexes.some((i) => i.name === name)) indexes.push({ name, columns: cols, unique, ...(nullsFirst && { nullsFirst }) });
  };
  // spec 3.1 rule 2: on soft-delete models a unique value is unique together with deleted_tracker.
  // Issue 14: on i18n models a unique value is unique per locale (each locale of an entry is a row).
  const uniqueCols = (col: string): string[] => [col, ...(ct.i18n ? ['locale_name'] : []), ...(ct.softDelete ? ['deleted_tracker'] : [])];
  for (const a of ct.attributes) {
    if (a.kind === 'scalar') {
      const def = dbDefault(a.default);
      columns.push({
        name: a.column,
        spec: ATTRIBUTE_KINDS[a.type].column(a),
        nullable: true,
        ...(def !== undefined && a.type !== 'json' && { default: def }),
        ...(a.renamedFrom !== undefined && { renamedFrom: snakeCase(a.renamedFrom) }),
        rules: columnRules(ct, a),
      });
      if (isFolded(ct, a)) {
        // The hidden case-fold of the value (core/registry/fold.ts); `text`: folding may lengthen it (ß → ss).
        columns.push({
          name: foldColumnName(a.column),
          spec: { method: 'text', args: [] },
          nullable: true,
          foldOf: a.column,
          ...(a.renamedFrom !== undefined && { renamedFrom: foldColumnName(snakeCase(a.renamedFrom)) }),
        });
      }
      if (a.unique) addIndex(uniqueCols(a.column), true);
      // Issue 17: on soft-delete models an `index: true` column is indexed with the tracker and id, so an
      // equality filter on it counts the active rows and reads a page in id order from the index alone;
      // its NULLs first, as the service sorts, so a sort by it reads the index in order on PostgreSQL too.
      else if (a.index) addIndex(ct.softDelete ? [a.column, 'deleted_tracker', 'id'] : [a.column], false, true);
    } else if (a.kind === 'relation' && a.column) {
      const target = registry.get(a.target);
      if (!target) continue;
      columns.push({ name: a.column, spec: { method: 'integer', args: [] }, nullable: true, references: { table: target.table, column: 'id', onDelete: a.onDelete }, rules: columnRules(ct, a) });
      if (a.relation === 'oneToOne') addIndex(uniqueCols(a.column), true);
      else addIndex([a.column], false); // foreign keys get an index by default
    }
  }
  for (const ix of ct.indexes) addIndex([...ix.columns], ix.unique);
  // The rows of one entry are looked up by its default-locale row's id (issue 14).
  if (ct.i18n) addIndex(['default_entity_locale_id', 'locale_name'], false);
  return { name: table, columns, indexes };
}

/**
 * Issue 14: a `draftAndPublish` model's published copies: `<table>__published` with the same columns,
 * ids and (separately named, separately enforced) indexes, and a published copy of each join table it
 * owns. Foreign keys of the copy point at the target's own table (the entry), as the draft's do.
 */
function publishedTables(ct: ContentType, registry: Registry): TableDef[] {
  if (ct.draftAndPublish !== true) return [];
  const shadow = { ...modelTable(ct, registry, publishedTable(ct.table)), publishedOf: ct.table, publishedModel: ct.name };
  const joins = joinTables(ct, registry).map((j) => {
    const name = publishedTable(j.name);
    return {
      name,
      publishedOf: j.name,
      columns: j.columns.map((c) => (c.references?.table === ct.table && c.name !== j.columns[2].name ? { ...c, references: { ...c.references, table: shadow.name } } : c)),
      indexes: j.indexes.map((ix) => ({ ...ix, name: indexName(name, ix.columns, ix.unique) })),
    };
  });
  return [shadow, ...joins];
}

function joinTables(ct: ContentType, registry: Registry): TableDef[] {
  const out: TableDef[] = [];
  for (const a of ct.attributes) {
    if (a.kind !== 'relation' || !a.owner || !a.joinTable) continue;
    const target = registry.get(a.target);
    if (!target) continue;
    const { table, ownerColumn, targetColumn } = a.joinTable;
    out.push({
      name: table,
      columns: [
        { name: 'id', spec: { method: 'increments', args: [] }, nullable: false },
        { name: ownerColumn, spec: { method: 'integer', args: [] }, nullable: false, references: { table: ct.table, column: 'id', onDelete: 'cascade' } },
        { name: targetColumn, spec: { method: 'integer', args: [] }, nullable: false, references: { table: target.table, column: 'id', onDelete: 'cascade' } },
      ],
      indexes: [
        { name: indexName(table, [ownerColumn, targetColumn], true), columns: [ownerColumn, targetColumn], unique: true },
        { name: indexName(table, [targetColumn], false), columns: [targetColumn], unique: false },
      ],
    });
  }
  return out;
}

/** The schema the registry needs. Tables come in dependency order (referenced tables first). */
export function desiredSchema(registry: Registry): SchemaDef {
  const tables = registry.contentTypes.flatMap((ct) => [modelTable(ct, registry), ...joinTables(ct, registry), ...publishedTables(ct, registry)]);
  // The media table exists once some model has a media field (issue 6); a model may not take its name.
  if (registry.contentTypes.some((ct) => ct.attributes.some((a) => a.kind === 'media'))) {
    const clash = tables.find((t) => t.name === MEDIA_TABLE);
    if (clash) throw new Error(`table "${MEDIA_TABLE}" is reserved for media; give the model another table name`);
    tables.push(mediaTableDef());
    const drafted = registry.contentTypes.some((ct) => ct.draftAndPublish === true && ct.attributes.some((a) => a.kind === 'media'));
    if (drafted) tables.push(mediaTableDef(PUBLISHED_MEDIA_TABLE));
  }
  // The event outbox (issue 15): every registry has it; a model may not take its name.
  if (tables.some((t) => t.name === EVENTS_TABLE)) throw new Error(`table "${EVENTS_TABLE}" is reserved for the event outbox; give the model another table name`);
  tables.push(eventsTableDef());
  return { version: 1, tables: orderByDependency(tables) };
}

/** Topological order on foreign keys; self references and cycles keep declaration order. */
export function orderByDependency(tables: readonly TableDef[]): TableDef[] {
  const byName = new Map(tables.map((t) => [t.name, t] as const));
  const done = new Set<string>();
  const visiting = new Set<string>();
  const out: TableDef[] = [];
  const visit = (t: TableDef): void => {
    if (done.has(t.name) || visiting.has(t.name)) return;
    visiting.add(t.name);
    for (const c of t.columns) {
      const dep = c.references ? byName.get(c.references.table) : undefined;
      if (dep && dep.name !== t.name) visit(dep);
    }
    visiting.delete(t.name);
    done.add(t.name);
    out.push(t);
  };
  tables.forEach(visit);
  return out;
}
