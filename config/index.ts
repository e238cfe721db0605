import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { localeSettings } from './locales';
import { parseHttpUrl } from './parse';
import { redisNamespace } from './redis-namespace';
import { type Config, type DatabaseTarget, type S3Config, type Setting, SETTINGS } from './schema';

export type { Config } from './schema';

export class ConfigError extends Error {}

/** The repository root: the nearest folder upwards holding package.json (works from core/ and dist/core/). */
export function findRootDir(start: string = __dirname): string {
  let dir = start;
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new ConfigError(`no package.json above ${start}`);
    dir = parent;
  }
  return dir;
}

function read<T>(env: NodeJS.ProcessEnv, s: Setting<T>): T {
  const raw = env[s.env];
  try {
    return s.parse(raw === undefined ? s.fallback : raw);
  } catch (e) {
    throw new ConfigError(`${s.env}: ${(e as Error).message}`);
  }
}

function databaseTarget(url: string, schema: string, rootDir: string, dataDir: string): DatabaseTarget {
  if (url === '') return { client: 'sqlite', filename: join(dataDir, 'app.db') };
  if (/^postgres(ql)?:\/\//.test(url)) return { client: 'pg', connectionString: url, schema: schema === '' ? null : schema };
  if (/^(mysql|mariadb):\/\//.test(url)) {
    if (!/^[a-z]+:\/\/[^/]+\/[^/?#]+/.test(url)) throw new ConfigError(`DATABASE_URL: "${url}" names no database (mysql://user:pass@host:3306/<database>)`);
    return { client: 'mysql', connectionString: url.replace(/^mariadb:/, 'mysql:') };
  }
  if (url.startsWith('sqlite:')) {
    const file = url.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '');
    if (file === ':memory:') return { client: 'sqlite', filename: ':memory:' };
    return { client: 'sqlite', filename: resolve(rootDir, file) };
  }
  throw new ConfigError(`DATABASE_URL: "${url}" is none of postgres://…, mysql://… (mariadb://…) or sqlite:<path>`);
}

/** Dev: a secret generated once into .data/; production: refuse to start without IAM_JWT_SECRET. */
function jwtSecret(raw: string, production: boolean, dataDir: string): string {
  if (raw !== '') {
    if (Buffer.byteLength(raw) < 32) throw new ConfigError('IAM_JWT_SECRET: must be at least 32 bytes');
    return raw;
  }
  if (production) throw new ConfigError('IAM_JWT_SECRET: required when NODE_ENV=production (at least 32 bytes)');
  const file = join(dataDir, 'jwt-secret');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(dataDir, { recursive: true });
  const secret = randomBytes(48).toString('base64url');
  writeFileSync(file, secret + '\n', { mode: 0o600 });
  return secret;
}

/** The per-parent default may not exceed the maximum (it would be clamped on every request). */
/** An OTP registration carries its customPayload and other fields: the body limit must leave room for them. */
function iamBodyMaxBytes(env: NodeJS.ProcessEnv): number {
  const body = read(env, SETTINGS.iamBodyMaxBytes);
  const payload = read(env, SETTINGS.customPayloadMaxBytes);
  if (body <= payload) throw new ConfigError(`IAM_BODY_MAX_BYTES: ${body} must be above IAM_CUSTOM_PAYLOAD_MAX_BYTES (${payload}): an OTP registration sends the payload with its other fields`);
  return body;
}

function populateLimits(env: NodeJS.ProcessEnv): { populateDefaultLimit: number; populateMaxLimit: number } {
  const populateMaxLimit = Math.max(1, read(env, SETTINGS.populateMaxLimit));
  const populateDefaultLimit = read(env, SETTINGS.populateDefaultLimit);
  if (populateDefaultLimit > populateMaxLimit) throw new ConfigError(`POPULATE_DEFAULT_LIMIT: ${populateDefaultLimit} is above POPULATE_MAX_LIMIT (${populateMaxLimit})`);
  return { populateDefaultLimit, populateMaxLimit };
}

/** The bucket settings, checked now so a wrong one stops the start with one line instead of failing uploads later. */
function s3Config(env: NodeJS.ProcessEnv): S3Config {
  const bucket = read(env, SETTINGS.s3Bucket).trim();
  if (bucket === '') throw new ConfigError('S3_BUCKET: required when UPLOADS_DRIVER=s3');
  const url = (name: string, raw: string): string | null => {
    try {
      return parseHttpUrl(raw) || null;
    } catch (e) {
      throw new ConfigError(`${name}: ${(e as Error).message}`);
    }
  };
  const prefix = read(env, SETTINGS.s3Prefix).trim().replace(/^\/+/, '');
  const ttl = read(env, SETTINGS.s3SignedUrlTtl);
  // SigV4 presigned URLs live at most 7 days.
  if (ttl < 1 || ttl > 604800) throw new ConfigError(`S3_SIGNED_URL_TTL: ${ttl} s is outside 1 s … 7 d`);
  const requestTimeout = read(env, SETTINGS.s3RequestTimeout);
  if (requestTimeout < 0.1 || requestTimeout > 3600) throw new ConfigError(`S3_REQUEST_TIMEOUT: ${requestTimeout} s is outside 100 ms … 1 h`);
  const accessKeyId = read(env, SETTINGS.awsAccessKeyId);
  const secretAccessKey = read(env, SETTINGS.awsSecretAccessKey);
  if ((accessKeyId === '') !== (secretAccessKey === '')) throw new ConfigError('AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY: set both or neither');
  const sessionToken = read(env, SETTINGS.awsSessionToken);
  return {
    bucket,
    region: read(env, SETTINGS.s3Region).trim() || 'us-east-1',
    endpoint: url('S3_ENDPOINT', read(env, SETTINGS.s3Endpoint)),
    forcePathStyle: read(env, SETTINGS.s3ForcePathStyle),
    prefix: prefix === '' || prefix.endsWith('/') ? prefix : `${prefix}/`,
    publicUrl: url('S3_PUBLIC_URL', read(env, SETTINGS.s3PublicUrl)),
    signedUrlTtlSeconds: Math.floor(ttl),
    requestTimeoutMs: Math.round(requestTimeout * 1000),
    credentials: accessKeyId === '' ? null : { accessKeyId, secretAccessKey, sessionToken: sessionToken === '' ? null : sessionToken },
  };
}

/** UPLOADS_DRIVER=s3 needs the bucket; with `local`, S3 settings given are still checked (media:migrate --to s3 uses them). */
function uploadsConfig(env: NodeJS.ProcessEnv): Config['uploads'] {
  const driver = read(env, SETTINGS.uploadsDriver);
  if (driver === 's3') return { driver, s3: s3Config(env) };
  return { driver, s3: read(env, SETTINGS.s3Bucket).trim() === '' ? null : s3Config(env) };
}

function locales(env: NodeJS.ProcessEnv): Config['locales'] {
  const list = read(env, SETTINGS.locales);
  try {
    return localeSettings(list, read(env, SETTINGS.defaultLocale).trim());
  } catch (e) {
    throw new ConfigError((e as Error).message);
  }
}

/** Reads, validates and freezes the configuration. Throws ConfigError with one clear line. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, rootDir: string = findRootDir()): Config {
  const nodeEnv = read(env, SETTINGS.nodeEnv);
  const production = nodeEnv === 'production';
  const dataDir = resolve(rootDir, env.DATA_DIR ?? '.data');
  const port = read(env, SETTINGS.port);
  const autoRaw = read(env, SETTINGS.autoMigrate);
  const publicUrl = read(env, SETTINGS.publicUrl) || `http://localhost:${port}`;
  const uploads = read(env, SETTINGS.uploadsDir);
  const nullable = (v: string): string | null => (v === '' ? null : v);
  const database = databaseTarget(read(env, SETTINGS.databaseUrl), read(env, SETTINGS.databaseSchema), rootDir, dataDir);
  const config: Config = {
    nodeEnv,
    production,
    rootDir,
    dataDir,
    port,
    host: read(env, SETTINGS.host),
    publicUrl,
    database,
    sqliteReaders: read(env, SETTINGS.sqliteReaders),
    poolMax: read(env, SETTINGS.poolMax),
    heapGrowthPercent: read(env, SETTINGS.heapGrowthPercent),
    contentTypesDir: resolve(rootDir, read(env, SETTINGS.contentTypesDir)),
    migrationsDir: resolve(rootDir, read(env, SETTINGS.migrationsDir)),
    autoMigrate: autoRaw === '' ? !production : SETTINGS.allowDestructive.parse(autoRaw),
    allowDestructive: read(env, SETTINGS.allowDestructive),
    apiMaxLimit: Math.max(1, read(env, SETTINGS.apiMaxLimit)),
    ...populateLimits(env),
    answerMaxRecords: Math.max(1, read(env, SETTINGS.answerMaxRecords)),
    answerMaxBytes: Math.max(64, read(env, SETTINGS.answerMaxBytes)),
    writeMaxLinks: read(env, SETTINGS.writeMaxLinks),
    answerBufferMaxBytes: read(env, SETTINGS.answerBufferMaxBytes),
    query: {
      maxRelationHops: read(env, SETTINGS.queryMaxRelationHops),
      maxRelationScopes: read(env, SETTINGS.queryMaxRelationScopes),
      timeoutMs: Math.round(read(env, SETTINGS.queryTimeout) * 1000),
    },
    callerGate: {
      running: Math.max(1, read(env, SETTINGS.callerConcurrency)),
      waiting: read(env, SETTINGS.callerQueue),
      maxWaitMs: Math.max(1, Math.round(read(env, SETTINGS.callerQueueTimeout) * 1000)),
    },
    logLevel: read(env, SETTINGS.logLevel),
    bodyMaxBytes: read(env, SETTINGS.bodyMaxBytes),
    uploadsDir: uploads === '' ? join(dataDir, 'uploads') : resolve(rootDir, uploads),
    uploadMaxBytes: read(env, SETTINGS.uploadMaxBytes),
    uploadMaxFiles: read(env, SETTINGS.uploadMaxFiles),
    uploadPartHeaderMaxBytes: read(env, SETTINGS.uploadPartHeaderMaxBytes),
    uploads: uploadsConfig(env),
    redisUrl: nullable(read(env, SETTINGS.redisUrl)),
    redisNamespace: redisNamespace(read(env, SETTINGS.redisNamespace), database),
    events: {
      pollMs: Math.max(10, Math.round(read(env, SETTINGS.eventsPollInterval) * 1000)),
      gapWaitMs: Math.round(read(env, SETTINGS.eventsGapWait) * 1000),
      retentionMs: eventsRetention(env),
    },
    webhooks: webhooksConfig(env, rootDir),
    realtime: {
      resumeWindow: read(env, SETTINGS.realtimeResumeWindow),
      heartbeatMs: Math.max(10, Math.round(read(env, SETTINGS.realtimeHeartbeat) * 1000)),
      queueMax: read(env, SETTINGS.realtimeQueueMax),
      queueMaxBytes: read(env, SETTINGS.realtimeQueueMaxBytes),
      maxConnections: read(env, SETTINGS.realtimeMaxConnections),
      ticketTtlMs: Math.max(1000, Math.round(read(env, SETTINGS.realtimeTicketTtl) * 1000)),
      flushMs: Math.round(read(env, SETTINGS.realtimeFlush) * 1000),
      checkConcurrency: read(env, SETTINGS.realtimeCheckConcurrency),
    },
    hooksDir: read(env, SETTINGS.hooksDir),
    cache: cacheConfig(env),
    corsOrigins: read(env, SETTINGS.corsOrigins),
    trustProxy: read(env, SETTINGS.trustProxy),
    http: {
      requestTimeoutMs: Math.round(read(env, SETTINGS.httpRequestTimeout) * 1000),
      headersTimeoutMs: Math.round(read(env, SETTINGS.httpHeadersTimeout) * 1000),
      keepAliveTimeoutMs: Math.round(read(env, SETTINGS.httpKeepAliveTimeout) * 1000),
      sendTimeoutMs: Math.round(read(env, SETTINGS.httpSendTimeout) * 1000),
    },
    iam: {
      jwtSecret: jwtSecret(read(env, SETTINGS.jwtSecret), production, dataDir),
      allowPublicRegistration: read(env, SETTINGS.allowPublicRegistration),
      publicRegistrationRoles: read(env, SETTINGS.publicRegistrationRoles),
      accessTokenTtlSeconds: read(env, SETTINGS.accessTokenTtl),
      refreshTokenTtlSeconds: read(env, SETTINGS.refreshTokenTtl),
      refreshReuseIntervalSeconds: read(env, SETTINGS.refreshReuseInterval),
      otpExpirySeconds: read(env, SETTINGS.otpExpiry),
      forgotPasswordExpirySeconds: read(env, SETTINGS.forgotPasswordExpiry),
      passwordLess: read(env, SETTINGS.passwordLess),
      registrationValidateWhat: read(env, SETTINGS.registrationValidateWhat),
      loginValidateWhat: read(env, SETTINGS.loginValidateWhat),
      bcryptCost: read(env, SETTINGS.bcryptCost),
      rateLimit: { windowSeconds: read(env, SETTINGS.rateLimitWindow), perAccount: read(env, SETTINGS.rateLimitPerAccount), perAddress: read(env, SETTINGS.rateLimitPerAddress) },
      registrationRevealsTaken: read(env, SETTINGS.registrationRevealsTaken),
      customPayloadMaxBytes: read(env, SETTINGS.customPayloadMaxBytes),
      bodyMaxBytes: iamBodyMaxBytes(env),
      accessRulesFile: resolve(rootDir, read(env, SETTINGS.accessRulesFile)),
    },
    locales: locales(env),
    mail: {
      smtpUrl: nullable(read(env, SETTINGS.smtpUrl)),
      from: read(env, SETTINGS.mailFrom),
      smsWebhookUrl: nullable(read(env, SETTINGS.smsWebhookUrl)),
      outboxDir: join(dataDir, 'outbox'),
    },
  };
  return deepFreeze(config);
}

function cacheConfig(env: NodeJS.ProcessEnv): Config['cache'] {
  const mode = read(env, SETTINGS.cache);
  if (mode === 'redis' && read(env, SETTINGS.redisUrl) === '') throw new ConfigError('CACHE: redis needs REDIS_URL');
  const ttl = read(env, SETTINGS.cacheTtl);
  if (!(ttl > 0)) throw new ConfigError('CACHE_TTL: must be above 0');
  const atLeastOne = (s: Setting<number>): number => {
    const n = read(env, s);
    if (n < 1) throw new ConfigError(`${s.env}: must be at least 1 (CACHE=off turns the cache off)`);
    return n;
  };
  return {
    mode,
    ttlMs: Math.max(1, Math.round(ttl * 1000)),
    maxEntries: atLeastOne(SETTINGS.cacheMaxEntries),
    maxBytes: atLeastOne(SETTINGS.cacheMaxBytes),
    maxEntryBytes: atLeastOne(SETTINGS.cacheMaxEntryBytes),
  };
}

function deepFreeze<T>(o: T): T {
  if (o !== null && typeof o === 'object') {
    for (const v of Object.values(o)) deepFreeze(v);
    Object.freeze(o);
  }
  return o;
}

/** EVENTS_RETENTION must outlast WEBHOOK_RETRY_FOR: a delivery still retrying needs its event. */
function eventsRetention(env: NodeJS.ProcessEnv): number {
  const retention = Math.round(read(env, SETTINGS.eventsRetention) * 1000);
  const retryFor = Math.round(read(env, SETTINGS.webhookRetryFor) * 1000);
  if (retention <= retryFor) throw new ConfigError(`EVENTS_RETENTION (${retention / 1000} s) must be longer than WEBHOOK_RETRY_FOR (${retryFor / 1000} s): a delivery still retrying needs its event`);
  return retention;
}

function webhooksConfig(env: NodeJS.ProcessEnv, rootDir: string): Config['webhooks'] {
  const ms = (v: number): number => Math.round(v * 1000);
  const timeoutMs = Math.max(1, ms(read(env, SETTINGS.webhookTimeout)));
  const file = read(env, SETTINGS.webhookConfigFile).trim();
  const concurrency = Math.max(1, read(env, SETTINGS.webhookConcurrency));
  return {
    deliver: read(env, SETTINGS.webhookDelivery),
    timeoutMs,
    retryForMs: ms(read(env, SETTINGS.webhookRetryFor)),
    backoffBaseMs: Math.max(1, ms(read(env, SETTINGS.webhookBackoffBase))),
    backoffMaxMs: Math.max(1, ms(read(env, SETTINGS.webhookBackoffMax))),
    leaseMs: Math.max(ms(read(env, SETTINGS.webhookLease)), timeoutMs + 1000),
    pollMs: Math.max(10, ms(read(env, SETTINGS.webhookPollInterval))),
    concurrency,
    concurrencyPerHook: Math.min(concurrency, read(env, SETTINGS.webhookConcurrencyPerHook) ?? Math.ceil(concurrency / 2)),
    allowHosts: read(env, SETTINGS.webhookAllowHosts).map((h) => h.toLowerCase()),
    configFile: file === '' ? null : resolve(rootDir, file),
  };
}
