import { expect } from 'chai';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig } from '../../../config';
import { parseDuration } from '../../../config/parse';

describe('config', () => {
  const root = mkdtempSync(join(tmpdir(), 'ris-config-'));
  const base = { DATA_DIR: join(root, 'data') };

  it('reads the contract defaults', () => {
    const c = loadConfig({ ...base }, root);
    expect(c.port).to.equal(1337);
    expect(c.host).to.equal('0.0.0.0');
    expect(c.database).to.deep.equal({ client: 'sqlite', filename: join(root, 'data', 'app.db') });
    expect(c.publicUrl).to.equal('http://localhost:1337');
    expect(c.apiMaxLimit).to.equal(100);
    expect(c.iam.accessTokenTtlSeconds).to.equal(3600);
    expect(c.iam.refreshTokenTtlSeconds).to.equal(86400);
    expect(c.iam.otpExpirySeconds).to.equal(300);
    expect(c.iam.forgotPasswordExpirySeconds).to.equal(600);
    expect(c.autoMigrate).to.equal(true);
    expect(Object.isFrozen(c.iam)).to.equal(true);
    expect(c.query).to.deep.equal({ maxRelationHops: 3, maxRelationScopes: 16, timeoutMs: 10_000 });
  });

  it('reads the query bounds and QUERY_TIMEOUT as a duration; refuses a malformed one naming it', () => {
    const c = loadConfig({ ...base, QUERY_MAX_RELATION_HOPS: '2', QUERY_MAX_RELATION_SCOPES: '7', QUERY_TIMEOUT: '250ms' }, root);
    expect(c.query).to.deep.equal({ maxRelationHops: 2, maxRelationScopes: 7, timeoutMs: 250 });
    expect(loadConfig({ ...base, QUERY_TIMEOUT: '0' }, root).query.timeoutMs).to.equal(0);
    expect(() => loadConfig({ ...base, QUERY_TIMEOUT: 'soon' }, root)).to.throw(ConfigError, /QUERY_TIMEOUT/);
    expect(() => loadConfig({ ...base, QUERY_MAX_RELATION_HOPS: '-1' }, root)).to.throw(ConfigError, /QUERY_MAX_RELATION_HOPS/);
  });

  it('SQLITE_READERS: 8 by default (above CALLER_CONCURRENCY), 0 to 16 (16 starts, 17 is refused naming the setting)', () => {
    expect(loadConfig(base, root).sqliteReaders).to.equal(8);
    expect(loadConfig({ ...base, SQLITE_READERS: '0' }, root).sqliteReaders).to.equal(0);
    expect(loadConfig({ ...base, SQLITE_READERS: '16' }, root).sqliteReaders).to.equal(16);
    expect(() => loadConfig({ ...base, SQLITE_READERS: '17' }, root)).to.throw(ConfigError, /SQLITE_READERS: "17" is more than 16/);
    expect(() => loadConfig({ ...base, SQLITE_READERS: 'two' }, root)).to.throw(ConfigError, /SQLITE_READERS/);
  });

  it('NODE_HEAP_GROWTH_PERCENT: 100 by default, 0 (V8 decides) to 400 (400 starts, 401 is refused naming the setting)', () => {
    expect(loadConfig(base, root).heapGrowthPercent).to.equal(100);
    expect(loadConfig({ ...base, NODE_HEAP_GROWTH_PERCENT: '0' }, root).heapGrowthPercent).to.equal(0);
    expect(loadConfig({ ...base, NODE_HEAP_GROWTH_PERCENT: '400' }, root).heapGrowthPercent).to.equal(400);
    expect(() => loadConfig({ ...base, NODE_HEAP_GROWTH_PERCENT: '401' }, root)).to.throw(ConfigError, /NODE_HEAP_GROWTH_PERCENT: "401" is more than 400/);
    expect(() => loadConfig({ ...base, NODE_HEAP_GROWTH_PERCENT: 'half' }, root)).to.throw(ConfigError, /NODE_HEAP_GROWTH_PERCENT/);
  });

  it('reads the per-caller gate: CALLER_CONCURRENCY (at least 1), CALLER_QUEUE and CALLER_QUEUE_TIMEOUT', () => {
    expect(loadConfig(base, root).callerGate).to.deep.equal({ running: 6, waiting: 100, maxWaitMs: 10_000 });
    expect(loadConfig({ ...base, CALLER_CONCURRENCY: '2', CALLER_QUEUE: '0', CALLER_QUEUE_TIMEOUT: '250ms' }, root).callerGate).to.deep.equal({ running: 2, waiting: 0, maxWaitMs: 250 });
    expect(loadConfig({ ...base, CALLER_CONCURRENCY: '0' }, root).callerGate.running).to.equal(1);
    expect(() => loadConfig({ ...base, CALLER_QUEUE: 'many' }, root)).to.throw(ConfigError, /CALLER_QUEUE/);
  });

  it('populate and answer bounds: defaults, settings, and a per-parent default above the maximum refused', () => {
    const c = loadConfig({ ...base }, root);
    expect([c.populateDefaultLimit, c.populateMaxLimit, c.answerMaxRecords, c.answerMaxBytes]).to.deep.equal([10, 100, 50_000, 16 * 1024 * 1024]);
    const set = loadConfig({ ...base, POPULATE_DEFAULT_LIMIT: '5', POPULATE_MAX_LIMIT: '5', ANSWER_MAX_RECORDS: '7', ANSWER_MAX_BYTES: '4096' }, root);
    expect([set.populateDefaultLimit, set.populateMaxLimit, set.answerMaxRecords, set.answerMaxBytes]).to.deep.equal([5, 5, 7, 4096]);
    expect(() => loadConfig({ ...base, POPULATE_DEFAULT_LIMIT: '6', POPULATE_MAX_LIMIT: '5' }, root)).to.throw(ConfigError, /POPULATE_DEFAULT_LIMIT.*POPULATE_MAX_LIMIT/);
    expect(() => loadConfig({ ...base, ANSWER_MAX_BYTES: 'lots' }, root)).to.throw(ConfigError, /ANSWER_MAX_BYTES/);
  });

  it('IAM_BODY_MAX_BYTES: 64 KiB by default; it must hold an OTP registration with the largest customPayload', () => {
    expect(loadConfig({ ...base }, root).iam.bodyMaxBytes).to.equal(65_536);
    expect(loadConfig({ ...base, IAM_BODY_MAX_BYTES: '20000', IAM_CUSTOM_PAYLOAD_MAX_BYTES: '16384' }, root).iam.bodyMaxBytes).to.equal(20_000);
    expect(() => loadConfig({ ...base, IAM_BODY_MAX_BYTES: '16384' }, root)).to.throw(ConfigError, /IAM_BODY_MAX_BYTES.*IAM_CUSTOM_PAYLOAD_MAX_BYTES/);
    expect(() => loadConfig({ ...base, IAM_BODY_MAX_BYTES: 'lots' }, root)).to.throw(ConfigError, /IAM_BODY_MAX_BYTES/);
  });

  it('generates a development JWT secret once into the data folder', () => {
    const a = loadConfig({ ...base }, root);
    const b = loadConfig({ ...base }, root);
    expect(a.iam.jwtSecret).to.be.a('string').with.length.greaterThan(32);
    expect(b.iam.jwtSecret).to.equal(a.iam.jwtSecret);
    expect(readFileSync(join(root, 'data', 'jwt-secret'), 'utf8').trim()).to.equal(a.iam.jwtSecret);
  });

  it('refuses to start in production without IAM_JWT_SECRET, and a short secret anywhere', () => {
    expect(() => loadConfig({ ...base, NODE_ENV: 'production' }, root)).to.throw(ConfigError, /IAM_JWT_SECRET/);
    expect(() => loadConfig({ ...base, IAM_JWT_SECRET: 'short' }, root)).to.throw(ConfigError, /32 bytes/);
    expect(loadConfig({ ...base, NODE_ENV: 'production', IAM_JWT_SECRET: 's'.repeat(32) }, root).autoMigrate).to.equal(false);
  });

  it('parses DATABASE_URL forms and refuses others', () => {
    expect(loadConfig({ ...base, DATABASE_URL: 'postgres://u@h:5432/db' }, root).database).to.deep.equal({ client: 'pg', connectionString: 'postgres://u@h:5432/db', schema: null });
    expect(loadConfig({ ...base, DATABASE_URL: 'sqlite:x/y.db' }, root).database).to.deep.equal({ client: 'sqlite', filename: join(root, 'x/y.db') });
    expect(loadConfig({ ...base, DATABASE_URL: 'sqlite:/abs/z.db' }, root).database).to.deep.equal({ client: 'sqlite', filename: '/abs/z.db' });
    expect(loadConfig({ ...base, DATABASE_URL: 'mysql://u:p@h:3306/db' }, root).database).to.deep.equal({ client: 'mysql', connectionString: 'mysql://u:p@h:3306/db' });
    expect(loadConfig({ ...base, DATABASE_URL: 'mariadb://u@h/db' }, root).database).to.deep.equal({ client: 'mysql', connectionString: 'mysql://u@h/db' });
    // a MariaDB URL must name its database
    expect(() => loadConfig({ ...base, DATABASE_URL: 'mysql://x' }, root)).to.throw(ConfigError, /DATABASE_URL/);
    expect(() => loadConfig({ ...base, DATABASE_URL: 'mysql://u@h:3306/' }, root)).to.throw(ConfigError, /names no database/);
    expect(() => loadConfig({ ...base, DATABASE_URL: 'oracle://u@h/db' }, root)).to.throw(ConfigError, /DATABASE_URL/);
  });

  it('names the setting in a parse error', () => {
    expect(() => loadConfig({ ...base, PORT: 'eighty' }, root)).to.throw(ConfigError, /^PORT: /);
    expect(() => loadConfig({ ...base, IAM_OTP_EXPIRY: '5 minutes' }, root)).to.throw(ConfigError, /IAM_OTP_EXPIRY/);
    expect(() => loadConfig({ ...base, IAM_PASSWORD_LESS_LOGIN_VALIDATE_WHAT: 'email,fax' }, root)).to.throw(ConfigError, /fax/);
  });

  it('parses durations', () => {
    expect([parseDuration('60m'), parseDuration('1d'), parseDuration('90'), parseDuration('500ms'), parseDuration('2h')]).to.deep.equal([3600, 86400, 90, 0.5, 7200]);
  });

  describe('storage (issue 18: UPLOADS_DRIVER, S3_*)', () => {
    it('local by default; S3 settings are read only when S3_BUCKET is set', () => {
      expect(loadConfig(base, root).uploads).to.deep.equal({ driver: 'local', s3: null });
      expect(loadConfig({ ...base, S3_BUCKET: 'b' }, root).uploads.driver).to.equal('local');
      expect(loadConfig({ ...base, S3_BUCKET: 'b' }, root).uploads.s3?.bucket).to.equal('b');
    });

    it('UPLOADS_DRIVER=s3 without S3_BUCKET is one clear start error; an unknown driver too', () => {
      expect(() => loadConfig({ ...base, UPLOADS_DRIVER: 's3' }, root)).to.throw(ConfigError, /^S3_BUCKET: required when UPLOADS_DRIVER=s3$/);
      expect(() => loadConfig({ ...base, UPLOADS_DRIVER: 'ftp' }, root)).to.throw(ConfigError, /UPLOADS_DRIVER.*local or s3/);
    });

    it('reads the S3 settings: defaults, prefix and URL forms, credentials', () => {
      const s3 = loadConfig({ ...base, UPLOADS_DRIVER: 's3', S3_BUCKET: 'b' }, root).uploads.s3;
      expect(s3).to.deep.equal({ bucket: 'b', region: 'us-east-1', endpoint: null, forcePathStyle: false, prefix: '', publicUrl: null, signedUrlTtlSeconds: 900, requestTimeoutMs: 60000, credentials: null });
      const full = loadConfig({
        ...base,
        UPLOADS_DRIVER: 's3',
        S3_BUCKET: 'b',
        S3_REGION: 'eu-west-3',
        S3_ENDPOINT: 'http://minio:9000/',
        S3_FORCE_PATH_STYLE: 'true',
        S3_PREFIX: '/media',
        S3_PUBLIC_URL: 'https://cdn.example.test/',
        S3_SIGNED_URL_TTL: '1h',
        AWS_ACCESS_KEY_ID: 'id',
        AWS_SECRET_ACCESS_KEY: 'secret',
      }, root).uploads.s3;
      expect(full).to.deep.equal({ bucket: 'b', region: 'eu-west-3', endpoint: 'http://minio:9000', forcePathStyle: true, prefix: 'media/', publicUrl: 'https://cdn.example.test', signedUrlTtlSeconds: 3600, requestTimeoutMs: 60000, credentials: { accessKeyId: 'id', secretAccessKey: 'secret', sessionToken: null } });
    });

    it('refuses a bad endpoint or public URL, a TTL outside 1 s … 7 d, and half a key pair', () => {
      const s3 = { ...base, UPLOADS_DRIVER: 's3', S3_BUCKET: 'b' };
      expect(() => loadConfig({ ...s3, S3_ENDPOINT: 'minio:9000' }, root)).to.throw(ConfigError, /S3_ENDPOINT/);
      expect(() => loadConfig({ ...s3, S3_PUBLIC_URL: 'cdn' }, root)).to.throw(ConfigError, /S3_PUBLIC_URL/);
      // S3_REQUEST_TIMEOUT: 100 ms … 1 h
      expect(loadConfig({ ...s3, S3_REQUEST_TIMEOUT: '100ms' }, root).uploads.s3?.requestTimeoutMs).to.equal(100);
      expect(loadConfig({ ...s3, S3_REQUEST_TIMEOUT: '1h' }, root).uploads.s3?.requestTimeoutMs).to.equal(3_600_000);
      for (const bad of ['99ms', '3601s', 'soon']) expect(() => loadConfig({ ...s3, S3_REQUEST_TIMEOUT: bad }, root), bad).to.throw(ConfigError, /^S3_REQUEST_TIMEOUT: /);
      // PUBLIC_URL, the base of every _full_url, is checked alike (a value without a scheme made every link relative and broken)
      expect(loadConfig({ ...base, PUBLIC_URL: 'https://cdn.example.test/cms/' }, root).publicUrl).to.equal('https://cdn.example.test/cms');
      for (const bad of ['cdn.example.test', 'ftp://cdn.example.test', 'https://', 'https://exa mple.test']) {
        expect(() => loadConfig({ ...base, PUBLIC_URL: bad }, root), bad).to.throw(ConfigError, /^PUBLIC_URL: .* is not an http\(s\) URL/);
      }
      expect(() => loadConfig({ ...s3, S3_SIGNED_URL_TTL: '604801' }, root)).to.throw(ConfigError, /S3_SIGNED_URL_TTL/);
      expect(() => loadConfig({ ...s3, S3_SIGNED_URL_TTL: '0' }, root)).to.throw(ConfigError, /S3_SIGNED_URL_TTL/);
      expect(loadConfig({ ...s3, S3_SIGNED_URL_TTL: '7d' }, root).uploads.s3?.signedUrlTtlSeconds).to.equal(604800);
      expect(() => loadConfig({ ...s3, AWS_ACCESS_KEY_ID: 'id' }, root)).to.throw(ConfigError, /AWS_SECRET_ACCESS_KEY/);
    });
  });
});
