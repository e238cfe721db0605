/**
 * Issue 17 (part): conditional reads. Every Find and FindOne answer carries a strong ETag of its bytes,
 * `Cache-Control: private, no-cache` and `Vary: Authorization`; `If-None-Match` naming the current tag
 * (weak comparison, lists, `*`) answers 304 without a body, a malformed one never does; a write changes
 * the tag. Over HTTP, every database; every response is checked against the served OpenAPI document
 * (304 included).
 */
import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { DIALECTS } from '../../helpers/dialects';
import type { Reply } from '../../helpers/http';
import { userWith } from '../../helpers/roles';
import { startTestApp, type TestApp, type TestUser } from '../../helpers/test-app';

const LIST = '/api/fee-type?sort[0]=id&limit=10&populate[0]=institute';
const GROUPED = '/api/fee-type?groupBy[0]=latePaymentFeesType&aggregates[0]=latePaymentFees:sum&populateGroup=true';
const STRONG = /^"[A-Za-z0-9_-]{27}"$/;

const sha1Tag = (text: string): string => `"${createHash('sha1').update(Buffer.from(text, 'utf8')).digest('base64url')}"`;

function expectTagged(res: Reply): string {
  expect(res.status, res.text).to.equal(200);
  const tag = res.headers.get('etag') ?? '';
  expect(tag).to.match(STRONG);
  expect(tag, 'the tag is the SHA-1 of the bytes sent').to.equal(sha1Tag(res.text));
  expect(res.headers.get('cache-control')).to.equal('private, no-cache');
  expect(res.headers.get('vary') ?? '').to.match(/\bAuthorization\b/i);
  return tag;
}

function expectNotModified(res: Reply, tag: string): void {
  expect(res.status, res.text).to.equal(304);
  expect(res.text).to.equal('');
  expect(res.headers.get('etag')).to.equal(tag);
  expect(res.headers.get('cache-control')).to.equal('private, no-cache');
  expect(res.headers.get('vary') ?? '').to.match(/\bAuthorization\b/i);
}

