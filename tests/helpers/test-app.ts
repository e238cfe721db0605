/** createApp on a fresh database (SQLite file or PostgreSQL schema), listening on 127.0.0.1:0; teardown. */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import pino from 'pino';
import { findRootDir, loadConfig } from '../../config';
import { enabledPlugins } from '../../config/plugins';
import { boot, type Booted } from '../../core/boot';
import { createApp } from '../../core/http/app';
import { drain, listen } from '../../core/http/server';
import type { Plugin } from '../../core/plugin-api';
import { prepareSchema } from '../../database/migrate';
import type { TestDialect } from './dialects';
import { client, type Client } from './http';
import { RESPONSE_CHECK_ON, validatingFetch, validatorFor } from './openapi-validator';
import { createTestDatabase, type TestDatabase } from './test-db';

export const ROOT = findRootDir(__dirname);
export const FIXTURE_MODELS = join(ROOT, 'tests', 'fixtures', 'content-types');
export const TEST_JWT_SECRET = 'test-secret-test-secret-test-secret-0123456789';

export interface TestApp {
  readonly url: string;
  readonly http: Client;
  readonly deps: Booted;
  readonly env: Record<string, string>;
  /** The OpenAPI document the server serves at /docs/openapi.json. */
  readonly document: Record<string, unknown>;
  /** fetch that checks each response against `document` (plain fetch when the check is off). */
  readonly fetch: typeof fetch;
  close(): Promise<void>;
}

export interface TestAppOptions {
  /** Models folder (default: the shipped content-types/). */
  readonly contentTypesDir?: string;
  readonly env?: Record<string, string>;
  readonly plugins?: readonly Plugin[];
  /** Reuse this database (and its migrations folder); it is left in place on close. */
  readonly database?: TestDatabase;
  /** Check every response of `http` against the served OpenAPI document (default: on, unless OPENAPI_RESPONSE_CHECK=0). */
  readonly checkResponses?: boolean;
}

export async function startTestApp(dialect: TestDialect, opts: TestAppOptions = {}): Promise<TestApp> {
  const database = opts.database ?? (await createTestDatabase(dialect));
  const drop = opts.database ? async () => undefined : () => database.drop();
  const env: Record<string, string> = {
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    IAM_JWT_SECRET: TEST_JWT_SECRET,
    IAM_BCRYPT_COST: '4',
    DATA_DIR: join(database.dir, 'data'),
    MIGRATIONS_DIR: join(database.dir, 'migrations'),
    CONTENT_TYPES_DIR: opts.contentTypesDir ?? join(ROOT, 'content-types'),
    ...database.env,
    ...(opts.env ?? {}),
  };
  const config = loadConfig(env, ROOT);
  const deps = boot(config, opts.plugins ?? enabledPlugins(), pino({ level: 'silent' }));
  let server: Server | null = null;
  try {
    await prepareSchema(deps.db, deps.registry, { dir: config.migrationsDir, autoMigrate: true, allowDestructive: false });
    for (const p of deps.plugins) await p.bootstrap?.(deps);
    const { requestTimeoutMs, headersTimeoutMs, keepAliveTimeoutMs } = config.http;
    server = await listen(createApp(deps), 0, '127.0.0.1', { requestMs: requestTimeoutMs, headersMs: headersTimeoutMs, keepAliveMs: keepAliveTimeoutMs });
  } catch (e) {
    await deps.close();
    await drop();
    throw e;
  }
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const running = server;
  const document = (await (await fetch(`${url}/docs/openapi.json`)).json()) as Record<string, unknown>;
  const checked = (opts.checkResponses ?? RESPONSE_CHECK_ON) ? validatingFetch(validatorFor(document)) : fetch;
  return {
    url,
    http: client(url, null, checked),
    deps,
    env,
    document,
    fetch: checked,
    async close() {
      await drain(running, () => deps.close(), deps.log, { cutIdle: true });
      await drop();
    },
  };
}
