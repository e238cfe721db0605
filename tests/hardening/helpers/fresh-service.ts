/** A database for a spawned server plus a direct knex handle to check what was written. */
import { join } from 'node:path';
import type { Knex } from 'knex';
import { loadConfig } from '../../../config';
import { connect } from '../../../database/connect';
import type { TestDialect } from '../../helpers/dialects';
import { ROOT, TEST_JWT_SECRET } from '../../helpers/test-app';
import { createTestDatabase, type TestDatabase } from '../../helpers/test-db';

export interface FreshDatabase {
  readonly database: TestDatabase;
  /** Env for startServerProcess: the database, a temp DATA_DIR and MIGRATIONS_DIR. */
  readonly env: Record<string, string>;
  /** A knex of its own on the same database (for counting rows). */
  inspect(): Knex;
  drop(): Promise<void>;
}

export async function freshDatabase(dialect: TestDialect): Promise<FreshDatabase> {
  const database = await createTestDatabase(dialect);
  const env = { ...database.env, DATA_DIR: join(database.dir, 'data'), MIGRATIONS_DIR: join(database.dir, 'migrations') };
  let db: Knex | null = null;
  return {
    database,
    env,
    inspect() {
      db ??= connect(loadConfig({ ...env, NODE_ENV: 'test', IAM_JWT_SECRET: TEST_JWT_SECRET }, ROOT).database).db;
      return db;
    },
    async drop() {
      await db?.destroy();
      await database.drop();
    },
  };
}
