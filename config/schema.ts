/**
 * Every setting, its environment name, default and parser, in one table (CONTRACT: Environment).
 * config/index.ts is the only reader of process.env.
 */
import { DEFAULT_MAX_RELATION_HOPS, DEFAULT_MAX_RELATION_SCOPES } from '../core/query/limits';
import { DEFAULT_WRITE_MAX_LINKS } from '../core/records/write-limits';
import type { LocaleSettings } from './locales';
import { parseLocales } from './locales';
import { parseRedisNamespace } from './redis-namespace';
import { type LogLevel, parseBoolean, parseDuration, parseFlushWindow, parseAtLeastOne, parseList, parseLogLevel, parsePositiveInt, parseSources, parseSqliteReaders, parseHeapGrowth, parseHttpUrl, SQLITE_READERS_DEFAULT } from './parse';

export type DatabaseTarget =
  | { readonly client: 'sqlite'; readonly filename: string }
  | { readonly client: 'pg'; readonly connectionString: string; readonly schema: string | null }
  /** MariaDB 10.6+ (or MySQL 8.0+) through mysql2: `mysql://user:pass@host:3306/db` (`mariadb://` too). */
  | { readonly client: 'mysql'; readonly connectionString: string };

export interface Config {
  readonly nodeEnv: string;
  readonly production: boolean;
  readonly rootDir: string;
  readonly dataDir: string;
  readonly port: number;
  readonly host: string;
  readonly publicUrl: string;
  readonly database: DatabaseTarget;
  /** SQLite on a file: read-only connections for record reads beside the one writer (0: the writer reads too). */
  readonly sqliteReaders: number;
  /** DATABASE_POOL_MAX: connections of a PostgreSQL or MariaDB pool. */
  readonly poolMax: number;
  /** Percent the V8 heap may grow past its live data before a full collection (0: V8's default). */
  readonly heapGrowthPercent: number;
  readonly contentTypesDir: string;
  readonly migrationsDir: string;
  readonly autoMigrate: boolean;
  readonly allowDestructive: boolean;
  readonly apiMaxLimit: number;
  /** Children per parent of a to-many populate: the default and the most `populate[rel][limit]` is clamped to. */
  readonly populateDefaultLimit: number;
  readonly populateMaxLimit: number;
  /** One Find / FindOne / write answer: at most this many records (populated ones counted) and bytes (413 beyond). */
  readonly answerMaxRecords: number;
  readonly answerMaxBytes: number;
  /** Relation links one write call may write (400 beyond; core/records/write-limits.ts). */
  readonly writeMaxLinks: number;
  /** Query cost bounds (core/query/cost.ts) and the per-statement time limit (0: none). */
  readonly query: { readonly maxRelationHops: number; readonly maxRelationScopes: number; readonly timeoutMs: number };
  /** Record requests of one caller that run at once, and that may wait for a turn (core/http/caller-gate.ts). */
  readonly callerGate: { readonly running: number; readonly waiting: number; readonly maxWaitMs: number };
  readonly logLevel: LogLevel;
  readonly bodyMaxBytes: number;
  readonly uploadsDir: string;
  readonly uploadMaxBytes: number;
  /** File parts one multipart request may carry (413 beyond). */
  readonly uploadMaxFiles: number;
  /** Bytes of one multipart part's header names and values together (413 beyond), counted as they arrive. */
  readonly uploadPartHeaderMaxBytes: number;
  /** Where media bytes live (UPLOADS_DRIVER); `s3`: the bucket (always with the s3 driver; with local when S3_BUCKET is set, for media:migrate). */
  readonly uploads: { readonly driver: 'local' | 's3'; readonly s3: S3Config | null };
  readonly redisUrl: string | null;
  /** The deployment's name in Redis: REDIS_NAMESPACE, else derived from the database (config/redis-namespace.ts). */
  readonly redisNamespace: string;
  /** The event pipeline (core/events) and webhook delivery (core/webhooks), issue 15. */
  readonly events: EventsConfig;
  readonly webhooks: WebhooksConfig;
  /** Realtime over Server-Sent Events (core/realtime), issue 15. */
  readonly realtime: RealtimeConfig;
  /** Folder of project lifecycle hooks (core/hooks/loader.ts). */
  readonly hooksDir: string;
  /** The response cache (core/cache, issue 17): off, in this process, or in Redis (REDIS_URL). */
  readonly cache: CacheConfig;
  readonly corsOrigins: readonly string[];
  readonly trustProxy: boolean;
  /** HTTP time bounds in milliseconds (core/http/server.ts). */
  readonly http: { readonly requestTimeoutMs: number; readonly headersTimeoutMs: number; readonly keepAliveTimeoutMs: number; readonly sendTimeoutMs: number };
  /** Bytes of read answers this node holds for clients that have not taken them yet (core/http/answer-buffer.ts). */
  readonly answerBufferMaxBytes: number;
  readonly iam: IamConfig;
  /** LOCALES and DEFAULT_LOCALE: the locales `i18n: true` models take (issue 14). */
  readonly locales: LocaleSettings;
  readonly mail: { readonly smtpUrl: string | null; readonly from: string; readonly smsWebhookUrl: string | null; readonly outboxDir: string };
}

