/**
 * Every setting, its environment name, default and parser, in one table (CONTRACT: Environment).
 * config/index.ts is the only reader of process.env.
 */
import { DEFAULT_MAX_RELATION_HOPS, DEFAULT_MAX_RELATION_SCOPES } from '../core/query/limits';
import { type LogLevel, parseBoolean, parseDuration, parseList, parseLogLevel, parsePositiveInt, parseSources } from './parse';

export type DatabaseTarget =
  | { readonly client: 'sqlite'; readonly filename: string }
  | { readonly client: 'pg'; readonly connectionString: string; readonly schema: string | null };

export interface Config {
  readonly nodeEnv: string;
  readonly production: boolean;
  readonly rootDir: string;
  readonly dataDir: string;
  readonly port: number;
  readonly host: string;
  readonly publicUrl: string;
  readonly database: DatabaseTarget;
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
  /** Query cost bounds (core/query/cost.ts) and the per-statement time limit (0: none). */
  readonly query: { readonly maxRelationHops: number; readonly maxRelationScopes: number; readonly timeoutMs: number };
  /** Record requests of one caller that run at once, and that may wait for a turn (core/http/caller-gate.ts). */
  readonly callerGate: { readonly running: number; readonly waiting: number; readonly maxWaitMs: number };
  readonly logLevel: LogLevel;
  readonly bodyMaxBytes: number;
  readonly uploadsDir: string;
  readonly uploadMaxBytes: number;
  /** Where media bytes live (UPLOADS_DRIVER); `s3`: the bucket (always with the s3 driver; with local when S3_BUCKET is set, for media:migrate). */
  readonly uploads: { readonly driver: 'local' | 's3'; readonly s3: S3Config | null };
  readonly redisUrl: string | null;
  readonly corsOrigins: readonly string[];
  readonly trustProxy: boolean;
  /** HTTP time bounds in milliseconds (core/http/server.ts). */
  readonly http: { readonly requestTimeoutMs: number; readonly headersTimeoutMs: number; readonly keepAliveTimeoutMs: number };
  readonly iam: IamConfig;
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
  /** AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY when both are set; null: the SDK's default chain (instance role, profile, …). */
  readonly credentials: { readonly accessKeyId: string; readonly secretAccessKey: string; readonly sessionToken: string | null } | null;
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

/** The environment table; defaults are the raw strings a person would write. */
export const SETTINGS = {
  nodeEnv: setting('NODE_ENV', 'development', str, 'development, test or production'),
  port: setting('PORT', '1337', parsePositiveInt, 'listen port'),
  host: setting('HOST', '0.0.0.0', str, 'listen address'),
  publicUrl: setting('PUBLIC_URL', '', str, 'base of _full_url (default http://localhost:$PORT)'),
  databaseUrl: setting('DATABASE_URL', '', str, 'postgres://… → PostgreSQL; sqlite:<path> or unset → SQLite .data/app.db'),
  databaseSchema: setting('DATABASE_SCHEMA', '', str, 'PostgreSQL schema to use (default: the connection default)'),
  contentTypesDir: setting('CONTENT_TYPES_DIR', 'content-types', str, 'folder of YAML models'),
  migrationsDir: setting('MIGRATIONS_DIR', 'database/migrations', str, 'folder of generated migrations'),
  autoMigrate: setting('AUTO_MIGRATE', '', str, 'generate + apply a migration for a registry change at start (default: on outside production)'),
  allowDestructive: setting('MIGRATE_ALLOW_DESTRUCTIVE', 'false', parseBoolean, 'let automatic migrations drop columns/tables'),
  apiMaxLimit: setting('API_MAX_LIMIT', '100', parsePositiveInt, 'largest limit honoured on Find'),
  populateDefaultLimit: setting('POPULATE_DEFAULT_LIMIT', '10', parsePositiveInt, 'children per parent of a to-many populate without populate[rel][limit]'),
  populateMaxLimit: setting('POPULATE_MAX_LIMIT', '100', parsePositiveInt, 'largest populate[rel][limit] honoured (larger is clamped)'),
  answerMaxRecords: setting('ANSWER_MAX_RECORDS', '50000', parsePositiveInt, 'records in one answer, populated ones counted (413 beyond)'),
  answerMaxBytes: setting('ANSWER_MAX_BYTES', '16777216', parsePositiveInt, 'bytes of one record answer (413 beyond)'),
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
  uploadsDriver: setting('UPLOADS_DRIVER', 'local', parseDriver, 'where media bytes live: local (UPLOADS_DIR) or s3 (S3_* settings)'),
  s3Bucket: setting('S3_BUCKET', '', str, 'bucket name (required with UPLOADS_DRIVER=s3)'),
  s3Region: setting('S3_REGION', 'us-east-1', str, 'bucket region'),
  s3Endpoint: setting('S3_ENDPOINT', '', str, 'S3-compatible service address, e.g. http://minio:9000 (default: AWS)'),
  s3ForcePathStyle: setting('S3_FORCE_PATH_STYLE', 'false', parseBoolean, 'path-style addresses (endpoint/bucket/key), as most S3-compatible services need'),
  s3Prefix: setting('S3_PREFIX', '', str, 'key prefix inside the bucket, e.g. media/'),
  s3PublicUrl: setting('S3_PUBLIC_URL', '', str, 'public buckets: base of _full_url (bucket URL or CDN); unset: private bucket, presigned URLs'),
  s3SignedUrlTtl: setting('S3_SIGNED_URL_TTL', '15m', parseDuration, 'private buckets: lifetime of a presigned _full_url'),
  awsAccessKeyId: setting('AWS_ACCESS_KEY_ID', '', str, 'S3 credentials (with AWS_SECRET_ACCESS_KEY); unset: the AWS SDK default chain'),
  awsSecretAccessKey: setting('AWS_SECRET_ACCESS_KEY', '', str, 'S3 credentials (with AWS_ACCESS_KEY_ID)'),
  awsSessionToken: setting('AWS_SESSION_TOKEN', '', str, 'temporary S3 credentials: their session token'),
  redisUrl: setting('REDIS_URL', '', str, 'shared rate-limit / revocation store'),
  corsOrigins: setting('CORS_ORIGINS', '', parseList, 'allowed CORS origins, comma-separated'),
  httpRequestTimeout: setting('HTTP_REQUEST_TIMEOUT', '30s', parseDuration, 'longest a request (headers and body) may take to arrive; 408 after'),
  httpHeadersTimeout: setting('HTTP_HEADERS_TIMEOUT', '10s', parseDuration, 'longest the request headers may take to arrive'),
  httpKeepAliveTimeout: setting('HTTP_KEEP_ALIVE_TIMEOUT', '5s', parseDuration, 'how long an idle keep-alive connection stays open'),
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
  rateLimitWindow: setting('IAM_RATE_LIMIT_WINDOW', '1m', parseDuration, 'rate-limit window of sign-in, OTP, reset and register calls'),
  rateLimitPerAccount: setting('IAM_RATE_LIMIT_PER_ACCOUNT', '10', parsePositiveInt, 'calls per window and account identifier'),
  rateLimitPerAddress: setting('IAM_RATE_LIMIT_PER_ADDRESS', '60', parsePositiveInt, 'calls per window and client address'),
  registrationRevealsTaken: setting('IAM_REGISTRATION_REVEALS_TAKEN', 'true', parseBoolean, 'OTP registration answers 409 when an account holds the e-mail, mobile or username (false: the same answer as a fresh registration; the addresses get a notice)'),
  customPayloadMaxBytes: setting('IAM_CUSTOM_PAYLOAD_MAX_BYTES', '16384', parsePositiveInt, 'largest customPayload of an OTP registration (bytes of its JSON)'),
  bcryptCost: setting('IAM_BCRYPT_COST', '10', parsePositiveInt, 'bcrypt cost factor (≥ 10 outside tests)'),
  smtpUrl: setting('SMTP_URL', '', str, 'nodemailer SMTP transport URL'),
  mailFrom: setting('MAIL_FROM', 'no-reply@localhost', str, 'sender address'),
  smsWebhookUrl: setting('SMS_WEBHOOK_URL', '', str, 'SMS gateway (POST {to, text})'),
} as const;
