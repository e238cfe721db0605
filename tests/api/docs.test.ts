/**
 * Issue 7: the OpenAPI 3.1 document (valid, lint-clean, complete), /docs and /docs/openapi.json,
 * `openapi:export`, plugin fragments, and the response check that keeps the document honest.
 */
import SwaggerParser from '@apidevtools/swagger-parser';
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { get as httpGet } from 'node:http';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import knex from 'knex';
import pino from 'pino';
import { loadConfig } from '../../config';
import { enabledPlugins } from '../../config/plugins';
import { reservedModelNames } from '../../core/api-segments';
import { modelSources } from '../../core/boot';
import { appDocument } from '../../core/openapi/app-document';
import { buildOpenApiDocument } from '../../core/openapi/document';
import { sqliteDialect } from '../../database/dialects/sqlite';
import { OpenApiMergeError } from '../../core/openapi/merge';
import { RECORD_ROUTES } from '../../core/records/routes';
import { loadRegistry } from '../../core/registry';
import type { Registry } from '../../core/registry/types';
import { helloFragment, helloPlugin } from '../fixtures/openapi/hello-plugin';
import { DIALECTS } from '../helpers/dialects';
import { client } from '../helpers/http';
import { ownRuleProblems, redoclyLint } from '../helpers/openapi-lint';
import { ResponseMismatchError, ResponseValidator, validatingFetch } from '../helpers/openapi-validator';
import { ROOT, startTestApp, type TestApp } from '../helpers/test-app';

type Obj = Record<string, any>;

/** Status of a conditional GET; node:http, because fetch adds `Cache-Control: no-cache` to conditional requests. */
function conditionalStatus(url: string, etag: string | null): Promise<number> {
  return new Promise((resolve, reject) => {
    httpGet(url, { headers: { 'if-none-match': etag ?? '' } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    }).on('error', reject);
  });
}

const FIXTURE_MODELS = join(ROOT, 'tests', 'fixtures', 'openapi', 'models');
const shippedRegistry = (): Registry => loadRegistry([{ dir: join(ROOT, 'content-types'), plugin: null }], ROOT);
const fixtureRegistry = (): Registry => loadRegistry([{ dir: FIXTURE_MODELS, plugin: null }], ROOT);

/** The document the service serves: the shipped models, the enabled plugins' models and fragments, realtime. */
function servedDocument(): Obj {
  const plugins = enabledPlugins();
  const config = loadConfig({ IAM_JWT_SECRET: 'x'.repeat(40), NODE_ENV: 'test' }, ROOT);
  const registry = loadRegistry(modelSources(config, plugins), ROOT, reservedModelNames(plugins));
  const db = knex({ client: 'sqlite3', connection: { filename: ':memory:' }, useNullAsDefault: true, pool: { min: 0, max: 1 } });
  try {
    return appDocument(plugins, { config, db, dialect: sqliteDialect, registry, log: pino({ level: 'silent' }) }) as unknown as Obj;
  } finally {
    void db.destroy();
  }
}