/** An S3 or S3-compatible bucket (core/media/s3.ts); credentials come from the SDK's usual chain (AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY, …). */
export interface S3Config {
  readonly bucket: string;
  readonly region: string;
  /** An S3-compatible service's address (MinIO, R2, …); null: AWS. */
  readonly endpoint: string | null;
  readonly forcePathStyle: boolean;
  /** Prepended to every key (`media/` → `media/ab/<hex>.png`); empty or ending in `/`. */
  readonly prefix: string;
  /** Public buckets: `_full_url` = this base + key; null: private bucket, presigned GETs. */
  readonly publicUrl: string | null;
  readonly signedUrlTtlSeconds: number;
  /** S3_REQUEST_TIMEOUT in ms: how long one S3 call may go without a byte before it is abandoned (each of the SDK's attempts). */
  readonly requestTimeoutMs: number;
  /** AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY when both are set; null: the SDK's default chain (instance role, profile, …). */
  readonly credentials: { readonly accessKeyId: string; readonly secretAccessKey: string; readonly sessionToken: string | null } | null;
}

export interface EventsConfig {
  /** How often each node reads the outbox without a signal (a lost signal costs at most this). */
  readonly pollMs: number;
  /** How long a skipped outbox id is awaited (a transaction still running) before it counts as rolled back. */
  readonly gapWaitMs: number;
  /** Events older than this are deleted from the outbox (resume and webhook retries read within it). */
  readonly retentionMs: number;
}

export interface RealtimeConfig {
  /** Last-Event-ID older than this many events behind the newest: 410, the client reloads. */
  readonly resumeWindow: number;
  /** A comment line on an idle stream this often (proxies keep it open). */
  readonly heartbeatMs: number;
  /** Events waiting for one slow connection; past that the connection is dropped. */
  readonly queueMax: number;
  /** Bytes of events (their records as JSON) waiting for one slow connection; past that the connection is dropped. */
  readonly queueMaxBytes: number;
  /** Open streams per caller (user, API token, or address without a token) on one node; 429 beyond. */
  readonly maxConnections: number;
  /** Lifetime of a ticket from POST /api/realtime/ticket. */
  readonly ticketTtlMs: number;
  /** Live events reaching a stream within this window go out in one write (0: each at once). */
  readonly flushMs: number;
  /** Per-event filter checks of all streams on this node that hold a database connection at once (core/realtime/check-gate.ts). */
  readonly checkConcurrency: number;
}

export interface WebhooksConfig {
  /** Delivery runs on this node (WEBHOOK_DELIVERY=false: a node that only serves requests). */
  readonly deliver: boolean;
  readonly timeoutMs: number;
  /** Retries go on for this long after the first attempt; the delivery is failed after. */
  readonly retryForMs: number;
  readonly backoffBaseMs: number;
  readonly backoffMaxMs: number;
  /** A claimed delivery not finished in this time is another node's to take (its node died). */
  readonly leaseMs: number;
  readonly pollMs: number;
  /** Deliveries one node sends at once. */
  readonly concurrency: number;
  /**
   * Deliveries of one webhook one node sends at once (at most `concurrency`), and it holds at most
   * CLAIM_AHEAD times as many: a receiver that hangs takes this share of the node, no more.
   */
  readonly concurrencyPerHook: number;
  /** Host names (or addresses) the SSRF guard lets through although they resolve to private ranges. */
  readonly allowHosts: readonly string[];
  /** YAML file of webhooks kept in git (null: none). */
  readonly configFile: string | null;
}

