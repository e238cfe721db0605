/** Migrations driven by the registry: make (diff → file), latest, rollback, status, and the start-up loop. */
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Knex } from 'knex';
import type { Registry } from '../core/registry/types';
import type { Dialect, MigrationHooks } from './dialects/dialect';
import { dialectOf } from './dialects/of-knex';
import { desiredSchema } from './schema/desired';
import { diffSchemas, snapshotOf } from './schema/diff';
import { describeDiff, toMigrationSource } from './schema/to-migration';
import type { MigrationOp, RowCheck, SchemaDef, SchemaDiff } from './schema/types';
import { refuseBrokenRules } from './row-check-run';
import { failedRollback, failedStart } from './failed-migration';
import { removedFieldWarning, removedMediaFields } from '../core/media/removed-fields';

export class DestructiveChangeError extends Error {
  constructor(readonly changes: readonly string[]) {
    super(`the registry change would lose data (${changes.join('; ')}); review it and run \`npm run admin -- migrate:make <name> --allow-destructive\``);
    this.name = 'DestructiveChangeError';
  }
}

const MIGRATION_FILE = /^\d{14,17}_[a-z0-9_-]+\.js$/i;

export function migrationFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).filter((f) => MIGRATION_FILE.test(f)).sort();
}

function knexConfig(dir: string): Knex.MigratorConfig {
  return { directory: dir, loadExtensions: ['.js'], tableName: 'knex_migrations', sortDirsSeparately: false };
}

/** The snapshot stored in the newest migration file, or null when there is none. */
export function latestSnapshot(dir: string): SchemaDef | null {
  const files = migrationFiles(dir);
  const last = files[files.length - 1];
  if (!last) return null;
  const path = join(dir, last);
  delete require.cache[require.resolve(path)];
  const mod = require(path) as { snapshot?: SchemaDef };
  if (!mod.snapshot) throw new Error(`${path}: has no exported snapshot; was it written by migrate:make?`);
  return mod.snapshot;
}

/** What the registry needs that the last migration does not give. */
export function pendingDiff(registry: Registry, dir: string): SchemaDiff {
  return diffSchemas(latestSnapshot(dir), desiredSchema(registry));
}

function stamp(d: Date): string {
  const p = (n: number, w = 2): string => String(n).padStart(w, '0');
  return `${d.getUTCFullYear()}${p(d.getUTCMonth() + 1)}${p(d.getUTCDate())}${p(d.getUTCHours())}${p(d.getUTCMinutes())}${p(d.getUTCSeconds())}${p(d.getUTCMilliseconds(), 3)}`;
}

export interface MadeMigration {
  readonly file: string;
  readonly changes: readonly string[];
  readonly ops: readonly MigrationOp[];
}

/** The longest migration name: with its time stamp and `.js`, a file name every file system takes (255 bytes). */
export const MIGRATION_NAME_MAX = 200;

/** Why `name` cannot name a migration file, or null. */
export function migrationNameProblem(name: string): string | null {
  const shown = name.length > 40 ? `${name.slice(0, 40)}… (${name.length} characters)` : name;
  if (name.length === 0 || name.length > MIGRATION_NAME_MAX) return `migration name "${shown}" must be 1 to ${MIGRATION_NAME_MAX} characters`;
  if (!/^[a-z0-9_-]+$/i.test(name)) return `migration name "${shown}" may hold only letters, digits, "-" and "_"`;
  return null;
}

/** Writes a migration for the registry's changes; null when there is nothing to do. */
/** `defaultLocale`: DEFAULT_LOCALE, given to rows of a model that turns i18n on (issue 14; default `en`). */
export function makeMigration(registry: Registry, dir: string, name: string, allowDestructive: boolean, now = new Date(), defaultLocale = 'en'): MadeMigration | null {
  const problem = migrationNameProblem(name);
  if (problem) throw new Error(problem);
  const diff = pendingDiff(registry, dir);
  if (diff.ops.length === 0 && diff.rules.length === 0) return null;
  if (diff.destructive.length > 0 && !allowDestructive) throw new DestructiveChangeError(diff.destructive);
  mkdirSync(dir, { recursive: true });
  const existing = migrationFiles(dir);
  let ts = stamp(now);
  const lastTs = existing.length ? existing[existing.length - 1].split('_')[0] : '';
  if (ts <= lastTs) ts = String(BigInt(lastTs) + 1n);
  const file = join(dir, `${ts}_${name}.js`);
  writeFileSync(file, toMigrationSource(name, diff, snapshotOf(desiredSchema(registry)), now, defaultLocale));
  return { file, changes: describeDiff(diff), ops: diff.ops };
}

/**
 * Runs knex's migrator on `db` the way its database needs (Dialect.migrationRun): on SQLite with foreign
 * keys off, so a table a migration rebuilds keeps the rows that reference it, and a foreign-key check at
 * the end of each migration. Every migration run goes through here, hand-written migrations included.
 */
function migrationRun<T>(db: Knex, dir: string, step: (config: Knex.MigratorConfig) => Promise<T>, onBegin?: (file: string) => void, up = false): Promise<T> {
  return dialectOf(db).migrationRun(db, (hooks) => {
    const beforeEach: MigrationHooks['beforeEach'] = async (trx, migrations) => {
      const files = migrations.map((m) => (typeof m === 'object' && m !== null && 'file' in m ? String(m.file) : String(m)));
      for (const file of files) onBegin?.(file);
      await hooks.beforeEach?.(trx, migrations);
      // Before it changes anything: the rows that break the rules it brings refuse it (row-check-run.ts).
      if (up) for (const file of files) await refuseBrokenRules(trx, file, checksOf(join(dir, file)));
    };
    return step({ ...knexConfig(dir), ...hooks, beforeEach } as Knex.MigratorConfig);
  });
}

