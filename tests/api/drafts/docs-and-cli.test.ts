/**
 * Issue 14 outside the record API: the registry (YAML `draftAndPublish`, its actions), the OpenAPI
 * document (status parameters, publish endpoints, `_status` / `_hasUnpublishedChanges`; valid and
 * lint-clean) and `npm run admin -- content-types:list` (which models have drafts).
 */
import SwaggerParser from '@apidevtools/swagger-parser';
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildOpenApiDocument } from '../../../core/openapi/document';
import { loadRegistry } from '../../../core/registry';
import { DRAFT_MODELS } from '../../helpers/drafts';
import { ownRuleProblems, redoclyLint } from '../../helpers/openapi-lint';
import { ROOT } from '../../helpers/test-app';

type Obj = Record<string, any>;

describe('draft & publish: registry, OpenAPI and CLI', () => {
  const registry = loadRegistry([{ dir: DRAFT_MODELS, plugin: null }], ROOT);
  const shipped = loadRegistry([{ dir: join(ROOT, 'content-types'), plugin: null }], ROOT);
  const doc = buildOpenApiDocument({ registry, version: '1.0.0' }) as unknown as Obj;

  it('registry: draftAndPublish models add the actions publish and findDrafts; others do not', () => {
    expect(registry.get('article')?.draftAndPublish).to.equal(true);
    expect(registry.get('article')?.actions).to.include.members(['publish', 'findDrafts']);
    expect(registry.get('tag')?.draftAndPublish).to.equal(undefined);
    expect(registry.get('tag')?.actions).to.not.include('publish');
    for (const m of shipped.contentTypes) expect(m.draftAndPublish, m.name).to.equal(undefined);
  });

  it('registry: the meta-schema refuses a non-boolean draftAndPublish; YAML may grant publish to a seeded role', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ris-drafts-reg-'));
    try {
      mkdirSync(join(dir, 'bad'));
      writeFileSync(join(dir, 'bad', 'memo.yaml'), 'draftAndPublish: yes please\nattributes:\n  body: { type: string }\n');
      expect(() => loadRegistry([{ dir: join(dir, 'bad'), plugin: null }], dir)).to.throw(/draftAndPublish/);
      mkdirSync(join(dir, 'plain'));
      writeFileSync(join(dir, 'plain', 'memo.yaml'), 'permissions:\n  authenticated: [publish]\nattributes:\n  body: { type: string }\n');
      expect(() => loadRegistry([{ dir: join(dir, 'plain'), plugin: null }], dir)).to.throw(/unknown action "publish"/);
      mkdirSync(join(dir, 'good'));
      writeFileSync(join(dir, 'good', 'memo.yaml'), 'draftAndPublish: true\npermissions:\n  authenticated: [find, publish, findDrafts]\nattributes:\n  body: { type: string }\n');
      expect(loadRegistry([{ dir: join(dir, "good"), plugin: null }], dir).get("memo")?.grants.authenticated).to.deep.equal(['find', 'publish', 'findDrafts']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('OpenAPI: status on Find/FindOne, status on the creates of draft models, the four publish operations, the record flags', () => {
    const statusOf = (op: Obj): Obj => (op.parameters as Obj[]).find((p) => p.name === 'status') ?? {};
    expect(statusOf(doc.paths['/api/article'].get).schema).to.deep.include({ enum: ['published', 'draft'], default: 'published' });
    expect(statusOf(doc.paths['/api/article/{id}'].get).in).to.equal('query');
    expect(statusOf(doc.paths['/api/tag'].get).in, 'a model without drafts may populate one').to.equal('query');
    expect(statusOf(doc.paths['/api/article'].post).schema.enum).to.deep.equal(['draft', 'published']);
    expect(doc.paths['/api/tag'].post.parameters ?? []).to.deep.equal([]);
    expect([
      doc.paths['/api/article/{id}/publish'].post.operationId,
      doc.paths['/api/article/{id}/unpublish'].post.operationId,
      doc.paths['/api/article/publish/bulk'].post.operationId,
      doc.paths['/api/article/unpublish/bulk'].post.operationId,
    ]).to.deep.equal(['publishArticle', 'unpublishArticle', 'publishManyArticle', 'unpublishManyArticle']);
    expect(doc.paths['/api/tag/{id}/publish']).to.equal(undefined);
    expect(doc.paths['/api/article/{id}/publish'].post.description).to.contain('article.publish');
    expect(doc.components.schemas.Article.properties).to.include.keys('_status', '_hasUnpublishedChanges');
    expect(doc.components.schemas.Tag.properties).to.not.have.property('_status');
    // the shipped models (no drafts) document no status parameter
    const plain = buildOpenApiDocument({ registry: shipped, version: '1.0.0' }) as unknown as Obj;
    expect((plain.paths['/api/institute'].get.parameters as Obj[]).some((p) => p.name === 'status')).to.equal(false);
  });

  it('OpenAPI: the document with draft models is valid, lint-clean and passes our own rules', async function () {
    this.timeout(30_000);
    await SwaggerParser.validate(structuredClone(doc) as never);
    const r = redoclyLint(doc);
    expect(r.problems, r.problems.join('\n')).to.deep.equal([]);
    expect(ownRuleProblems(doc)).to.deep.equal([]);
  });

  it('content-types:list says which models have drafts', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ris-drafts-cli-'));
    try {
      const r = spawnSync(process.execPath, [join(ROOT, 'dist', 'admin-cli', 'index.js'), 'content-types:list'], {
        cwd: ROOT,
        encoding: 'utf8',
        timeout: 20_000,
        env: { ...process.env, CONTENT_TYPES_DIR: DRAFT_MODELS, DATABASE_URL: `sqlite:${join(dir, 'cli.db')}`, LOG_LEVEL: 'silent', NODE_ENV: 'test', DATA_DIR: join(dir, 'data') },
      });
      expect(r.status, r.stderr).to.equal(0);
      const line = (name: string) => r.stdout.split('\n').find((l) => l.startsWith(`${name}  `)) ?? '';
      expect(line('article')).to.contain('drafts (draft & publish)');
      expect(line('category')).to.contain('drafts (draft & publish)');
      expect(line('tag')).to.not.contain('drafts');
      const json = spawnSync(process.execPath, [join(ROOT, 'dist', 'admin-cli', 'index.js'), 'content-types:list', '--json'], {
        cwd: ROOT,
        encoding: 'utf8',
        timeout: 20_000,
        env: { ...process.env, CONTENT_TYPES_DIR: DRAFT_MODELS, DATABASE_URL: `sqlite:${join(dir, 'cli.db')}`, LOG_LEVEL: 'silent', NODE_ENV: 'test', DATA_DIR: join(dir, 'data') },
      });
      const models = JSON.parse(json.stdout) as { name: string; draftAndPublish: boolean }[];
      expect(Object.fromEntries(models.filter((m) => ['article', 'tag'].includes(m.name)).map((m) => [m.name, m.draftAndPublish]))).to.deep.equal({ article: true, tag: false });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