export interface CacheConfig {
  readonly mode: 'off' | 'memory' | 'redis';
  readonly ttlMs: number;
  readonly maxEntries: number;
  readonly maxBytes: number;
  readonly maxEntryBytes: number;
}

export interface IamConfig {
  readonly jwtSecret: string | null;
  readonly allowPublicRegistration: boolean;
  readonly publicRegistrationRoles: readonly string[];
  readonly accessTokenTtlSeconds: number;
  readonly refreshTokenTtlSeconds: number;
  readonly refreshReuseIntervalSeconds: number;
  readonly otpExpirySeconds: number;
  readonly forgotPasswordExpirySeconds: number;
  readonly passwordLess: boolean;
  readonly registrationValidateWhat: readonly ('email' | 'mobile')[];
  readonly loginValidateWhat: readonly ('email' | 'mobile')[];
  readonly bcryptCost: number;
  readonly rateLimit: { readonly windowSeconds: number; readonly perAccount: number; readonly perAddress: number };
  /** OTP registration answers 409 for identifiers an account holds (false: the same answer as a fresh one, and a notice to the addresses). */
  readonly registrationRevealsTaken: boolean;
  /** Largest `customPayload` of an OTP registration, in bytes of its JSON text. */
  readonly customPayloadMaxBytes: number;
  /**
   * Largest JSON body of an identity endpoint that takes no token (sign-in, register, OTP, forgot/reset
   * password, refresh, logout); read only after the caller's address was counted. Above the custom payload.
   */
  readonly bodyMaxBytes: number;
  /** The YAML file of row-level rules and field lists kept in git (issue 16); a missing file declares none. */
  readonly accessRulesFile: string;
}

export interface Setting<T> {
  readonly env: string;
  readonly description: string;
  readonly fallback: string;
  readonly parse: (raw: string) => T;
}

function setting<T>(env: string, fallback: string, parse: (raw: string) => T, description: string): Setting<T> {
  return { env, fallback, parse, description };
}
const str = (raw: string): string => raw;
function parseDriver(raw: string): 'local' | 's3' {
  const v = raw.trim().toLowerCase();
  if (v === 'local' || v === 's3') return v;
  throw new Error(`"${raw}" is not a storage driver (local or s3)`);
}

function parseCacheMode(raw: string): 'off' | 'memory' | 'redis' {
  const v = raw.trim().toLowerCase();
  if (v === 'off' || v === 'memory' || v === 'redis') return v;
  throw new Error(`"${raw}" is not a cache mode (off, memory or redis)`);
}

