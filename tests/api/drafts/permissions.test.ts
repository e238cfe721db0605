/**
 * Issue 14: who may publish and who may read drafts. `<model>.publish` guards publish / unpublish and a
 * create with status=published; reading working copies (status=draft) needs `<model>.findDrafts` on every
 * draft-enabled model the query reaches (populate, relation filters); the public role and any caller
 * without it get 401 / 403 for status=draft and published content otherwise. Admin holds both; the
 * seeded public / authenticated roles hold only what the YAML grants (here find + findOne).
 */
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { DIALECTS } from '../../helpers/dialects';
import { DRAFT_MODELS, created, listed } from '../../helpers/drafts';
import { actionsOf, userWith } from '../../helpers/roles';
import { ROOT, startTestApp, type TestApp, type TestUser } from '../../helpers/test-app';

for (const dialect of DIALECTS) {
  describe(`draft & publish: permissions [${dialect}]`, () => {
    let app: TestApp;
    let member: TestUser;
    let editor: TestUser;
    let publisher: TestUser;
    let draftId: number;
    let categoryDraft: number;

    before(async () => {
      // A long keep-alive: the CLI test below blocks this process for a while (spawnSync).
      app = await startTestApp(dialect, { contentTypesDir: DRAFT_MODELS, env: { HTTP_KEEP_ALIVE_TIMEOUT: '120s' } });
      member = await app.createUser({ roles: ['authenticated'] });
      editor = await userWith(app, 'editor', ['article.find', 'article.findOne', 'article.create', 'article.update', 'article.findDrafts', 'category.find']);
      publisher = await userWith(app, 'publisher', ['article.find', 'article.findOne', 'article.publish']);
      categoryDraft = await created(app.http, 'category', { name: 'Unreleased' });
      draftId = await created(app.http, 'article', { title: 'Secret plan', categoryId: categoryDraft });
    });
    after(async () => app?.close());

    it('the permission vocabulary of a draft model has publish and findDrafts; a model without drafts has neither', async () => {
      const article = await listed(app.http, '/api/permission?filters[action][$startsWith]=article.&limit=100');
      expect(article.map((p) => p.action)).to.include.members(['article.publish', 'article.findDrafts']);
      const tag = await listed(app.http, '/api/permission?filters[action][$startsWith]=tag.&limit=100');
      expect(tag.map((p) => p.action)).to.not.include.members(['tag.publish']);
      expect(tag.map((p) => p.action)).to.not.include.members(['tag.findDrafts']);
    });

    it('seeded roles: admin has publish and findDrafts; authenticated and public only what the YAML grants', async () => {
      expect(await actionsOf(app, 'admin')).to.include.members(['article.publish', 'article.findDrafts', 'category.publish', 'category.findDrafts']);
      const auth = await actionsOf(app, 'authenticated');
      expect(auth).to.include.members(['article.find', 'article.findOne']);
      expect(auth.filter((a) => a.endsWith('.publish') || a.endsWith('.findDrafts'))).to.deep.equal([]);
      expect((await actionsOf(app, 'public')).filter((a) => a.endsWith('.publish') || a.endsWith('.findDrafts'))).to.deep.equal([]);
    });

    it('status=draft: public 401, a member without findDrafts 403; published reads stay open', async () => {
      expect((await app.anon.get('/api/article?status=draft')).status).to.equal(401);
      expect((await app.anon.get(`/api/article/${draftId}?status=draft`)).status).to.equal(401);
      const denied = await member.http.get('/api/article?status=draft');
      expect(denied.status).to.equal(403);
      expect(denied.body.error.message).to.contain('article.findDrafts');
      expect((await member.http.get(`/api/article/${draftId}?status=draft`)).status).to.equal(403);
      expect((await member.http.get('/api/article')).status).to.equal(200);
      expect((await member.http.get(`/api/article/${draftId}`)).status).to.equal(404);
      // grouping asks the same
      expect((await member.http.get('/api/article?status=draft&groupBy[0]=title')).status).to.equal(403);
    });

    it('findDrafts of one model does not open the drafts of another reached by populate or a filter', async () => {
      const own = await editor.http.get(`/api/article/${draftId}?status=draft`);
      expect(own.status, own.text).to.equal(200);
      expect(own.body.title).to.equal('Secret plan');
      const populated = await editor.http.get(`/api/article/${draftId}?status=draft&populate[0]=category`);
      expect(populated.status).to.equal(403);
      expect(populated.body.error.message).to.contain('category.findDrafts');
      expect((await editor.http.get('/api/article?status=draft&filters[category][name][$eq]=Unreleased')).status).to.equal(403);
      // the same populate on published content needs only category.find
      expect((await editor.http.get('/api/article?populate[0]=category')).status).to.equal(200);
    });

    it('publish / unpublish need article.publish: public 401, editor 403, publisher 200', async () => {
      expect((await app.anon.post(`/api/article/${draftId}/publish`)).status).to.equal(401);
      const denied = await editor.http.post(`/api/article/${draftId}/publish`);
      expect(denied.status).to.equal(403);
      expect(denied.body.error.message).to.contain('article.publish');
      expect((await editor.http.post('/api/article/publish/bulk', [draftId])).status).to.equal(403);
      expect((await editor.http.post(`/api/article/${draftId}/unpublish`)).status).to.equal(403);
      expect((await member.http.get(`/api/article/${draftId}`)).status).to.equal(404);
      const ok = await publisher.http.post(`/api/article/${draftId}/publish`);
      expect(ok.status, ok.text).to.equal(200);
      expect((await member.http.get(`/api/article/${draftId}`)).status).to.equal(200);
      expect((await publisher.http.post(`/api/article/${draftId}/unpublish`)).status).to.equal(200);
      expect((await member.http.get(`/api/article/${draftId}`)).status).to.equal(404);
    });

    it('a create with status=published needs article.publish besides article.create (403, nothing written)', async () => {
      const denied = await editor.http.post('/api/article?status=published', { title: 'Sneaky' });
      expect(denied.status).to.equal(403);
      expect(denied.body.error.message).to.contain('article.publish');
      expect(await listed(app.http, '/api/article?status=draft&filters[title][$eq]=Sneaky')).to.have.length(0);
      const drafted = await editor.http.post('/api/article', { title: 'Honest' });
      expect(drafted.status, drafted.text).to.equal(200);
    });

    it('the admin CLI grants and revokes article.publish like any permission', async () => {
      const cli = (...args: string[]) => spawnSync(process.execPath, [join(ROOT, 'dist', 'admin-cli', 'index.js'), ...args], { env: { ...process.env, ...app.env }, encoding: 'utf8', timeout: 30_000 });
      expect(cli('role:create', '--name', 'reviewer').status).to.equal(0);
      expect(cli('role:grant', '--role', 'reviewer', '--permission', 'article.publish').status).to.equal(0);
      expect(cli('role:grant', '--role', 'reviewer', '--permission', 'tag.publish').stderr).to.match(/no permission/);
      const reviewer = await app.createUser({ roles: ['reviewer'] });
      const id = await created(app.http, 'article', { title: 'For review' });
      const ok = await reviewer.http.post(`/api/article/${id}/publish`);
      expect(ok.status, ok.text).to.equal(200);
      expect(cli('role:revoke', '--role', 'reviewer', '--permission', 'article.publish').status).to.equal(0);
      await new Promise((r) => setTimeout(r, 600)); // the permission cache lives at most 0.5 s
      expect((await reviewer.http.post(`/api/article/${id}/unpublish`)).status).to.equal(403);
    });

    it('API tokens: read-only reads published content only; a custom token may hold publish', async () => {
      const ro = await app.http.post('/api/iam/api-tokens', { name: 'ro', kind: 'read-only' });
      expect(ro.status, ro.text).to.equal(200);
      const reader = app.anon.withToken(ro.body.data.secret);
      expect((await reader.get('/api/article')).status).to.equal(200);
      expect((await reader.get('/api/article?status=draft')).status).to.equal(403);
      expect((await reader.post(`/api/article/${draftId}/publish`)).status).to.equal(403);
      const custom = await app.http.post('/api/iam/api-tokens', { name: 'pub', kind: 'custom', permissions: ['article.publish', 'article.findDrafts', 'article.findOne'] });
      expect(custom.status, custom.text).to.equal(200);
      const bot = app.anon.withToken(custom.body.data.secret);
      expect((await bot.get(`/api/article/${draftId}?status=draft`)).status).to.equal(200);
      expect((await bot.post(`/api/article/${draftId}/publish`)).status).to.equal(200);
      expect((await app.anon.get(`/api/article/${draftId}`)).status).to.equal(200);
    });
  });
}
