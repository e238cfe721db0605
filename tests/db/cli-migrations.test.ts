/**
 * The admin CLI's migrate:* commands, and every command against a database that is not migrated or does not
 * answer: one `error:` line on stderr saying what failed and what to do, exit 1 (not the operator's input), no
 * stack trace and no SQL unless LOG_LEVEL=debug asks for them, nothing on stdout, and the process exits.
 * A hand-written migration that fails is rolled back as the start rolls it back (database/failed-migration.ts).
 */
import { expect } from 'chai';
import { cpSync, readdirSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Knex } from 'knex';
import { loadConfig } from '../../config';
import { connect } from '../../database/connect';
import { type CliRun, runCli } from '../helpers/admin-cli';
import { DIALECTS, TEST_DATABASE_URL, TEST_MYSQL_URL, type TestDialect } from '../helpers/dialects';
import { ROOT, TEST_JWT_SECRET } from '../helpers/test-app';
import { createTestDatabase, type TestDatabase } from '../helpers/test-db';

const STACK = /^\s+at /m;

/** The one line a failed command prints; exit 1; stdout empty (no JSON warning lines either). */
function oneLine(r: CliRun, pattern: RegExp): void {
  expect(r.signal, 'still running when killed').to.equal(null);
  expect(r.code, r.out + r.err).to.equal(1);
  expect(r.err, 'a stack trace').to.not.match(STACK);
  expect(r.err.split('\n'), r.err).to.have.length(2); // one line and its newline
  expect(r.err).to.match(pattern);
  expect(r.out, 'stdout').to.equal('');
}

/** A DATABASE_URL of `dialect` that does not connect. */
function deadUrl(dialect: TestDialect, dir: string): Record<string, string> {
  if (dialect === 'sqlite') return { DATABASE_URL: `sqlite:${dir}` }; // a folder: SQLite cannot open it
  const url = new URL(dialect === 'postgres' ? TEST_DATABASE_URL : TEST_MYSQL_URL);
  url.port = '1';
  return { DATABASE_URL: url.toString() };
}