/** The row checks a migration file carries (`exports.checks`, written by migrate:make); none when it has none. */
function checksOf(path: string): readonly RowCheck[] {
  const mod = require(path) as { checks?: unknown };
  return Array.isArray(mod.checks) ? (mod.checks as RowCheck[]) : [];
}

/** Applies the pending migrations; `onBegin`: told each one's file name as it begins (the last one told is the one that failed). */
export async function migrateLatest(db: Knex, dir: string, onBegin?: (file: string) => void): Promise<string[]> {
  if (migrationFiles(dir).length === 0) return [];
  const [, applied] = (await migrationRun(db, dir, (config) => db.migrate.latest(config), onBegin, true)) as [number, string[]];
  return applied;
}

export async function migrateRollback(db: Knex, dir: string, all = false, onBegin?: (file: string) => void): Promise<string[]> {
  const [, undone] = (await migrationRun(db, dir, (config) => db.migrate.rollback(config, all), onBegin)) as [number, string[]];
  return undone;
}

/**
 * migrate:latest and migrate:rollback as the CLI runs them: a migration that fails is rolled back as the start
 * rolls it back, and the error is a MigrationFailedError of one line (failed-migration.ts) naming it and the
 * database's reason; an error before any migration began (the connection) is thrown as it is.
 */
export async function applyPending(db: Knex, registry: Registry, dir: string): Promise<string[]> {
  let begun: string | null = null;
  try {
    return await migrateLatest(db, dir, (file) => (begun = file));
  } catch (e) {
    const status = await migrationStatus(db, dir).catch(() => null);
    throw await failedStart(db, registry, { error: e, made: null, failed: begun, pending: status?.pending ?? null, retry: 'run `admin-cli migrate:latest` again' });
  }
}

export async function undoApplied(db: Knex, registry: Registry, dir: string, all: boolean): Promise<string[]> {
  let begun: string | null = null;
  try {
    return await migrateRollback(db, dir, all, (file) => (begun = file));
  } catch (e) {
    throw failedRollback(db, registry, e, begun);
  }
}

export interface MigrationStatus {
  readonly applied: readonly string[];
  readonly pending: readonly string[];
}

export async function migrationStatus(db: Knex, dir: string): Promise<MigrationStatus> {
  if (migrationFiles(dir).length === 0) return { applied: [], pending: [] };
  const [done, pending] = (await db.migrate.list(knexConfig(dir))) as [{ name: string }[], { file: string }[]];
  return { applied: done.map((d) => d.name), pending: pending.map((p) => p.file) };
}

/** The lock nodes (and the CLI's migrate:latest) take while they bring the schema up to date. */
export const SCHEMA_LOCK = 'schema';

export interface PrepareOptions {
  readonly dir: string;
  readonly autoMigrate: boolean;
  readonly allowDestructive: boolean;
  readonly defaultLocale?: string;
  /** Given: the work runs under the database's schema lock (several nodes may start at once). */
  readonly dialect?: Dialect;
  /** Told of media rows whose field the models no longer have (core/media/removed-fields.ts). */
  readonly log?: { warn(detail: Record<string, unknown>, message: string): void };
}

/**
 * The start-up loop: apply pending migrations; with `autoMigrate` (outside production) first write one
 * for a registry change, so an editor's loop is "edit YAML, restart". A migration that fails stops the
 * start with a MigrationFailedError (failed-migration.ts); one written here is rolled back and removed.
 */
export async function prepareSchema(db: Knex, registry: Registry, opts: PrepareOptions): Promise<{ made: MadeMigration | null; applied: string[] }> {
  // Nodes starting together take turns (Dialect.lockedSession): the others wait, then find nothing to apply.
  if (opts.dialect) return opts.dialect.lockedSession(db, SCHEMA_LOCK, () => prepareSchema(db, registry, { ...opts, dialect: undefined }));
  let made: MadeMigration | null = null;
  if (opts.autoMigrate) made = makeMigration(registry, opts.dir, 'auto', opts.allowDestructive, new Date(), opts.defaultLocale);
  let applied: string[];
  let begun: string | null = null;
  try {
    applied = await migrateLatest(db, opts.dir, (file) => (begun = file));
  } catch (e) {
    // A generated migration that failed is rolled back as far as the database allows and its file removed.
    const status = await migrationStatus(db, opts.dir).catch(() => null);
    throw await failedStart(db, registry, { error: e, made, failed: begun, pending: status?.pending ?? null });
  }
  if (!opts.autoMigrate) {
    const left = pendingDiff(registry, opts.dir);
    if (left.ops.length > 0 || left.rules.length > 0) {
      throw new Error(`the registry has changes no migration covers (${describeDiff(left).join(', ')}); run \`npm run admin -- migrate:make <name>\``);
    }
  }
  // A media field removed or renamed drops no table or column: its files would go unseen, so say so.
  if (opts.log) for (const r of await removedMediaFields(db, registry)) opts.log.warn({ model: r.model, field: r.field, files: r.files }, removedFieldWarning(r));
  return { made, applied };
}