describe('OpenAPI document: valid, lint-clean, complete', () => {
  const shipped = buildOpenApiDocument({ registry: shippedRegistry(), version: '1.0.0' }) as unknown as Obj;
  const everyKind = buildOpenApiDocument({ registry: fixtureRegistry(), fragments: [{ plugin: 'hello', fragment: helloFragment }] }) as unknown as Obj;
  const served = servedDocument();

  for (const [name, doc] of [['shipped models', shipped], ['every attribute kind + a plugin fragment', everyKind], ['as served: shipped and plugin models, plugin fragments', served]] as const) {
    it(`validates against the OpenAPI 3.1 schema (swagger-parser) [${name}]`, async () => {
      const api = await SwaggerParser.validate(structuredClone(doc) as never);
      expect((api as Obj).openapi).to.equal('3.1.0');
    });

    it(`lints clean with Redocly, recommended rules: zero errors, zero warnings [${name}]`, function () {
      this.timeout(30_000);
      const r = redoclyLint(doc);
      expect(r.problems, r.problems.join('\n')).to.deep.equal([]);
      expect(r.errors).to.equal(0);
    });

    it(`passes our own rules: unique operationIds, summary/tags/responses everywhere, 4xx on /api, every $ref resolves [${name}]`, () => {
      expect(ownRuleProblems(doc)).to.deep.equal([]);
    });
  }

  it('has the ten record operations of every model, bearer-protected, with stable operationIds', () => {
    for (const model of ['institute', 'fee-type']) {
      const ops = Object.entries(shipped.paths as Obj)
        .filter(([p]) => p === `/api/${model}` || p.startsWith(`/api/${model}/`))
        .flatMap(([, item]) => Object.values(item as Obj));
      expect(ops).to.have.length(RECORD_ROUTES.filter((r) => !r.i18nOnly).length);
      for (const op of ops) expect(op.security).to.deep.equal([{ bearerAuth: [] }]);
    }
    const ft = shipped.paths;
    expect([
      ft['/api/fee-type'].get.operationId, ft['/api/fee-type/{id}'].get.operationId, ft['/api/fee-type'].post.operationId, ft['/api/fee-type/bulk'].post.operationId,
      ft['/api/fee-type/{id}'].put.operationId, ft['/api/fee-type/{id}'].patch.operationId, ft['/api/fee-type/{id}'].delete.operationId, ft['/api/fee-type/bulk'].delete.operationId,
      ft['/api/fee-type/recover/{id}'].post.operationId, ft['/api/fee-type/recover/bulk'].post.operationId,
    ]).to.deep.equal(['findFeeType', 'findOneFeeType', 'createFeeType', 'createManyFeeType', 'replaceFeeType', 'updateFeeType', 'deleteFeeType', 'deleteManyFeeType', 'recoverFeeType', 'recoverManyFeeType']);
    expect(shipped.components.securitySchemes.bearerAuth).to.include({ type: 'http', scheme: 'bearer' });
  });

  it('derives the record and body schemas from the attributes (required, enums, formats, nullable, limits, relations, media)', () => {
    const s = shipped.components.schemas;
    const rec = s.FeeType.properties;
    expect(s.FeeType.additionalProperties).to.equal(false);
    expect(rec.id).to.include({ type: 'integer', readOnly: true });
    expect(rec.createdAt).to.include({ format: 'date-time', readOnly: true });
    expect(rec.deletedAt.type).to.deep.equal(['string', 'null']);
    expect(rec.feeType).to.include({ type: 'string', maxLength: 255 });
    expect(rec.latePaymentFeesType.enum).to.deep.equal(['fixed', 'percentage', null]);
    expect(rec.latePaymentFees).to.include({ minimum: 0 });
    expect(rec.dueDate.format).to.equal('date');
    expect(rec.instituteId.type).to.deep.equal(['integer', 'null']);
    expect(rec.institute.anyOf[0]).to.deep.equal({ $ref: '#/components/schemas/Institute' });
    expect(s.Institute.properties.feeTypes.items).to.deep.equal({ $ref: '#/components/schemas/FeeType' });
    expect(rec._media.$ref).to.equal('#/components/schemas/FeeTypeMedia');
    expect(s.FeeTypeMedia.properties.attachments.items).to.deep.equal({ $ref: '#/components/schemas/MediaFile' });
    expect(s.FeeTypeCreate.required).to.deep.equal(['feeType']);
    expect(s.FeeTypeCreate.properties).to.have.keys('feeType', 'instituteId', 'instituteUserKey', 'partPaymentAllowed', 'latePaymentFeesType', 'latePaymentFees', 'dueDate', 'attachments');
    expect(s.FeeTypeUpdate).to.not.have.property('required');
    expect(s.InstituteCreate.required).to.deep.equal(['name', 'code']);
  });

  it('never shows private fields: writeOnly in bodies, absent from records, filters and fields', () => {
    const s = everyKind.components.schemas;
    expect(s.Member.properties).to.not.have.any.keys('secret', 'apiKey');
    expect(s.MemberFilters.properties).to.not.have.any.keys('secret', 'apiKey');
    expect(s.MemberCreate.properties.secret).to.include({ writeOnly: true, format: 'password' });
    expect(s.MemberCreate.properties.apiKey).to.include({ writeOnly: true }); // private: written, never returned
    const fields = everyKind.paths['/api/member'].get.parameters.find((p: Obj) => p.name === 'fields');
    expect(fields.schema.items.enum).to.not.include.members(['secret', 'apiKey']);
    expect(s.Member.properties.favourites.type).to.equal('array');
    expect(s.Member.properties.nickname).to.include({ minLength: 2, maxLength: 12, pattern: '^[a-z]+$' });
    expect(s.Member.properties.email.format).to.equal('email');
  });

  it('lists the Find / FindOne query parameters, filters as deepObject with the operators of query/operators.ts', () => {
    const find = shipped.paths['/api/fee-type'].get.parameters.map((p: Obj) => p.name);
    expect(find).to.deep.equal(['limit', 'offset', 'page', 'fields', 'sort', 'populate', 'populateMedia', 'filters', 'showSoftDeleted', 'groupBy', 'aggregates', 'populateGroup', 'groupFilter', 'timezone', 'If-None-Match']);
    const one = shipped.paths['/api/fee-type/{id}'].get.parameters.map((p: Obj) => p.name);
    expect(one).to.deep.equal(['id', 'fields', 'populate', 'populateMedia', 'showSoftDeleted', 'If-None-Match']);
    // conditional reads (issue 17): the header parameter, the 304 and the ETag header of the 200
    for (const op of [shipped.paths['/api/fee-type'].get, shipped.paths['/api/fee-type/{id}'].get]) {
      expect(op.parameters.find((p: Obj) => p.name === 'If-None-Match')).to.include({ in: 'header', required: false });
      expect(op.responses['304'].content).to.equal(undefined);
      expect(op.responses['304'].headers).to.have.keys('ETag', 'Cache-Control', 'Vary');
      expect(op.responses['200'].headers.ETag.schema.pattern).to.be.a('string');
    }
    expect(shipped.paths['/api/fee-type'].post.responses).to.not.have.property('304');
    const filters = shipped.paths['/api/fee-type'].get.parameters.find((p: Obj) => p.name === 'filters');
    expect(filters).to.include({ style: 'deepObject', explode: true });
    const text = shipped.components.schemas.StringFilter.properties;
    expect(text).to.have.keys('$eq', '$eqi', '$ne', '$nei', '$lt', '$lte', '$gt', '$gte', '$in', '$notIn', '$contains', '$notContains', '$containsi', '$notContainsi', '$null', '$notNull', '$between', '$startsWith', '$startsWithi', '$endsWith', '$endsWithi', '$and', '$or', '$not');
    expect(shipped.components.schemas.BooleanFilter.properties).to.not.have.property('$contains');
    expect(shipped.components.schemas.FeeTypeFilters.properties.institute.anyOf[0]).to.deep.equal({ $ref: '#/components/schemas/InstituteFilters' });
  });

  it('describes the multipart forms: create with `data` + one part per media field, update with `updateDto` + `files`', () => {
    const create = shipped.paths['/api/institute'].post.requestBody.content['multipart/form-data'];
    expect(create.schema.required).to.deep.equal(['data']);
    expect(create.schema.properties.logo).to.include({ format: 'binary', contentMediaType: 'image/*' });
    expect(create.encoding.data.contentType).to.equal('application/json');
    const upd = shipped.paths['/api/fee-type/{id}'].patch.requestBody.content['multipart/form-data'];
    expect(upd.schema.properties).to.include.keys('updateDto', 'files', 'data', 'attachments');
  });

  it('PATCH takes application/merge-patch+json beside application/json, with the same schema', () => {
    const patch = shipped.paths['/api/fee-type/{id}'].patch.requestBody.content;
    expect(patch['application/merge-patch+json'].schema).to.deep.equal(patch['application/json'].schema);
    expect(shipped.paths['/api/fee-type/{id}'].put.requestBody.content).to.not.have.property('application/merge-patch+json');
  });

  it('carries examples for the shipped models', () => {
    const create = shipped.paths['/api/fee-type'].post;
    expect(create.requestBody.content['application/json'].example).to.deep.equal({ feeType: 'Tuition', instituteUserKey: 'SPH', partPaymentAllowed: true, latePaymentFeesType: 'fixed', latePaymentFees: 12.5, dueDate: '2026-03-31' });
    const answer = create.responses['200'].content['application/json'].example;
    expect(answer).to.include({ statusCode: 200, error: '' });
    expect(answer.data.institute).to.include({ name: 'Springfield High', code: 'SPH' });
  });

  it('leaves out the routes of a model with `api: false` but keeps the schemas relations reach', () => {
    const reg = fixtureRegistry();
    const contentTypes = reg.contentTypes.map((c) => (c.name === 'club' ? { ...c, api: false } : c));
    const doc = buildOpenApiDocument({ registry: { contentTypes, get: (n) => contentTypes.find((c) => c.name === n) } }) as unknown as Obj;
    expect(Object.keys(doc.paths).filter((p) => p.startsWith('/api/club'))).to.deep.equal([]);
    expect(doc.components.schemas).to.have.property('Club'); // Member.club points at it
    expect(doc.components.schemas).to.not.have.property('ClubCreate');
    expect(ownRuleProblems(doc)).to.deep.equal([]);
  });

  it('merges plugin fragments (paths, components, tags) and stops on a clash', () => {
    expect(everyKind.paths['/api/hello/{name}'].get.operationId).to.equal('helloGreet');
    expect(everyKind.components.schemas.HelloGreeting).to.be.an('object');
    expect(everyKind.components.responses.TooManyRequests).to.be.an('object');
    expect(everyKind.tags.map((t: Obj) => t.name)).to.include('hello');
    // every record route passes the per-caller gate (CALLER_CONCURRENCY / CALLER_QUEUE): its 429 is documented
    expect(shipped.paths['/api/fee-type'].get.responses['429']).to.deep.equal({ $ref: '#/components/responses/TooManyRequests' });
    const registry = fixtureRegistry();
    expect(() => buildOpenApiDocument({ registry, fragments: [{ plugin: 'a', fragment: helloFragment }, { plugin: 'b', fragment: helloFragment }] })).to.throw(OpenApiMergeError, /already in the document/);
    const clash = { paths: {}, components: { schemas: { Member: { type: 'string' } } } };
    expect(() => buildOpenApiDocument({ registry, fragments: [{ plugin: 'c', fragment: clash }] })).to.throw(OpenApiMergeError, /components.schemas.Member clashes/);
  });
});

