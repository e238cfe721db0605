/** SchemaDiff → the source text of a reviewed knex migration (pure). */
import { foldText } from '../../core/registry/fold';
import { publishHelpers, publishOnLines, restoreOffLines } from './publish-migration';
import { rowChecks } from './row-checks';
import type { ColumnDef, IndexDef, MigrationOp, RuleChange, SchemaDef, SchemaDiff, TableDef } from './types';

const q = (v: unknown): string => JSON.stringify(v);

function columnLine(c: ColumnDef, alter = false): string {
  if (c.spec.method === 'increments') return `t.increments(${q(c.name)}).primary();`;
  const args = [q(c.name), ...c.spec.args.map(q)].join(', ');
  let line = `t.${c.spec.method}(${args})`;
  line += c.nullable ? '.nullable()' : '.notNullable()';
  if (c.default !== undefined && c.default !== null) line += `.defaultTo(${q(c.default)})`;
  else if (alter) line += '.defaultTo(null)';
  if (c.references && !alter) {
    line += `.references('id').inTable(${q(c.references.table)}).onDelete(${q(c.references.onDelete.toUpperCase())})`;
  }
  return `${line}${alter ? '.alter()' : ''};`;
}

/** The columns of a new index; `nullsFirst` spelled out where the database needs it (PostgreSQL). */
function indexColumns(ix: IndexDef): string {
  const cols = q(ix.columns);
  if (!ix.nullsFirst) return cols;
  const [first, ...rest] = ix.columns;
  const spelled = [`knex.raw('?? NULLS FIRST', [${q(first)}])`, ...rest.map(q)].join(', ');
  return `knex.client.dialect === 'postgresql' ? [${spelled}] : ${cols}`;
}

function indexLine(ix: IndexDef, drop: boolean): string {
  const cols = q(ix.columns);
  if (drop) return ix.unique ? `t.dropUnique(${cols}, ${q(ix.name)});` : `t.dropIndex(${cols}, ${q(ix.name)});`;
  return ix.unique ? `t.unique(${indexColumns(ix)}, { indexName: ${q(ix.name)} });` : `t.index(${indexColumns(ix)}, ${q(ix.name)});`;
}

function createTable(t: TableDef): string {
  const body = [...t.columns.map((c) => columnLine(c)), ...t.indexes.map((i) => indexLine(i, false))];
  return `await knex.schema.createTable(${q(t.name)}, (t) => {\n${body.map((l) => `    ${l}`).join('\n')}\n  });`;
}

function alterTable(table: string, lines: readonly string[]): string {
  return `await knex.schema.alterTable(${q(table)}, (t) => {\n${lines.map((l) => `    ${l}`).join('\n')}\n  });`;
}

function upOf(op: MigrationOp): string {
  switch (op.op) {
    case 'createTable':
      return createTable(op.table);
    case 'dropTable':
      return `await knex.schema.dropTable(${q(op.table.name)});`;
    case 'addColumn':
      return alterTable(op.table, [columnLine(op.column)]);
    case 'dropColumn':
      return alterTable(op.table, [`t.dropColumn(${q(op.column.name)});`]);
    case 'renameColumn':
      return alterTable(op.table, [`t.renameColumn(${q(op.from)}, ${q(op.to)});`]);
    case 'alterColumn':
      return alterTable(op.table, [columnLine(op.to, true)]);
    case 'addIndex':
      return alterTable(op.table, [indexLine(op.index, false)]);
    case 'dropIndex':
      return alterTable(op.table, [indexLine(op.index, true)]);
  }
}

function downOf(op: MigrationOp): string {
  switch (op.op) {
    case 'createTable':
      return `await knex.schema.dropTable(${q(op.table.name)});`;
    case 'dropTable':
      return createTable(op.table);
    case 'addColumn':
      return alterTable(op.table, [`t.dropColumn(${q(op.column.name)});`]);
    case 'dropColumn':
      return alterTable(op.table, [columnLine(op.column)]);
    case 'renameColumn':
      return alterTable(op.table, [`t.renameColumn(${q(op.to)}, ${q(op.from)});`]);
    case 'alterColumn':
      return alterTable(op.table, [columnLine({ ...op.from, name: op.to.name }, true)]);
    case 'addIndex':
      return alterTable(op.table, [indexLine(op.index, true)]);
    case 'dropIndex':
      return alterTable(op.table, [indexLine(op.index, false)]);
  }
}

/** One line a change, for the file header and the CLI. */
export function describeOp(op: MigrationOp): string {
  switch (op.op) {
    case 'createTable':
      return `+ table ${op.table.name}`;
    case 'dropTable':
      return `- table ${op.table.name}`;
    case 'addColumn':
      return `+ column ${op.table}.${op.column.name}`;
    case 'dropColumn':
      return `- column ${op.table}.${op.column.name}`;
    case 'renameColumn':
      return `~ column ${op.table}.${op.from} → ${op.to}`;
    case 'alterColumn':
      return `~ column ${op.table}.${op.to.name}`;
    case 'addIndex':
      return `+ index ${op.index.name}`;
    case 'dropIndex':
      return `- index ${op.index.name}`;
  }
}

/** A rule change beyond the names it carries (a renamed attribute's rules change only their `field`). */
function changesARule(r: RuleChange): boolean {
  const bare = (x: RuleChange['from']): string => JSON.stringify(x === null ? null : { ...x, model: '', field: '' });
  return bare(r.from) !== bare(r.to);
}