/** The environment table; defaults are the raw strings a person would write. */
export const SETTINGS = {
  nodeEnv: setting('NODE_ENV', 'development', str, 'development, test or production'),
  port: setting('PORT', '1337', parsePositiveInt, 'listen port'),
  host: setting('HOST', '0.0.0.0', str, 'listen address'),
  publicUrl: setting('PUBLIC_URL', '', parseHttpUrl, 'base of _full_url, an http(s) URL (default http://localhost:$PORT); anything else stops the start naming it'),
  databaseUrl: setting('DATABASE_URL', '', str, 'postgres://… → PostgreSQL; mysql://… (or mariadb://…) → MariaDB/MySQL; sqlite:<path> or unset → SQLite .data/app.db'),
  databaseSchema: setting('DATABASE_SCHEMA', '', str, 'PostgreSQL schema to use (default: the connection default)'),
  heapGrowthPercent: setting('NODE_HEAP_GROWTH_PERCENT', '100', parseHeapGrowth, 'how far (percent) the JavaScript heap may grow past its live data before a full garbage collection; 0 leaves it to V8, which lets it reach 2-4 times under load (more memory, a little less GC work); lower saves memory for more GC work; at most 400'),
  poolMax: setting('DATABASE_POOL_MAX', '10', parseAtLeastOne, 'PostgreSQL and MariaDB: connections of the pool; a request that finds every one in use for 1.5 s answers 503 "busy" naming this setting'),
  sqliteReaders: setting('SQLITE_READERS', String(SQLITE_READERS_DEFAULT), parseSqliteReaders, 'SQLite on a file: read-only connections that serve Find, FindOne and grouped lists beside the one writer (0: the writer reads too; at most 16)'),
  contentTypesDir: setting('CONTENT_TYPES_DIR', 'content-types', str, 'folder of YAML models'),
  migrationsDir: setting('MIGRATIONS_DIR', 'database/migrations', str, 'folder of generated migrations'),
  autoMigrate: setting('AUTO_MIGRATE', '', str, 'generate + apply a migration for a registry change at start (default: on outside production)'),
  allowDestructive: setting('MIGRATE_ALLOW_DESTRUCTIVE', 'false', parseBoolean, 'let automatic migrations drop columns/tables'),
  apiMaxLimit: setting('API_MAX_LIMIT', '100', parsePositiveInt, 'largest limit honoured on Find'),
  populateDefaultLimit: setting('POPULATE_DEFAULT_LIMIT', '10', parsePositiveInt, 'children per parent of a to-many populate without populate[rel][limit]'),
  populateMaxLimit: setting('POPULATE_MAX_LIMIT', '100', parsePositiveInt, 'largest populate[rel][limit] honoured (larger is clamped)'),
  answerMaxRecords: setting('ANSWER_MAX_RECORDS', '50000', parsePositiveInt, 'records in one answer, populated ones counted (413 beyond)'),
  writeMaxLinks: setting('WRITE_MAX_LINKS', String(DEFAULT_WRITE_MAX_LINKS), parsePositiveInt, 'relation links (many-to-many ids) one write call may write: every item and relation of a bulk together, a publish\'s copied links included; 400 beyond'),
  answerMaxBytes: setting('ANSWER_MAX_BYTES', '16777216', parsePositiveInt, 'bytes of one record answer (413 beyond)'),
  answerBufferMaxBytes: setting('ANSWER_BUFFER_MAX_BYTES', '268435456', parsePositiveInt, 'bytes of record read answers this node holds for clients that have not taken them yet; a read past it answers 503 (answers up to 64 KiB always go)'),
  queryMaxRelationHops: setting('QUERY_MAX_RELATION_HOPS', String(DEFAULT_MAX_RELATION_HOPS), parsePositiveInt, 'relations one filter, sort, populate-filter or group path may walk (400 beyond)'),
  queryMaxRelationScopes: setting('QUERY_MAX_RELATION_SCOPES', String(DEFAULT_MAX_RELATION_SCOPES), parsePositiveInt, 'relation subqueries and joins one query may hold (400 beyond)'),
  callerConcurrency: setting('CALLER_CONCURRENCY', '6', parsePositiveInt, 'record requests of one caller (user, or address without a token) that run at once; more wait for a turn'),
  callerQueue: setting('CALLER_QUEUE', '100', parsePositiveInt, 'record requests of one caller that may wait for a turn; past that 429'),
  callerQueueTimeout: setting('CALLER_QUEUE_TIMEOUT', '10s', parseDuration, 'longest a record request waits for its caller\'s turn; 503 after'),
  queryTimeout: setting('QUERY_TIMEOUT', '10s', parseDuration, 'longest one database statement may run; it is stopped then and the request answers 504 (0: no limit)'),
  logLevel: setting('LOG_LEVEL', 'info', parseLogLevel, 'log level: fatal, error, warn, info, debug, trace or silent'),
  bodyMaxBytes: setting('BODY_MAX_BYTES', '1048576', parsePositiveInt, 'largest JSON body'),
  uploadsDir: setting('UPLOADS_DIR', '', str, 'local media storage (default .data/uploads)'),
  uploadMaxBytes: setting('UPLOAD_MAX_BYTES', '10485760', parsePositiveInt, 'per-file upload limit'),
  uploadMaxFiles: setting('UPLOAD_MAX_FILES', '10', parsePositiveInt, 'file parts one multipart request may carry (413 beyond)'),
  uploadPartHeaderMaxBytes: setting('UPLOAD_PART_HEADER_MAX_BYTES', '16384', parsePositiveInt, 'bytes of the headers of one multipart part, names and values together (its Content-Disposition with the part and file name, its Content-Type): 413 beyond, counted as they arrive'),
  uploadsDriver: setting('UPLOADS_DRIVER', 'local', parseDriver, 'where media bytes live: local (UPLOADS_DIR) or s3 (S3_* settings)'),
  s3Bucket: setting('S3_BUCKET', '', str, 'bucket name (required with UPLOADS_DRIVER=s3)'),
  s3Region: setting('S3_REGION', 'us-east-1', str, 'bucket region'),
  s3Endpoint: setting('S3_ENDPOINT', '', str, 'S3-compatible service address, e.g. http://minio:9000 (default: AWS)'),
  s3ForcePathStyle: setting('S3_FORCE_PATH_STYLE', 'false', parseBoolean, 'path-style addresses (endpoint/bucket/key), as most S3-compatible services need'),
  s3Prefix: setting('S3_PREFIX', '', str, 'key prefix inside the bucket, e.g. media/'),
  s3PublicUrl: setting('S3_PUBLIC_URL', '', str, 'public buckets: base of _full_url (bucket URL or CDN); unset: private bucket, presigned URLs'),
  s3SignedUrlTtl: setting('S3_SIGNED_URL_TTL', '15m', parseDuration, 'private buckets: lifetime of a presigned _full_url'),
  s3RequestTimeout: setting('S3_REQUEST_TIMEOUT', '60s', parseDuration, 'how long one S3 call may go without a byte before it is abandoned (each of the SDK\'s 3 attempts; then 503 naming this setting); 100ms … 1h'),
  awsAccessKeyId: setting('AWS_ACCESS_KEY_ID', '', str, 'S3 credentials (with AWS_SECRET_ACCESS_KEY); unset: the AWS SDK default chain'),
  awsSecretAccessKey: setting('AWS_SECRET_ACCESS_KEY', '', str, 'S3 credentials (with AWS_ACCESS_KEY_ID)'),
  awsSessionToken: setting('AWS_SESSION_TOKEN', '', str, 'temporary S3 credentials: their session token'),
  redisUrl: setting('REDIS_URL', '', str, 'shared rate-limit / revocation store; event signal between nodes; CACHE=redis store'),
  redisNamespace: setting('REDIS_NAMESPACE', '', parseRedisNamespace, "the deployment's name in Redis keys and channels (1-64 of A-Z a-z 0-9 _ . -); unset: a hash of the database's server, port, database and schema (SQLite: its file), whatever the credentials or parameters of DATABASE_URL"),
  eventsPollInterval: setting('EVENTS_POLL_INTERVAL', '500ms', parseDuration, 'how often a node reads the event outbox without a signal (bounds how late a lost signal makes an event)'),
  eventsGapWait: setting('EVENTS_GAP_WAIT', '30s', parseDuration, 'how long a skipped outbox id (a transaction still running) is awaited before it counts as rolled back'),
  hooksDir: setting('HOOKS_DIR', 'hooks', str, 'folder of project lifecycle hooks (TypeScript there is read from its compiled twin under dist/)'),
  eventsRetention: setting('EVENTS_RETENTION', '7d', parseDuration, 'how long the event outbox keeps an event (resume window; must exceed WEBHOOK_RETRY_FOR), and a finished webhook delivery with it'),
  realtimeResumeWindow: setting('REALTIME_RESUME_WINDOW', '1000', parsePositiveInt, 'events a stream resumed with Last-Event-ID may be behind the newest; further behind: 410, reload'),
  realtimeHeartbeat: setting('REALTIME_HEARTBEAT', '15s', parseDuration, 'how often an idle realtime stream gets a comment line (keeps proxies from closing it)'),
  realtimeQueueMax: setting('REALTIME_QUEUE_MAX', '1000', parsePositiveInt, 'events waiting for one realtime connection; a client that falls further behind is dropped'),
  realtimeQueueMaxBytes: setting('REALTIME_QUEUE_MAX_BYTES', '4194304', parseAtLeastOne, 'bytes of events (their records as JSON) waiting for one realtime connection; a client that falls further behind is dropped, as past REALTIME_QUEUE_MAX'),
  realtimeMaxConnections: setting('REALTIME_MAX_CONNECTIONS', '10', parsePositiveInt, 'open realtime streams per caller on one node (429 beyond); a closed stream counts until its work has stopped'),
  realtimeFlush: setting('REALTIME_FLUSH', '20ms', parseFlushWindow, 'live events reaching a realtime stream within this window go out in one write (0: each at once; at most 1s)'),
  realtimeCheckConcurrency: setting('REALTIME_CHECK_CONCURRENCY', '2', parseAtLeastOne, 'per-event filter checks of all realtime streams on one node that run at once (a database connection each); more wait their turn, delaying only their stream; never more than the pool less one'),
  realtimeTicketTtl: setting('REALTIME_TICKET_TTL', '30s', parseDuration, 'lifetime of a realtime ticket (POST /api/realtime/ticket) for browsers\' EventSource'),
  webhookDelivery: setting('WEBHOOK_DELIVERY', 'true', parseBoolean, 'this node sends webhook deliveries (false: it only records them)'),
  webhookTimeout: setting('WEBHOOK_TIMEOUT', '10s', parseDuration, 'longest one delivery attempt may take (connect to last byte)'),
  webhookRetryFor: setting('WEBHOOK_RETRY_FOR', '24h', parseDuration, 'how long a failing delivery is retried before it is marked failed'),
  webhookBackoffBase: setting('WEBHOOK_BACKOFF_BASE', '10s', parseDuration, 'delay before the first retry; doubles each attempt, with jitter'),
  webhookBackoffMax: setting('WEBHOOK_BACKOFF_MAX', '1h', parseDuration, 'longest delay between two attempts'),
  webhookLease: setting('WEBHOOK_LEASE', '60s', parseDuration, 'a delivery claimed by a node that finishes nothing in this time is taken by another (raised to WEBHOOK_TIMEOUT + 1s at least)'),
  webhookPollInterval: setting('WEBHOOK_POLL_INTERVAL', '1s', parseDuration, 'how often a node looks for due deliveries while some are unfinished (idle: on each event signal, and every 30 s)'),
  webhookConcurrency: setting('WEBHOOK_CONCURRENCY', '8', parsePositiveInt, 'deliveries one node sends at once'),
  webhookConcurrencyPerHook: setting('WEBHOOK_CONCURRENCY_PER_HOOK', '', (raw) => (raw.trim() === '' ? null : parseAtLeastOne(raw)), 'deliveries of one webhook one node sends at once (a receiver that hangs takes this share, no more; unset: half of WEBHOOK_CONCURRENCY, rounded up; at most WEBHOOK_CONCURRENCY)'),
  webhookAllowHosts: setting('WEBHOOK_ALLOW_HOSTS', '', parseList, 'webhook destinations let through although loopback/private (comma-separated host names or addresses)'),
  webhookConfigFile: setting('WEBHOOK_CONFIG_FILE', '', str, 'YAML file of webhooks declared in git (see README: Webhooks)'),
  cache: setting('CACHE', 'off', parseCacheMode, 'response cache of Find/FindOne answers: off, memory (this process) or redis (REDIS_URL, shared by every node)'),
  cacheTtl: setting('CACHE_TTL', '5m', parseDuration, 'longest a cached answer is served (writes purge it at once anyway)'),
  cacheMaxEntries: setting('CACHE_MAX_ENTRIES', '10000', parsePositiveInt, 'CACHE=memory: answers kept; the least recently used go first'),
  cacheMaxBytes: setting('CACHE_MAX_BYTES', '33554432', parsePositiveInt, 'bytes of the answers kept (plus 512 per entry); memory: in this process, the least recently used go first; redis: all nodes together, the oldest go first'),
  cacheMaxEntryBytes: setting('CACHE_MAX_ENTRY_BYTES', '1048576', parsePositiveInt, 'largest answer the cache stores (larger ones are computed every time)'),
  corsOrigins: setting('CORS_ORIGINS', '', parseList, 'allowed CORS origins, comma-separated'),
  httpRequestTimeout: setting('HTTP_REQUEST_TIMEOUT', '30s', parseDuration, 'longest a request (headers and body) may take to arrive; 408 after'),
  httpHeadersTimeout: setting('HTTP_HEADERS_TIMEOUT', '10s', parseDuration, 'longest the request headers may take to arrive'),
  httpKeepAliveTimeout: setting('HTTP_KEEP_ALIVE_TIMEOUT', '5s', parseDuration, 'how long an idle keep-alive connection stays open'),
  httpSendTimeout: setting('HTTP_SEND_TIMEOUT', '30s', parseDuration, 'longest an answer of known length may wait for the client to take any of its bytes; the connection is closed then (0: no limit)'),
  trustProxy: setting('TRUST_PROXY', 'false', parseBoolean, 'trust X-Forwarded-For from the peer'),
  jwtSecret: setting('IAM_JWT_SECRET', '', str, 'HS256 secret (≥ 32 bytes)'),
  allowPublicRegistration: setting('IAM_ALLOW_PUBLIC_REGISTRATION', 'false', parseBoolean, 'enable POST /api/iam/register'),
  publicRegistrationRoles: setting('IAM_PUBLIC_REGISTRATION_ROLES', 'authenticated', parseList, 'roles a public registrant may ask for'),
  accessTokenTtl: setting('IAM_JWT_ACCESS_TOKEN_TTL', '60m', parseDuration, 'access token lifetime'),
  refreshTokenTtl: setting('IAM_JWT_REFRESH_TOKEN_TTL', '1d', parseDuration, 'refresh token lifetime'),
  refreshReuseInterval: setting('IAM_REFRESH_REUSE_INTERVAL', '10s', parseDuration, 'grace period for a rotated refresh token'),
  otpExpiry: setting('IAM_OTP_EXPIRY', '5m', parseDuration, 'OTP lifetime'),
  forgotPasswordExpiry: setting('IAM_FORGOT_PASSWORD_EXPIRY', '10m', parseDuration, 'reset-token lifetime'),
  passwordLess: setting('IAM_PASSWORD_LESS_REGISTRATION', 'false', parseBoolean, 'enable OTP register + login'),
  registrationValidateWhat: setting('IAM_PASSWORD_LESS_REGISTRATION_VALIDATE_WHAT', 'email', parseSources, 'sources verified at OTP registration'),
  loginValidateWhat: setting('IAM_PASSWORD_LESS_LOGIN_VALIDATE_WHAT', 'email', parseSources, 'sources verified at OTP login'),
  rateLimitWindow: setting('IAM_RATE_LIMIT_WINDOW', '1m', parseDuration, 'rate-limit window of sign-in, OTP, reset, register, refresh and logout calls'),
  rateLimitPerAccount: setting('IAM_RATE_LIMIT_PER_ACCOUNT', '10', parsePositiveInt, 'calls per window and account identifier'),
  rateLimitPerAddress: setting('IAM_RATE_LIMIT_PER_ADDRESS', '60', parsePositiveInt, 'calls per window and client address'),
  registrationRevealsTaken: setting('IAM_REGISTRATION_REVEALS_TAKEN', 'true', parseBoolean, 'OTP registration answers 409 when an account holds the e-mail, mobile or username (false: the same answer as a fresh registration; the addresses get a notice)'),
  customPayloadMaxBytes: setting('IAM_CUSTOM_PAYLOAD_MAX_BYTES', '16384', parsePositiveInt, 'largest customPayload of an OTP registration (bytes of its JSON)'),
  iamBodyMaxBytes: setting('IAM_BODY_MAX_BYTES', '65536', parsePositiveInt, 'largest JSON body of an identity endpoint that takes no token (sign-in, register, OTP, forgot/reset password, refresh, logout; 413 beyond); above IAM_CUSTOM_PAYLOAD_MAX_BYTES'),
  accessRulesFile: setting('IAM_ACCESS_RULES_FILE', 'config/access-rules.yaml', str, 'YAML file of row-level rules and field lists per role, applied at every start (missing: none)'),
  bcryptCost: setting('IAM_BCRYPT_COST', '10', parsePositiveInt, 'bcrypt cost factor (≥ 10 outside tests)'),
  locales: setting('LOCALES', 'en', parseLocales, 'locales of models with i18n: true, comma-separated codes (en,fr,de)'),
  defaultLocale: setting('DEFAULT_LOCALE', 'en', str, 'the locale a request without locale= reads and writes; must be one of LOCALES'),
  smtpUrl: setting('SMTP_URL', '', str, 'nodemailer SMTP transport URL'),
  mailFrom: setting('MAIL_FROM', 'no-reply@localhost', str, 'sender address'),
  smsWebhookUrl: setting('SMS_WEBHOOK_URL', '', str, 'SMS gateway (POST {to, text})'),
} as const;