for (const dialect of DIALECTS) {
  describe(`/docs, /docs/openapi.json and the response check [${dialect}]`, () => {
    let app: TestApp;
    before(async () => {
      app = await startTestApp(dialect);
    });
    after(async () => app?.close());

    it('the request examples of /docs are accepted as they stand (no server-only field; an access rule names a role only)', async () => {
      const paths = app.document.paths as Record<string, { post: { requestBody: { content: Record<string, { example: Obj }> } } }>;
      for (const model of ['webhook', 'access-rule']) {
        const example = paths[`/api/${model}`].post.requestBody.content['application/json'].example;
        const res = await app.http.post(`/api/${model}`, example);
        expect(res.status, `${model}: ${res.text}`).to.equal(200);
      }
    });

    it('GET /docs serves Swagger UI whose every asset is local, with content types and caching', async () => {
      const page = await app.http.get('/docs');
      expect(page.status).to.equal(200);
      expect(page.headers.get('content-type')).to.match(/^text\/html/);
      expect(page.headers.get('content-security-policy')).to.contain("default-src 'self'");
      const refs = [...page.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
      expect(refs.length).to.be.greaterThan(3);
      for (const ref of refs) {
        expect(ref, 'no CDN: every asset under /docs/').to.match(/^\/docs\//);
        const res = await app.http.get(ref);
        expect(res.status, ref).to.equal(200);
        const type = res.headers.get('content-type') ?? '';
        if (ref.endsWith('.js')) expect(type).to.match(/^text\/javascript/);
        if (ref.endsWith('.css')) expect(type).to.match(/^text\/css/);
        if (ref.endsWith('.png')) expect(type).to.equal('image/png');
        expect(res.headers.get('etag'), ref).to.be.a('string');
      }
      const bundle = await app.http.get('/docs/swagger-ui-bundle.js');
      expect(bundle.headers.get('cache-control')).to.equal('public, max-age=86400');
      expect(await conditionalStatus(`${app.url}/docs/swagger-ui-bundle.js`, bundle.headers.get('etag'))).to.equal(304);
      expect((await app.http.get('/docs/')).status).to.equal(200); // redirected to /docs
    });

    it('GET /docs/openapi.json serves the document built at boot (no-cache, ETag)', async () => {
      const res = await app.http.get('/docs/openapi.json');
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.match(/^application\/json/);
      expect(res.headers.get('cache-control')).to.equal('no-cache');
      expect(res.body).to.deep.equal(app.document);
      expect(res.body.openapi).to.equal('3.1.0');
      expect(await conditionalStatus(`${app.url}/docs/openapi.json`, res.headers.get('etag'))).to.equal(304);
    });

    it('serves no other file: unknown names and traversal answer the 404 error body', async () => {
      for (const p of ['/docs/nope.js', '/docs/..%2Fpackage.json', '/docs/index.html', '/docs/package.json']) {
        const res = await app.http.get(p);
        expect(res.status, p).to.equal(404);
        expect(res.body.error.status).to.equal(404);
      }
    });

    it('the response check refuses a response the document does not describe', async () => {
      const created = await app.http.post('/api/institute', { name: 'Checked', code: 'CHK' });
      const drifted = structuredClone(app.document) as Obj;
      delete drifted.components.schemas.Institute.properties.city; // as if the document had forgotten a field
      const strict = client(app.url, app.admin?.accessToken ?? null, validatingFetch(new ResponseValidator(drifted)));
      let caught: unknown = null;
      await strict.get(`/api/institute/${created.body.data.id}`).catch((e: unknown) => (caught = e));
      expect(caught).to.be.instanceOf(ResponseMismatchError);
      expect(String(caught)).to.contain('additionalProperty').and.contain('city');
    });

    it('a model with every attribute kind and a plugin answer as documented; an undocumented plugin route is refused', async () => {
      const other = await startTestApp(dialect, { contentTypesDir: FIXTURE_MODELS, plugins: [helloPlugin], checkResponses: true });
      try {
        const club = await other.http.post('/api/club', { name: 'Chess' });
        expect(club.status).to.equal(200);
        const member = await other.http.post('/api/member', {
          handle: 'ada-l', email: 'ada@example.com', secret: 'correct-horse', apiKey: 'k-123', bio: 'hi', age: 36, visits: 12, score: 1.5,
          birthday: '1815-12-10', lastSeen: '2026-01-01T10:00:00Z', wakeUp: '07:30:00', settings: { dark: true }, nickname: 'ada',
          clubUserKey: 'Chess', favourites: [club.body.data.id],
        });
        expect(member.status, member.text).to.equal(200);
        const found = await other.http.get(`/api/member?populate[0]=club&populate[1]=favourites&filters[level][$eq]=bronze`);
        expect(found.status).to.equal(200);
        expect(found.body.records[0]).to.not.have.any.keys('secret', 'apiKey');
        expect((await other.http.get(`/api/club/${club.body.data.id}?populate[0]=members`)).status).to.equal(200);
        expect((await other.http.post('/api/member', { handle: 'no' })).status).to.equal(422);
        expect((await other.http.get('/api/hello/ada')).body).to.deep.equal({ greeting: 'hello ada' });
        expect((await other.http.get(`/api/hello/${'x'.repeat(30)}`)).status).to.equal(400);
        let caught: unknown = null;
        await other.http.get('/api/hello-undocumented').catch((e: unknown) => (caught = e));
        expect(String(caught)).to.contain('no operation GET /api/hello-undocumented');
      } finally {
        await other.close();
      }
    });
  });
}

describe('admin-cli openapi:export', () => {
  let app: TestApp;
  let dir: string;
  before(async () => {
    app = await startTestApp('sqlite');
    dir = mkdtempSync(join(tmpdir(), 'ris-export-'));
  });
  after(async () => {
    await app?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const run = (args: string[]) =>
    spawnSync(process.execPath, [join(ROOT, 'dist', 'admin-cli', 'index.js'), 'openapi:export', ...args], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 20_000,
      env: { ...process.env, DATABASE_URL: `sqlite:${join(dir, 'cli.db')}`, LOG_LEVEL: 'silent', NODE_ENV: 'test', DATA_DIR: join(dir, 'data') },
    });

  it('writes the document /docs/openapi.json serves, to a file or to stdout', () => {
    const file = join(dir, 'openapi.json');
    const toFile = run([file]);
    expect(toFile.status, toFile.stderr).to.equal(0);
    expect(JSON.parse(readFileSync(file, 'utf8'))).to.deep.equal(app.document);
    const toStdout = run([]);
    expect(toStdout.status, toStdout.stderr).to.equal(0);
    expect(JSON.parse(toStdout.stdout)).to.deep.equal(app.document);
  });
});