for (const dialect of DIALECTS) {
  describe(`admin CLI: migrations and databases that are not ready [${dialect}]`, function () {
    this.timeout(120_000);
    let database: TestDatabase;
    let db: Knex;
    const env = (): Record<string, string> => ({
      NODE_ENV: 'test',
      LOG_LEVEL: 'info', // the default: the knex warnings with their SQL and stacks must not show
      IAM_JWT_SECRET: TEST_JWT_SECRET,
      IAM_BCRYPT_COST: '4',
      MIGRATIONS_DIR: join(database.dir, 'migrations'),
      CONTENT_TYPES_DIR: join(ROOT, 'content-types'),
      DATA_DIR: join(database.dir, 'data'),
      ...database.env,
    });
    const cli = (args: string[], extra: Record<string, string> = {}) => runCli({ env: { ...env(), ...extra } }, args);
    const migrations = (): string[] => readdirSync(join(database.dir, 'migrations')).sort();
    const handWritten = (up: string, down = ''): string => {
      const files = migrations();
      const last = files[files.length - 1];
      const file = `${String(BigInt(last.split('_')[0]) + 1n)}_by-hand.js`;
      writeFileSync(join(database.dir, 'migrations', file), `exports.up = async (knex) => { ${up} };\nexports.down = async (knex) => { ${down} };\nexports.snapshot = require('./${last}').snapshot;\n`);
      return file;
    };

    before(async () => {
      database = await createTestDatabase(dialect);
      cpSync(join(ROOT, 'database', 'migrations'), join(database.dir, 'migrations'), { recursive: true });
      db = connect(loadConfig(env(), ROOT).database).db;
    });
    after(async () => {
      await db?.destroy();
      await database?.drop();
    });

    for (const args of [['token:list'], ['user:create', '--username', 'early', '--email', 'early@example.test', '--password', 'early-pass-1'], ['role:create', '--name', 'early'], ['media:prune']]) {
      it(`${args[0]} on a database that is not migrated: one line saying so and what to run, exit 1`, async () => {
        oneLine(await cli(args), /^error: the database is not migrated \(it has no table [\w.]+\); run `admin-cli migrate:latest` first\n$/);
      });
    }

    it('migrate:latest applies the shipped migrations (exit 0); migrate:status lists them', async () => {
      const r = await cli(['migrate:latest']);
      expect(r.code, r.err).to.equal(0);
      expect(r.out).to.match(/^applied:\n/);
      const status = await cli(['migrate:status']);
      expect(status.code, status.err).to.equal(0);
      expect(status.out.trim().split('\n')).to.have.length(migrations().length);
      expect(status.out).to.not.contain('pending');
    });

    it('migrate:latest with a migration that fails: one line with the reason in plain words, rolled back, still pending, exit 1', async () => {
      const file = handWritten(`await knex.schema.createTable('by_hand', (t) => t.increments()); await knex.schema.createTable('roles', (t) => t.increments());`);
      const r = await cli(['migrate:latest']);
      oneLine(r, new RegExp(`^error: migration ${file.replace('.', '\\.')} could not be applied: `));
      expect(r.err).to.not.match(/create table/i);
      expect(r.err).to.match(dialect === 'mysql' ? /MariaDB\/MySQL commits schema changes as it runs: its steps before the failing one stay; it is still pending/ : /it was rolled back and is still pending/);
      expect(r.err).to.match(/fix the data or the migration, then run `admin-cli migrate:latest` again\n$/);
      if (dialect !== 'mysql') {
        expect(await db.schema.hasTable('by_hand'), 'its first step rolled back').to.equal(false);
      }
      const status = await cli(['migrate:status']);
      expect(status.out).to.contain(`pending  ${file}`);
      const debug = await cli(['migrate:latest'], { LOG_LEVEL: 'debug' });
      expect(debug.code).to.equal(1);
      expect(debug.err, 'LOG_LEVEL=debug asks for the stack').to.match(STACK);
      // undo: the step MariaDB kept, then the file
      if (dialect === 'mysql') await db.schema.dropTableIfExists('by_hand');
      unlinkSync(join(database.dir, 'migrations', file));
    });

    it('migrate:rollback with a migration whose down fails: one line, the migration still applied, exit 1', async () => {
      const file = handWritten(`await knex.schema.createTable('by_hand2', (t) => t.increments());`, `await knex.schema.dropTable('no_such_table_here');`);
      expect((await cli(['migrate:latest'])).code).to.equal(0);
      const r = await cli(['migrate:rollback']);
      oneLine(r, new RegExp(`^error: migration ${file.replace('.', '\\.')} could not be rolled back: the database refused it \\(.*no_such_table_here.*\\); .*it is still applied; fix the data or the migration, then run \`admin-cli migrate:rollback\` again\\n$`));
      expect(r.err).to.not.match(/drop table/i);
      expect((await cli(['migrate:status'])).out).to.contain(`applied  ${file}`);
    });

    it('migrate:make with a name it cannot use: one line, exit 2, nothing written', async () => {
      const before = migrations();
      for (const name of ['bad name', 'x'.repeat(201), '']) {
        const r = await cli(['migrate:make', name]);
        expect(r.code, `${name}: ${r.err}`).to.equal(2);
        expect(r.err).to.match(/^error: migration name .* (may hold only letters, digits, "-" and "_"|must be 1 to 200 characters)\n$/);
      }
      expect(migrations()).to.deep.equal(before);
    });

    for (const args of [['migrate:latest'], ['migrate:status'], ['migrate:rollback'], ['token:list'], ['user:create', '--username', 'late', '--email', 'late@example.test', '--password', 'late-pass-1']]) {
      it(`${args[0]} with a DATABASE_URL that does not connect: one line, exit 1, the process exits`, async () => {
        const t = Date.now();
        oneLine(await cli(args, deadUrl(dialect, database.dir)), /^error: cannot connect to the database \(.+\)\n$/);
        expect(Date.now() - t).to.be.below(30_000);
      });
    }
  });
}
