/** A fresh database per test file: a temporary SQLite file, or a new PostgreSQL schema dropped afterwards. */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import knex from 'knex';
import { TEST_DATABASE_URL, type TestDialect } from './dialects';

export interface TestDatabase {
  /** Environment that points the service at this database. */
  readonly env: Record<string, string>;
  readonly dir: string;
  drop(): Promise<void>;
}

export async function createTestDatabase(dialect: TestDialect): Promise<TestDatabase> {
  const dir = mkdtempSync(join(tmpdir(), 'ris-test-'));
  if (dialect === 'sqlite') {
    return { dir, env: { DATABASE_URL: `sqlite:${join(dir, 'test.db')}` }, drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const admin = knex({ client: 'pg', connection: TEST_DATABASE_URL, pool: { min: 0, max: 1 } });
  try {
    await admin.raw('CREATE SCHEMA ??', [schema]);
  } finally {
    await admin.destroy();
  }
  return {
    dir,
    env: { DATABASE_URL: TEST_DATABASE_URL, DATABASE_SCHEMA: schema },
    async drop() {
      const a = knex({ client: 'pg', connection: TEST_DATABASE_URL, pool: { min: 0, max: 1 } });
      try {
        await a.raw('DROP SCHEMA IF EXISTS ?? CASCADE', [schema]);
      } finally {
        await a.destroy();
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
