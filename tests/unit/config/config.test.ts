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
    expect(c.query).to.deep.equal({ maxRelationHops: 3, maxRelationScopes: 40, timeoutMs: 10_000 });
  });

  it('reads the query bounds and QUERY_TIMEOUT as a duration; refuses a malformed one naming it', () => {
    const c = loadConfig({ ...base, QUERY_MAX_RELATION_HOPS: '2', QUERY_MAX_RELATION_SCOPES: '7', QUERY_TIMEOUT: '250ms' }, root);
    expect(c.query).to.deep.equal({ maxRelationHops: 2, maxRelationScopes: 7, timeoutMs: 250 });
    expect(loadConfig({ ...base, QUERY_TIMEOUT: '0' }, root).query.timeoutMs).to.equal(0);
    expect(() => loadConfig({ ...base, QUERY_TIMEOUT: 'soon' }, root)).to.throw(ConfigError, /QUERY_TIMEOUT/);
    expect(() => loadConfig({ ...base, QUERY_MAX_RELATION_HOPS: '-1' }, root)).to.throw(ConfigError, /QUERY_MAX_RELATION_HOPS/);
  });

  it('reads the per-caller gate: CALLER_CONCURRENCY (at least 1), CALLER_QUEUE and CALLER_QUEUE_TIMEOUT', () => {
    expect(loadConfig(base, root).callerGate).to.deep.equal({ running: 6, waiting: 100, maxWaitMs: 1000 });
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
    expect(() => loadConfig({ ...base, DATABASE_URL: 'mysql://x' }, root)).to.throw(ConfigError, /DATABASE_URL/);
  });

  it('names the setting in a parse error', () => {
    expect(() => loadConfig({ ...base, PORT: 'eighty' }, root)).to.throw(ConfigError, /^PORT: /);
    expect(() => loadConfig({ ...base, IAM_OTP_EXPIRY: '5 minutes' }, root)).to.throw(ConfigError, /IAM_OTP_EXPIRY/);
    expect(() => loadConfig({ ...base, IAM_PASSWORD_LESS_LOGIN_VALIDATE_WHAT: 'email,fax' }, root)).to.throw(ConfigError, /fax/);
  });

  it('parses durations', () => {
    expect([parseDuration('60m'), parseDuration('1d'), parseDuration('90'), parseDuration('500ms'), parseDuration('2h')]).to.deep.equal([3600, 86400, 90, 0.5, 7200]);
  });
});