// Cache on or off (issue 17: the response cache keeps the tag and the 304).
for (const [dialect, cache] of DIALECTS.flatMap((d) => (['off', 'memory'] as const).map((c) => [d, c] as const))) {
  describe(`ETag and If-None-Match on Find and FindOne [${dialect}, CACHE=${cache}]`, () => {
    let app: TestApp;
    let feeId: number;
    let instituteId: number;
    let reader: TestUser;
    let noInstitute: TestUser;
    const inm = (tag: string, path: string, client = app.http): Promise<Reply> => client.get(path, { headers: { 'if-none-match': tag } });

    before(async () => {
      app = await startTestApp(dialect, { env: { CACHE: cache } });
      const inst = await app.http.post('/api/institute', { name: 'Tag School', code: 'TAG', city: 'Bern' });
      expect(inst.status, inst.text).to.equal(200);
      instituteId = inst.body.data.id;
      for (let i = 0; i < 3; i++) {
        const r = await app.http.post('/api/fee-type', { feeType: `Tagged ${i}`, instituteId, latePaymentFeesType: i % 2 ? 'fixed' : 'percentage', latePaymentFees: 10 + i });
        expect(r.status, r.text).to.equal(200);
        if (i === 0) feeId = r.body.data.id;
      }
      reader = await userWith(app, 'etag-reader', ['fee-type.find', 'fee-type.findOne', 'institute.find']);
      noInstitute = await userWith(app, 'etag-no-institute', ['fee-type.find', 'fee-type.findOne']);
    });
    after(async () => app?.close());

    it('the same answer twice has the same strong ETag (list, findOne, grouped with populateGroup)', async () => {
      for (const path of [LIST, `/api/fee-type/${feeId}`, GROUPED]) {
        const a = await app.http.get(path);
        const b = await app.http.get(path);
        expect(a.text).to.equal(b.text);
        expect(expectTagged(a), path).to.equal(expectTagged(b));
      }
      // different answers, different tags
      const one = expectTagged(await app.http.get(`/api/fee-type/${feeId}`));
      const list = expectTagged(await app.http.get(LIST));
      const fewer = expectTagged(await app.http.get('/api/fee-type?sort[0]=id&limit=1'));
      expect(new Set([one, list, fewer]).size).to.equal(3);
    });

    it('If-None-Match naming the current tag answers 304 without a body, on list, findOne and grouped', async () => {
      for (const path of [LIST, `/api/fee-type/${feeId}`, GROUPED]) {
        const tag = expectTagged(await app.http.get(path));
        expectNotModified(await inm(tag, path), tag);
      }
    });

    it('another tag, an empty or malformed header answers 200 with the body, even when it also names the tag', async () => {
      const tag = expectTagged(await app.http.get(`/api/fee-type/${feeId}`));
      const malformed = [`garbage ${tag}`, `${tag}, garbage`, `"x", ${tag}, W/`, `${tag} ${tag}`, `${tag}, *`, `${tag}, "open`];
      for (const header of ['"AAAAAAAAAAAAAAAAAAAAAAAAAAA"', tag.slice(1, -1), `${tag.slice(0, -2)}"`, 'W/', ',', ...malformed]) {
        const res = await inm(header, `/api/fee-type/${feeId}`);
        expect(res.status, header).to.equal(200);
        expect(res.body.id).to.equal(feeId);
      }
    });

    it('RFC 9110 forms: `*`, a list, the weak form W/ (weak comparison), empty list members', async () => {
      const path = `/api/fee-type/${feeId}`;
      const tag = expectTagged(await app.http.get(path));
      expectNotModified(await inm('*', path), tag);
      expectNotModified(await inm(`"old-one", ${tag}, "other"`, path), tag);
      expectNotModified(await inm(`W/${tag}`, path), tag);
      expectNotModified(await inm(`"x",W/"y" , W/${tag}`, path), tag);
      expectNotModified(await inm(`, ,${tag},`, path), tag);
      expect((await inm('"old-one", W/"other"', path)).status).to.equal(200);
    });

    it('a write to the record changes its tag and the list tag; the old tag then answers 200', async () => {
      const path = `/api/fee-type/${feeId}`;
      const oneTag = expectTagged(await app.http.get(path));
      const listTag = expectTagged(await app.http.get(LIST));
      expect((await app.http.patch(path, { latePaymentFees: 99 })).status).to.equal(200);
      const after = await inm(oneTag, path);
      expect(after.status).to.equal(200);
      expect(after.body.latePaymentFees).to.equal(99);
      const newTag = expectTagged(after);
      expect(newTag).to.not.equal(oneTag);
      expectNotModified(await inm(newTag, path), newTag);
      const list = await inm(listTag, LIST);
      expect(list.status).to.equal(200);
      expect(expectTagged(list)).to.not.equal(listTag);
    });

    it('a write elsewhere in the list (a new record, a populated relation) changes the list tag', async () => {
      const tag = expectTagged(await app.http.get(LIST));
      expect((await app.http.post('/api/fee-type', { feeType: 'Tagged new', instituteId })).status).to.equal(200);
      const afterCreate = await inm(tag, LIST);
      expect(afterCreate.status).to.equal(200);
      const tag2 = expectTagged(afterCreate);
      expect((await app.http.patch(`/api/institute/${instituteId}`, { city: 'Basel' })).status).to.equal(200);
      const afterRelation = await inm(tag2, LIST);
      expect(afterRelation.status, 'the populated institute changed').to.equal(200);
      expect(afterRelation.body.records[0].institute.city).to.equal('Basel');
    });

    it('callers: the same answer has the same tag for any caller; a caller without the permission gets 401/403, never 304', async () => {
      const path = `/api/fee-type/${feeId}`;
      const adminTag = expectTagged(await app.http.get(path));
      const readerTag = expectTagged(await reader.http.get(path));
      expect(readerTag).to.equal(adminTag);
      expectNotModified(await inm(adminTag, path, reader.http), adminTag);
      // the list populating institute: allowed for reader, refused for a caller without institute.find
      const listTag = expectTagged(await app.http.get(LIST));
      expectNotModified(await inm(listTag, LIST, reader.http), listTag);
      const refused = await inm(listTag, LIST, noInstitute.http);
      expect(refused.status, refused.text).to.equal(403);
      expect(refused.headers.get('etag')).to.equal(null);
      const anon = await inm(adminTag, path, app.anon);
      expect(anon.status, anon.text).to.equal(401);
      expect(anon.headers.get('etag')).to.equal(null);
      // without populate, the caller may list fee types: its own answer, its own tag
      const plain = '/api/fee-type?sort[0]=id&limit=10';
      expect(expectTagged(await noInstitute.http.get(plain))).to.equal(expectTagged(await app.http.get(plain)));
    });

    it('errors carry no ETag and If-None-Match does not turn them into 304', async () => {
      const missing = await inm('*', '/api/fee-type/999999');
      expect(missing.status).to.equal(404);
      expect(missing.headers.get('etag')).to.equal(null);
      const bad = await inm('*', '/api/fee-type?limit=abc');
      expect(bad.status).to.equal(400);
      expect(bad.headers.get('etag')).to.equal(null);
    });

    it('writes answer without an ETag', async () => {
      const res = await app.http.patch(`/api/fee-type/${feeId}`, { latePaymentFees: 12 });
      expect(res.status).to.equal(200);
      expect(res.headers.get('etag')).to.equal(null);
    });

    it('HEAD answers the same headers as GET without a body, and 304 with If-None-Match', async () => {
      const path = `/api/fee-type/${feeId}`;
      const get = await app.http.get(path);
      const tag = expectTagged(get);
      const auth = { authorization: `Bearer ${app.admin?.accessToken ?? ''}` };
      const head = await app.fetch(app.url + path, { method: 'HEAD', headers: auth });
      expect(head.status).to.equal(200);
      expect(head.headers.get('etag')).to.equal(tag);
      expect(await head.text()).to.equal('');
      const head304 = await app.fetch(app.url + path, { method: 'HEAD', headers: { ...auth, 'if-none-match': tag } });
      expect(head304.status).to.equal(304);
    });
  });
}
