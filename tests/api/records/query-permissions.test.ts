/**
 * Permission hooks of the query language (issue 3, Safety): a query reads every model it reaches
 * through relations (relation filters, populate, dotted sort), so the caller needs `find` on each;
 * `showSoftDeleted` needs `recover`. A test-only Plugin supplies a fake bearer Authenticator and an
 * Authorizer with fixed permission sets; no token → 401, a token without the permission → 403.
 */
import { expect } from 'chai';
import qs from 'qs';
import { UnauthorizedError } from '../../../core/errors/errors';
import { type Actor, type Plugin, RECORD_ACTIONS } from '../../../core/plugin-api';
import { DIALECTS } from '../../helpers/dialects';
import type { Client } from '../../helpers/http';
import { startTestApp, type TestApp } from '../../helpers/test-app';
import { FIXTURE_DIR } from '../../fixtures/query-oracle';

const MODELS = ['author', 'book', 'tag', 'profile', 'secret'];
const EVERYTHING = MODELS.flatMap((m) => RECORD_ACTIONS.map((a) => `${m}.${a}`));
/** The reader may list and read books, authors and tags; not profiles or secrets, and recover nothing. */
const READER = ['book.find', 'book.findOne', 'author.find', 'author.findOne', 'tag.find', 'tag.findOne'];

const actor = (id: number, username: string): Actor => ({ id, username, email: `${username}@example.com`, fullName: username, active: true, roles: [username], sessionId: null });
const TOKENS: Record<string, { actor: Actor; permissions: ReadonlySet<string> }> = {
  admin: { actor: actor(1, 'admin'), permissions: new Set(EVERYTHING) },
  reader: { actor: actor(2, 'reader'), permissions: new Set(READER) },
};

const fakeAuth: Plugin = {
  name: 'fake-auth',
  authenticator: () => ({
    async authenticate(header) {
      if (!header) return null;
      const t = TOKENS[header.replace(/^Bearer /, '')];
      if (!t) throw new UnauthorizedError('unknown token');
      return t.actor;
    },
  }),
  authorizer: () => ({
    async can(who, model, action) {
      const t = who ? Object.values(TOKENS).find((x) => x.actor.id === who.id) : undefined;
      return t ? t.permissions.has(`${model}.${action}`) : false;
    },
  }),
};

for (const dialect of DIALECTS) {
  describe(`query permissions: find on every model a query reads, recover for showSoftDeleted [${dialect}]`, () => {
    let app: TestApp;
    let admin: Client;
    let reader: Client;
    let bookId: number;

    before(async () => {
      app = await startTestApp(dialect, { contentTypesDir: FIXTURE_DIR, plugins: [fakeAuth] });
      admin = app.http.withToken('admin');
      reader = app.http.withToken('reader');
      const secret = (await admin.post('/api/secret', { code: 'S' })).body.data.id;
      const author = (await admin.post('/api/author', { name: 'Ada' })).body.data.id;
      await admin.post('/api/profile', { handle: '@ada', authorId: author });
      const tag = (await admin.post('/api/tag', { label: 'red' })).body.data.id;
      bookId = (await admin.post('/api/book', { title: 'Alpha', authorId: author, editorId: secret, tags: [tag] })).body.data.id;
      const gone = (await admin.post('/api/book', { title: 'Gone' })).body.data.id;
      expect((await admin.del(`/api/book/${gone}`)).status).to.equal(200);
    });
    after(async () => app?.close());

    const allowed: string[] = [
      '/api/book',
      '/api/book?populate=author,tags',
      `/api/book?${qs.stringify({ filters: { author: { name: { $eq: 'Ada' } }, tags: { label: { $eq: 'red' } } }, sort: ['author.name'] }, { encodeValuesOnly: true })}`,
      '/api/tag?populate=books.author',
      '/api/book/__id__?populate=author',
    ];
    const forbidden: [string, string][] = [
      ['/api/book?populate=editor', 'secret.find'],
      ['/api/book/__id__?populate=editor', 'secret.find'],
      ['/api/book?populate[author][populate][profile]=true', 'profile.find'],
      ['/api/author?populate=books.author.profile', 'profile.find'],
      ['/api/book?filters[editor][code][$eq]=S', 'secret.find'],
      ['/api/book?filters[$or][0][title][$eq]=x&filters[$or][1][editor][code][$eq]=S', 'secret.find'],
      ['/api/tag?filters[books][author][profile][handle][$eq]=x', 'profile.find'],
      ['/api/book?populate[author][filters][profile][handle][$eq]=x', 'profile.find'],
      ['/api/book?sort=editor.code', 'secret.find'],
      ['/api/book?showSoftDeleted=inclusive', 'book.recover'],
      ['/api/book?showSoftDeleted=exclusive', 'book.recover'],
      ['/api/book/__id__?showSoftDeleted=inclusive', 'book.recover'],
    ];
    const path = (p: string) => p.replace('__id__', String(bookId));

    for (const p of allowed) {
      it(`reader: ${p} → 200`, async () => {
        const res = await reader.get(path(p));
        expect(res.status, res.text).to.equal(200);
      });
    }

    for (const [p, permission] of forbidden) {
      it(`reader: ${p} → 403 (missing ${permission}); no token → 401; admin → 200`, async () => {
        const res = await reader.get(path(p));
        expect(res.status, res.text).to.equal(403);
        expect(res.body.error.name).to.equal('ForbiddenError');
        expect(res.body.error.message).to.contain(permission);
        expect((await app.http.get(path(p))).status).to.equal(401);
        expect((await admin.get(path(p))).status).to.equal(200);
      });
    }

    it('no token at all → 401 on a plain list; an unknown token → 401', async () => {
      const res = await app.http.get('/api/book');
      expect(res.status).to.equal(401);
      expect(res.body.error.name).to.equal('UnauthorizedError');
      expect((await app.http.withToken('nope').get('/api/book')).status).to.equal(401);
    });

    it('a malformed query answers 400 before any permission question (it names nothing it could not name anyway)', async () => {
      expect((await reader.get('/api/book?filters[nope][$eq]=1')).status).to.equal(400);
      // a private relation is unknown, not forbidden: the answer does not reveal it
      expect((await reader.get('/api/author?populate=vault')).status).to.equal(400);
    });

    it('showSoftDeleted with recover shows the archived records', async () => {
      const res = await admin.get('/api/book?showSoftDeleted=exclusive');
      expect(res.body.records.map((r: { title: string }) => r.title)).to.deep.equal(['Gone']);
    });
  });
}
