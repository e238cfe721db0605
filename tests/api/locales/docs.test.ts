/** Issue 14: OpenAPI documents locale= and POST …/localizations of i18n models; content-types:list shows which models have locales. */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { DIALECTS } from '../../helpers/dialects';
import { ownRuleProblems, redoclyLint } from '../../helpers/openapi-lint';
import { ROOT, type TestApp } from '../../helpers/test-app';
import { LOCALE_MODELS, startLocaleApp } from './app';

type Obj = Record<string, any>;

for (const dialect of DIALECTS) {
  describe(`locales: documentation [${dialect}]`, () => {
    let app: TestApp;
    let doc: Obj;
    before(async () => {
      app = await startLocaleApp(dialect);
      doc = app.document as Obj;
    });
    after(async () => app?.close());

    const localeParam = (op: Obj | undefined): Obj => (op?.parameters as Obj[] | undefined)?.find((p) => p.name === 'locale' && p.in === 'query') as Obj;

    it('every record route of an i18n model documents locale=, with all where it applies', () => {
      const p = doc.paths;
      const routes: [string, string, boolean][] = [
        ['/api/article', 'get', true],
        ['/api/article/{id}', 'get', false],
        ['/api/article', 'post', false],
        ['/api/article/bulk', 'post', false],
        ['/api/article/{id}', 'put', false],
        ['/api/article/{id}', 'patch', false],
        ['/api/article/{id}', 'delete', true],
        ['/api/article/recover/{id}', 'post', true],
        ['/api/article/bulk', 'delete', true],
        ['/api/article/recover/bulk', 'post', true],
      ];
      for (const [path, method, all] of routes) {
        const param = localeParam(p[path]?.[method]);
        expect(param, `${method} ${path}`).to.be.an('object');
        expect(JSON.stringify(param.schema).includes('"all"'), `${method} ${path}`).to.equal(all);
      }
    });

    it('documents POST /api/{model}/{id}/localizations with a required locale, and localizations in records', () => {
      const op = doc.paths['/api/article/{id}/localizations']?.post;
      expect(op.operationId).to.equal('createLocalizationArticle');
      expect(localeParam(op).required).to.equal(true);
      expect(op.responses).to.have.keys('200', '400', '401', '403', '404', '409', '413', '415', '422', '429', '503', 'default');
      expect(doc.components.schemas.Article.properties.localizations.items.required).to.deep.equal(['id', 'locale']);
    });

    it('leaves models without i18n as they were', () => {
      expect(doc.paths['/api/topic/{id}/localizations']).to.equal(undefined);
      expect(localeParam(doc.paths['/api/topic'].get)).to.equal(undefined);
      expect(doc.components.schemas.Topic.properties).not.to.have.property('localizations');
    });

    it('passes redocly lint and our own rules', () => {
      expect(ownRuleProblems(doc)).to.deep.equal([]);
      const r = redoclyLint(doc);
      expect(r.errors, r.problems.join('\n')).to.equal(0);
    });
  });
}

describe('locales: npm run admin -- content-types:list', () => {
  it('shows which models have locales, and the shared attributes', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ris-locales-cli-'));
    try {
      const r = spawnSync(process.execPath, [join(ROOT, 'dist', 'admin-cli', 'index.js'), 'content-types:list'], {
        encoding: 'utf8',
        timeout: 30_000,
        env: { ...process.env, NODE_ENV: 'test', LOG_LEVEL: 'silent', CONTENT_TYPES_DIR: LOCALE_MODELS, DATA_DIR: join(dir, 'data'), DATABASE_URL: '', LOCALES: 'en,fr,de', DEFAULT_LOCALE: 'en', IAM_JWT_SECRET: 'x'.repeat(40) },
      });
      expect(r.status, r.stderr).to.equal(0);
      const line = (model: string) => r.stdout.split('\n').find((l) => l.startsWith(`${model}  `)) ?? '';
      expect(line('article')).to.contain('locales en,fr,de (default en)');
      expect(line('writer')).to.contain('locales en,fr,de');
      expect(line('topic')).not.to.contain('locales');
      expect(r.stdout).to.match(/\n {2}price: decimal \(shared by every locale\)/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