/** One line a rule change (no SQL; a tighter rule's rows are checked first: row-checks.ts). */
export function describeRuleChange(r: RuleChange): string {
  return `~ rules ${r.table}.${r.column}`;
}

/** Every change of `diff`, one line each: the operations, then the rule changes (not a mere rename's). */
export function describeDiff(diff: SchemaDiff): string[] {
  return [...diff.ops.map(describeOp), ...diff.rules.filter(changesARule).map(describeRuleChange)];
}

/** Rows fetched and updated at a time by a backfill (3 bindings a row stay under SQLite's 999). */
export const BACKFILL_BATCH = 300;

/**
 * New case-fold columns of tables that may hold rows: one backfill per table after every other
 * change (the folded column may just have been added, renamed or retyped).
 */
function backfills(ops: readonly MigrationOp[]): string[] {
  const byTable = new Map<string, [string, string][]>();
  for (const op of ops) {
    if (op.op !== 'addColumn' || op.column.foldOf === undefined) continue;
    byTable.set(op.table, [...(byTable.get(op.table) ?? []), [op.column.foldOf, op.column.name]]);
  }
  return [...byTable].map(([table, pairs]) => `await backfillFolds(knex, ${q(table)}, ${q(pairs)});`);
}

/**
 * The backfill helper a migration carries: the service's own fold (core/registry/fold.ts, embedded
 * as it was when the migration was made), applied in JS to existing rows in id order, batch-wise.
 */
function backfillHelper(): string[] {
  return [
    '',
    '/** Fills new case-fold columns of existing rows with the service\'s fold, in batches of ids. */',
    'async function backfillFolds(knex, table, pairs) {',
    `  const foldText = ${foldText.toString()};`,
    '  let last = 0;',
    '  for (;;) {',
    `    const rows = await knex(table).select(['id', ...pairs.map(([c]) => c)]).where('id', '>', last).orderBy('id').limit(${BACKFILL_BATCH});`,
    '    if (rows.length === 0) return;',
    '    for (const [column, fold] of pairs) {',
    "      const set = rows.filter((r) => typeof r[column] === 'string');",
    '      if (set.length === 0) continue;',
    "      const cases = set.map(() => 'WHEN ? THEN ?').join(' ');",
    '      const bindings = set.flatMap((r) => [r.id, foldText(r[column])]);',
    '      await knex(table).whereIn(\'id\', set.map((r) => r.id)).update({ [fold]: knex.raw(`CASE ?? ${cases} END`, [\'id\', ...bindings]) });',
    '    }',
    '    last = rows[rows.length - 1].id;',
    '  }',
    '}',
  ];
}

/** The index every i18n model's table has (database/schema/desired.ts): its arrival on a table marks `i18n: true` turned on. */
const ENTRY_INDEX = 'default_entity_locale_id,locale_name';

/**
 * Issue 14: a model that turns `i18n: true` on keeps its rows visible: each becomes an entry of its own
 * in the default locale (DEFAULT_LOCALE when the migration was made), pointing at itself.
 */
function localeBackfills(ops: readonly MigrationOp[], defaultLocale: string): string[] {
  const created = new Set(ops.flatMap((op) => (op.op === 'createTable' ? [op.table.name] : [])));
  return ops.flatMap((op) =>
    op.op === 'addIndex' && op.index.columns.join(',') === ENTRY_INDEX && !created.has(op.table)
      ? [`await knex(${q(op.table)}).whereNull('locale_name').update({ locale_name: ${q(defaultLocale)}, default_entity_locale_id: knex.ref('id') });`]
      : [],
  );
}

/** The full migration module: up, down and the schema snapshot the next diff starts from. */
export function toMigrationSource(name: string, diff: SchemaDiff, snapshot: SchemaDef, generatedAt: Date, defaultLocale = 'en'): string {
  const indent = (s: string): string => `  ${s}`;
  const fills = [...localeBackfills(diff.ops, defaultLocale), ...backfills(diff.ops)];
  const kept = new Set(snapshot.tables.map((t) => t.name));
  const restores = restoreOffLines(diff.ops, kept);
  const publishes = publishOnLines(diff.ops);
  const up = [...restores, ...diff.ops.map(upOf), ...fills, ...publishes].map(indent).join('\n');
  const down = [...diff.ops].reverse().map(downOf).map(indent).join('\n');
  return [
    `// Migration "${name}", generated from the content-type registry on ${generatedAt.toISOString()}.`,
    '// Review it before committing. Changes:',
    ...describeDiff(diff).map((line) => `//   ${line}`),
    "'use strict';",
    '',
    'exports.up = async function up(knex) {',
    up,
    '};',
    '',
    'exports.down = async function down(knex) {',
    down,
    '};',
    '',
    '/**',
    ' * Rules it brings that existing rows may break: before `up` runs, the rows breaking each are counted',
    ' * and the migration refused over any (database/row-check-run.ts); none: nothing to count.',
    ' */',
    `exports.checks = ${JSON.stringify(rowChecks(diff, snapshot))};`,
    '',
    '/** The schema after this migration: the next `migrate:make` diffs the registry against it. */',
    `exports.snapshot = ${JSON.stringify(snapshot)};`,
    ...(backfills(diff.ops).length > 0 ? backfillHelper() : []),
    ...(restores.length + publishes.length > 0 ? publishHelpers() : []),
    '',
  ].join('\n');
}
