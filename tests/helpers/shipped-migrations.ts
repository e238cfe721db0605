/**
 * For tests of a shipped data-fix migration: a database migrated up to just before it (rows written the
 * old way go in then), then by it and everything after it.
 */
import { copyFileSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import type { Knex } from 'knex';
import { loadConfig } from '../../config';
import { connect } from '../../database/connect';
import { migrateLatest } from '../../database/migrate';
import type { TestDialect } from './dialects';
import { ROOT } from './test-app';
import { createTestDatabase } from './test-db';

const SHIPPED = join(ROOT, 'database', 'migrations');

interface ShippedMigrations {
  /** The file of the migration under test. */
  readonly file: string;
  /** Applies every shipped migration older than it. */
  before(db: Knex): Promise<void>;
  /** Applies it and every newer one; checks it was applied. */
  rest(db: Knex): Promise<void>;
}

/** `name` matches the file of the migration under test; `databaseDir` holds the test's own migrations folder. */
function shippedMigrationsAround(databaseDir: string, name: RegExp): ShippedMigrations {
  const dir = join(databaseDir, 'migrations');
  mkdirSync(dir, { recursive: true });
  const files = readdirSync(SHIPPED).filter((f) => f.endsWith('.js')).sort();
  const at = files.findIndex((f) => name.test(f));
  expect(at, `the shipped migration ${String(name)}`).to.be.greaterThan(0);
  const copy = (list: readonly string[]): void => {
    for (const f of list) copyFileSync(join(SHIPPED, f), join(dir, f));
  };
  return {
    file: files[at],
    async before(db) {
      copy(files.slice(0, at));
      await migrateLatest(db, dir);
    },
    async rest(db) {
      copy(files.slice(at));
      expect(await migrateLatest(db, dir)).to.include(files[at]);
    },
  };
}

/**
 * A fresh `dialect` database migrated up to just before the shipped migration `name`; `oldRows` writes
 * what the old code wrote, then the migration and every newer one run, and `check` reads the result.
 */
export async function aroundShippedMigration(dialect: TestDialect, name: RegExp, oldRows: (db: Knex) => Promise<void>, check: (db: Knex) => Promise<void>): Promise<void> {
  const database = await createTestDatabase(dialect);
  const shipped = shippedMigrationsAround(database.dir, name);
  const db = connect(loadConfig({ ...database.env, IAM_JWT_SECRET: 'x'.repeat(32), NODE_ENV: 'test' }, ROOT).database).db;
  try {
    await shipped.before(db);
    await oldRows(db);
    await shipped.rest(db);
    await check(db);
  } finally {
    await db.destroy();
    await database.drop();
  }
}
