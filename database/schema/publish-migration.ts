/**
 * Issue 14: what a migration does with content when a model's `draftAndPublish` changes (pure: source
 * text). Turning it on creates `<table>__published` (and the owned join tables' copies): every existing
 * row is published, so no content disappears from readers. Turning it off drops them: first each
 * published entry's row, links and media rows are written back into the model's own tables, so the
 * published version of every entry is what stays (entries never published stay as they were).
 */
import type { MigrationOp, TableDef } from './types';
import { MEDIA_TABLE, PUBLISHED_MEDIA_TABLE } from '../../core/media/table';
import { INSERT_CHUNK_ROWS } from '../dialects/insert-rows';

const q = (v: unknown): string => JSON.stringify(v);

function shadows(ops: readonly MigrationOp[], kind: 'createTable' | 'dropTable'): TableDef[] {
  return ops.flatMap((op) => (op.op === kind && op.table.publishedOf !== undefined ? [op.table] : []));
}

/** Statements run after every other change: publish the rows of tables that existed before. */
export function publishOnLines(ops: readonly MigrationOp[]): string[] {
  const created = new Set(ops.flatMap((op) => (op.op === 'createTable' ? [op.table.name] : [])));
  return shadows(ops, 'createTable')
    .filter((t) => !created.has(t.publishedOf as string))
    .map((t) => `await publishExisting(knex, ${q(t.name)}, ${q(t.publishedOf)}, ${q(t.columns.map((c) => c.name))}, ${q(t.publishedModel ?? null)});`);
}

/** Statements run before every other change: write the published copies back before their tables go. */
export function restoreOffLines(ops: readonly MigrationOp[], kept: ReadonlySet<string>): string[] {
  return shadows(ops, 'dropTable')
    .filter((t) => kept.has(t.publishedOf as string))
    .map((t) => {
      const cols = t.columns.map((c) => c.name);
      // A join table's copy: [id, owner column, target column].
      return t.publishedModel !== undefined
        ? `await restorePublished(knex, ${q(t.name)}, ${q(t.publishedOf)}, ${q(cols)}, ${q(t.publishedModel)});`
        : `await restoreLinks(knex, ${q(t.name)}, ${q(t.publishedOf)}, ${q(t.columns[1].references?.table ?? null)}, ${q(cols[1])}, ${q(cols[2])});`;
    });
}

/** The helpers the lines above call, embedded in the migration (it must not import the service's code). */
export function publishHelpers(): string[] {
  return [
    '',
    '/** Issue 14: draftAndPublish turned on: every existing row (its links, its media rows) is published. */',
    'async function publishExisting(knex, shadow, table, columns, model) {',
    "  const list = columns.map(() => '??').join(', ');",
    '  await knex.raw(`INSERT INTO ?? (${list}) SELECT ${list} FROM ??`, [shadow, ...columns, ...columns, table]);',
    '  if (model === null) return;',
    '  const now = new Date();',
    "  await knex(table).whereNull('published_at').update({ published_at: now });",
    "  await knex(shadow).whereNull('published_at').update({ published_at: now });",
    `  if (await knex.schema.hasTable(${q(PUBLISHED_MEDIA_TABLE)})) {`,
    "    const media = ['name', 'mime', 'size', 'sha256', 'storage_key', 'model', 'field', 'record_id', 'created_at'];",
    "    const m = media.map(() => '??').join(', ');",
    `    await knex.raw(\`INSERT INTO ?? (\${m}) SELECT \${m} FROM ?? WHERE model = ?\`, [${q(PUBLISHED_MEDIA_TABLE)}, ...media, ...media, ${q(MEDIA_TABLE)}, model]);`,
    '  }',
    '}',
    '',
    '/** Issue 14: draftAndPublish turned off: each published entry becomes its published version again. */',
    'async function restorePublished(knex, shadow, table, columns, model) {',
    "  const rows = await knex(shadow).select(columns).orderBy('id');",
    "  for (const row of rows) await knex(table).where('id', row.id).update(Object.fromEntries(Object.entries(row).filter(([k]) => k !== 'id')));",
    `  if (rows.length > 0 && (await knex.schema.hasTable(${q(PUBLISHED_MEDIA_TABLE)}))) {`,
    "    const media = ['name', 'mime', 'size', 'sha256', 'storage_key', 'model', 'field', 'record_id', 'created_at'];",
    '    for (const row of rows) {',
    `      const published = await knex(${q(PUBLISHED_MEDIA_TABLE)}).select(media).where({ model, record_id: row.id }).orderBy('id');`,
    `      await knex(${q(MEDIA_TABLE)}).where({ model, record_id: row.id }).del();`,
    `      for (let at = 0; at < published.length; at += ${INSERT_CHUNK_ROWS}) await knex(${q(MEDIA_TABLE)}).insert(published.slice(at, at + ${INSERT_CHUNK_ROWS}));`,
    '    }',
    '  }',
    '}',
    '',
    'async function restoreLinks(knex, shadow, table, ownerShadow, ownerColumn, targetColumn) {',
    '  const rows = await knex(shadow).select([ownerColumn, targetColumn]).orderBy(\'id\');',
    "  const owners = ownerShadow === null ? [...new Set(rows.map((r) => r[ownerColumn]))] : (await knex(ownerShadow).select('id')).map((r) => r.id);",
    '  for (const owner of owners) {',
    '    await knex(table).where(ownerColumn, owner).del();',
    '    const mine = rows.filter((r) => r[ownerColumn] === owner);',
    `    for (let at = 0; at < mine.length; at += ${INSERT_CHUNK_ROWS}) await knex(table).insert(mine.slice(at, at + ${INSERT_CHUNK_ROWS}));`,
    '  }',
    '}',
  ];
}
