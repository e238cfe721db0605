/** createApp on a fresh database (SQLite file or PostgreSQL schema), listening on 127.0.0.1:0; teardown. */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import pino from 'pino';
import { findRootDir, loadConfig } from '../../config';
import { enabledPlugins } from '../../config/plugins';
import { boot, type Booted } from '../../core/boot';
import { createApp } from '../../core/http/app';
import { drain, httpTimeouts, listen } from '../../core/http/server';
import type { Plugin } from '../../core/plugin-api';
import { prepareSchema } from '../../database/migrate';
import type { TestDialect } from './dialects';
import { client, type Client } from './http';
import { RESPONSE_CHECK_ON, validatingFetch, validatorFor } from './openapi-validator';
import { Passwords } from '../../core/plugins/users-permissions/passwords';
import { IdentityStore } from '../../core/plugins/users-permissions/store';
import { createTestDatabase, type TestDatabase } from './test-db';

export const ROOT = findRootDir(__dirname);
export const FIXTURE_MODELS = join(ROOT, 'tests', 'fixtures', 'content-types');
export const TEST_JWT_SECRET = 'test-secret-test-secret-test-secret-0123456789';

/** The admin every test app starts with (seeded once per database). */
export const TEST_ADMIN = { username: 'admin', email: 'admin@example.test', password: 'admin-password-1', fullName: 'Test Admin' } as const;

export interface TestUser {
  readonly id: number;
  readonly username: string;
  readonly email: string;
  readonly password: string;
  readonly roles: readonly string[];
  readonly accessToken: string;
  readonly refreshToken: string;
  /** A client carrying this user's access token. */
  readonly http: Client;
}

export interface NewTestUser {
  readonly roles?: readonly string[];
  readonly username?: string;
  readonly email?: string;
  readonly password?: string;
  readonly fullName?: string;
  readonly mobile?: string;
}

export interface TestApp {
  readonly url: string;
  /** A client carrying the seeded admin's access token (a plain client when no identity plugin runs). */
  readonly http: Client;
  /** A client without a token. */
  readonly anon: Client;
  /** The seeded admin (null without the identity plugin). */
  readonly admin: TestUser | null;
  /** Creates an active user with the given roles (default: authenticated) and signs it in. */
  createUser(u?: NewTestUser): Promise<TestUser>;
  /** Signs in by username (or e-mail) and password. */
  signIn(username: string, password: string): Promise<TestUser>;
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
  /** The service's logger (default: silent). */
  readonly log?: pino.Logger;
}

export async function startTestApp(dialect: TestDialect, opts: TestAppOptions = {}): Promise<TestApp> {
  const database = opts.database ?? (await createTestDatabase(dialect));
  const drop = opts.database ? async () => undefined : () => database.drop();
  const env: Record<string, string> = {
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    IAM_JWT_SECRET: TEST_JWT_SECRET,
    IAM_BCRYPT_COST: '4',
    // Every test request comes from 127.0.0.1: limits are high here; rate-limit tests set their own.
    IAM_RATE_LIMIT_PER_ACCOUNT: '100000',
    IAM_RATE_LIMIT_PER_ADDRESS: '100000',
    DATA_DIR: join(database.dir, 'data'),
    MIGRATIONS_DIR: join(database.dir, 'migrations'),
    CONTENT_TYPES_DIR: opts.contentTypesDir ?? join(ROOT, 'content-types'),
    ...database.env,
    ...(opts.env ?? {}),
  };
  const config = loadConfig(env, ROOT);
  const deps = boot(config, opts.plugins ?? enabledPlugins(), opts.log ?? pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' }));
  let server: Server | null = null;
  try {
    await prepareSchema(deps.db, deps.registry, { dir: config.migrationsDir, autoMigrate: true, allowDestructive: false, defaultLocale: config.locales.defaultLocale, log: deps.log });
    for (const p of deps.plugins) await p.bootstrap?.(deps);
    server = await listen(createApp(deps), 0, '127.0.0.1', httpTimeouts(config.http));
  } catch (e) {
    await deps.close();
    await drop();
    throw e;
  }
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const running = server;
  const document = (await (await fetch(`${url}/docs/openapi.json`)).json()) as Record<string, unknown>;
  const checked = (opts.checkResponses ?? RESPONSE_CHECK_ON) ? validatingFetch(validatorFor(document)) : fetch;
  const anon = client(url, null, checked);
  const identity = deps.registry.get('user') ? new IdentityStore(deps) : null;
  const passwords = new Passwords(config.iam.bcryptCost);
  let counter = 0;

  const signIn = async (username: string, password: string): Promise<TestUser> => {
    const res = await anon.post('/api/iam/authenticate', username.includes('@') ? { email: username, password } : { username, password });
    if (res.status !== 200) throw new Error(`sign-in of ${username} answered ${res.status}: ${res.text}`);
    const u = identity ? await identity.userBy(username.includes('@') ? 'email' : 'username', username) : undefined;
    const { accessToken, refreshToken, user } = res.body.data;
    return { id: u?.id ?? 0, username: user.username, email: user.email, password, roles: user.roles, accessToken, refreshToken, http: client(url, accessToken, checked) };
  };
  const createUser = async (n: NewTestUser = {}): Promise<TestUser> => {
    if (!identity) throw new Error('createUser needs the identity plugin');
    counter += 1;
    const tag = `${Date.now().toString(36)}${counter}`;
    const username = n.username ?? `user${tag}`;
    const password = n.password ?? `password-${tag}`;
    await identity.createUser({ username, email: n.email ?? `${username}@example.test`, fullName: n.fullName ?? `User ${tag}`, mobile: n.mobile ?? null, passwordHash: await passwords.hash(password), active: true, roles: n.roles ?? ['authenticated'] });
    return signIn(username, password);
  };

  let admin: TestUser | null = null;
  try {
    if (identity) {
      if (!(await identity.userBy('username', TEST_ADMIN.username))) await createUser({ ...TEST_ADMIN, roles: ['admin'] });
      admin = await signIn(TEST_ADMIN.username, TEST_ADMIN.password);
    }
  } catch (e) {
    await drain(running, () => deps.close(), deps.log);
    await drop();
    throw e;
  }
  return {
    url,
    http: admin ? admin.http : anon,
    anon,
    admin,
    createUser,
    signIn,
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
