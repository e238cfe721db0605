/**
 * For tests of a shipped data-fix migration: a database migrated up to just before it (rows written the
 * old way go in then), then by it and everything after it.
 */
import { copyFileSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import type { Knex } from 'knex';
import { migrateLatest } from '../../database/migrate';
import { ROOT } from './test-app';

const SHIPPED = join(ROOT, 'database', 'migrations');

export interface ShippedMigrations {
  /** The file of the migration under test. */
  readonly file: string;
  /** Applies every shipped migration older than it. */
  before(db: Knex): Promise<void>;
  /** Applies it and every newer one; checks it was applied. */
  rest(db: Knex): Promise<void>;
}

/** `name` matches the file of the migration under test; `databaseDir` holds the test's own migrations folder. */
export function shippedMigrationsAround(databaseDir: string, name: RegExp): ShippedMigrations {
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
