/**
 * Issue 14, both flags on one model: OpenAPI documents `locale=` on publish / unpublish (and their bulk
 * forms) beside `status`, the document stays valid and lint-clean; content-types:list shows both flags.
 */
import SwaggerParser from '@apidevtools/swagger-parser';
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildOpenApiDocument } from '../../../core/openapi/document';
import { loadRegistry } from '../../../core/registry';
import { ownRuleProblems, redoclyLint } from '../../helpers/openapi-lint';
import { ROOT } from '../../helpers/test-app';

type Obj = Record<string, any>;
const MODELS = join(ROOT, 'tests', 'fixtures', 'content-models');

describe('draft & publish with locales: OpenAPI and CLI', () => {
  const registry = loadRegistry([{ dir: MODELS, plugin: null }], ROOT);
  const doc = buildOpenApiDocument({ registry, version: '1.0.0' }) as unknown as Obj;
  const param = (op: Obj, name: string): Obj | undefined => ((op.parameters ?? []) as Obj[]).find((p) => p.name === name);

  it('publish / unpublish of a model with both flags take locale= (a code or all); Find takes status and locale', () => {
    for (const path of ['/api/page/{id}/publish', '/api/page/{id}/unpublish', '/api/page/publish/bulk', '/api/page/unpublish/bulk']) {
      const locale = param(doc.paths[path].post, 'locale');
      expect(locale, path).to.deep.include({ in: 'query', required: false });
      expect(locale?.description).to.contain('first row');
      expect(JSON.stringify(locale?.schema)).to.contain('"all"');
    }
    expect(param(doc.paths['/api/page/{id}/publish'].post, 'id')).to.include({ in: 'path' });
    expect(param(doc.paths['/api/page'].get, 'status')).to.not.equal(undefined);
    expect(param(doc.paths['/api/page'].get, 'locale')).to.not.equal(undefined);
    expect(doc.components.schemas.Page.properties).to.include.keys('_status', '_hasUnpublishedChanges', 'localizations');
  });

  it('the document is valid, lint-clean and passes our own rules', async function () {
    this.timeout(30_000);
    await SwaggerParser.validate(structuredClone(doc) as never);
    const r = redoclyLint(doc);
    expect(r.problems, r.problems.join('\n')).to.deep.equal([]);
    expect(ownRuleProblems(doc)).to.deep.equal([]);
  });

  it('content-types:list shows drafts and locales on the same model', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ris-content-cli-'));
    try {
      const r = spawnSync(process.execPath, [join(ROOT, 'dist', 'admin-cli', 'index.js'), 'content-types:list'], {
        cwd: ROOT,
        encoding: 'utf8',
        timeout: 20_000,
        env: { ...process.env, CONTENT_TYPES_DIR: MODELS, LOCALES: 'en,fr', DEFAULT_LOCALE: 'en', DATABASE_URL: `sqlite:${join(dir, 'cli.db')}`, LOG_LEVEL: 'silent', NODE_ENV: 'test', DATA_DIR: join(dir, 'data') },
      });
      expect(r.status, r.stderr).to.equal(0);
      const page = r.stdout.split('\n').find((l) => l.startsWith('page  ')) ?? '';
      expect(page).to.contain('drafts (draft & publish)').and.to.contain('locales en,fr (default en)');
      expect(r.stdout.split('\n').find((l) => l.startsWith('label  '))).to.not.match(/drafts|locales/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
