/** A fresh database per test file: a temporary SQLite file, a new PostgreSQL schema or a new MariaDB database, dropped afterwards. */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import knex from 'knex';
import { TEST_DATABASE_URL, TEST_MYSQL_URL, type TestDialect } from './dialects';
import { MYSQL_TEST_COLLATION } from './mysql-collation';

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
  if (dialect === 'mysql') return createMysqlDatabase(dir);
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

/** `mysql://…/t_<random>`: a database of its own, utf8mb4 with the service's binary collation, dropped afterwards. */
async function createMysqlDatabase(dir: string): Promise<TestDatabase> {
  const name = `t_${randomBytes(6).toString('hex')}`;
  const admin = (): ReturnType<typeof knex> => knex({ client: 'mysql2', connection: TEST_MYSQL_URL, pool: { min: 0, max: 1 } });
  const a = admin();
  try {
    await a.raw(`CREATE DATABASE ?? CHARACTER SET utf8mb4 COLLATE ${MYSQL_TEST_COLLATION}`, [name]);
  } finally {
    await a.destroy();
  }
  const url = new URL(TEST_MYSQL_URL);
  url.pathname = `/${name}`;
  return {
    dir,
    env: { DATABASE_URL: url.toString() },
    async drop() {
      const b = admin();
      try {
        await b.raw('DROP DATABASE IF EXISTS ??', [name]);
      } finally {
        await b.destroy();
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
