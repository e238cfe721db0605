/**
 * DIALECTS = ['sqlite', 'postgres'], narrowed by TEST_DIALECTS (Kysely pattern). PostgreSQL is probed
 * once; when it does not answer it is left out, unless REQUIRE_POSTGRES=1 or CI=true, which fail the run.
 */
import { spawnSync } from 'node:child_process';

export type TestDialect = 'sqlite' | 'postgres';

export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

function postgresAnswers(): boolean {
  const probe = `const { Client } = require('pg'); const c = new Client({ connectionString: process.argv[1], connectionTimeoutMillis: 3000 });
c.connect().then(() => c.query('select 1')).then(() => c.end()).then(() => process.exit(0), () => process.exit(1));`;
  const r = spawnSync(process.execPath, ['-e', probe, TEST_DATABASE_URL], { timeout: 10_000, cwd: __dirname });
  return r.status === 0;
}

function resolveDialects(): TestDialect[] {
  const wanted = (process.env.TEST_DIALECTS ?? 'sqlite,postgres').split(',').map((s) => s.trim()).filter(Boolean) as TestDialect[];
  if (!wanted.includes('postgres')) return wanted;
  if (postgresAnswers()) return wanted;
  const required = process.env.REQUIRE_POSTGRES === '1' || process.env.CI === 'true';
  if (required) throw new Error(`PostgreSQL does not answer at ${TEST_DATABASE_URL}, and this run requires it (CI / REQUIRE_POSTGRES=1)`);
  console.warn(`note: PostgreSQL does not answer at ${TEST_DATABASE_URL}; running on SQLite only`);
  return wanted.filter((d) => d !== 'postgres');
}

export const DIALECTS: readonly TestDialect[] = resolveDialects();
