import type { Command } from 'commander';
import { UsageError } from '../../core/errors/usage-error';
import { SCHEMA_LOCK, applyPending, makeMigration, migrationNameProblem, migrationStatus, undoApplied } from '../../database/migrate';
import { cliDeps } from '../boot';

export function registerMigrate(program: Command): void {
  program
    .command('migrate:make <name>')
    .description('diff the registry against the last schema snapshot and write a migration to review')
    .option('--allow-destructive', 'allow dropping tables/columns and changing column types')
    .action((name: string, opts: { allowDestructive?: boolean }) => {
      const problem = migrationNameProblem(name);
      if (problem) throw new UsageError(problem);
      const { registry, config } = cliDeps();
      const made = makeMigration(registry, config.migrationsDir, name, opts.allowDestructive === true, new Date(), config.locales.defaultLocale);
      if (!made) return console.log('nothing to do: the schema already matches the registry');
      console.log(`wrote ${made.file}`);
      for (const c of made.changes) console.log(`  ${c}`);
    });
  program
    .command('migrate:latest')
    .description('apply every pending migration')
    .action(async () => {
      const { db, dialect, config, registry } = cliDeps();
      // under the schema lock, as a starting node applies them: the two never migrate at once; a migration that
      // fails is rolled back as at a start and told in one line (database/failed-migration.ts)
      const applied = await dialect.lockedSession(db, SCHEMA_LOCK, () => applyPending(db, registry, config.migrationsDir));
      console.log(applied.length ? `applied:\n${applied.map((f) => `  ${f}`).join('\n')}` : 'already up to date');
    });
  program
    .command('migrate:rollback')
    .description('undo the last batch of migrations')
    .option('--all', 'undo every migration')
    .action(async (opts: { all?: boolean }) => {
      const { db, config, registry } = cliDeps();
      const undone = await undoApplied(db, registry, config.migrationsDir, opts.all === true);
      console.log(undone.length ? `rolled back:\n${undone.map((f) => `  ${f}`).join('\n')}` : 'nothing to roll back');
    });
  program
    .command('migrate:status')
    .description('list applied and pending migrations')
    .action(async () => {
      const { db, config } = cliDeps();
      const s = await migrationStatus(db, config.migrationsDir);
      for (const f of s.applied) console.log(`applied  ${f}`);
      for (const f of s.pending) console.log(`pending  ${f}`);
      if (s.applied.length + s.pending.length === 0) console.log('no migrations');
    });
}
