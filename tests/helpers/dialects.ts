/**
 * DIALECTS = the databases the API tests run on, from TEST_DIALECTS (default `sqlite,postgres,mysql`;
 * Kysely pattern). PostgreSQL and MariaDB are probed once; one that does not answer is left out,
 * unless REQUIRE_POSTGRES=1 / REQUIRE_MYSQL=1 or CI=true, which fail the run.
 */
import { spawnSync } from 'node:child_process';

export type TestDialect = 'sqlite' | 'postgres' | 'mysql';

export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
/** A MariaDB/MySQL account that may create and drop databases; each test file gets one of its own (`t_<random>`). */
export const TEST_MYSQL_URL = process.env.TEST_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/mysql';

export const DEFAULT_TEST_DIALECTS = 'sqlite,postgres,mysql';

const PROBES: Record<'postgres' | 'mysql', { url: string; script: string; required: string }> = {
  postgres: {
    url: TEST_DATABASE_URL,
    required: 'REQUIRE_POSTGRES',
    script: `const { Client } = require('pg'); const c = new Client({ connectionString: process.argv[1], connectionTimeoutMillis: 3000 });
c.connect().then(() => c.query('select 1')).then(() => c.end()).then(() => process.exit(0), () => process.exit(1));`,
  },
  mysql: {
    url: TEST_MYSQL_URL,
    required: 'REQUIRE_MYSQL',
    script: `const m = require('mysql2'); const c = m.createConnection({ uri: process.argv[1], connectTimeout: 3000 });
c.query('select 1', (e) => { c.destroy(); process.exit(e ? 1 : 0); });`,
  },
};

function answers(dialect: 'postgres' | 'mysql'): boolean {
  const r = spawnSync(process.execPath, ['-e', PROBES[dialect].script, PROBES[dialect].url], { timeout: 10_000, cwd: __dirname });
  return r.status === 0;
}

function resolveDialects(): TestDialect[] {
  let wanted = (process.env.TEST_DIALECTS ?? DEFAULT_TEST_DIALECTS).split(',').map((s) => s.trim()).filter(Boolean) as TestDialect[];
  for (const d of ['postgres', 'mysql'] as const) {
    if (!wanted.includes(d) || answers(d)) continue;
    const { url, required } = PROBES[d];
    if (process.env[required] === '1' || process.env.CI === 'true') throw new Error(`${d} does not answer at ${url}, and this run requires it (CI / ${required}=1)`);
    console.warn(`note: ${d} does not answer at ${url}; leaving it out`);
    wanted = wanted.filter((x) => x !== d);
  }
  return wanted;
}

export const DIALECTS: readonly TestDialect[] = resolveDialects();
