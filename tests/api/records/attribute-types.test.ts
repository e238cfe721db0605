/** Every attribute type and every relation kind written and read back over HTTP, the same on both databases. */
import { expect } from 'chai';
import { join } from 'node:path';
import { DIALECTS } from '../../helpers/dialects';
import { ROOT, startTestApp, type TestApp } from '../../helpers/test-app';

const MODELS = join(ROOT, 'tests', 'fixtures', 'all-types');

for (const dialect of DIALECTS) {
  describe(`attribute types and relations round-trip [${dialect}]`, () => {
    let app: TestApp;
    let keeperId: number;
    let labelIds: number[];
    let badgeIds: number[];

    before(async () => {
      app = await startTestApp(dialect, { contentTypesDir: MODELS });
      keeperId = (await app.http.post('/api/keeper', { handle: 'kim' })).body.data.id;
      labelIds = (await app.http.post('/api/label/bulk', [{ name: 'red' }, { name: 'green' }, { name: 'blue' }])).body.data.map((r: { id: number }) => r.id);
      badgeIds = (await app.http.post('/api/badge/bulk', [{ number: 1 }, { number: 2 }])).body.data.map((r: { id: number }) => r.id);
    });
    after(async () => app?.close());

    const full = () => ({
      title: 'Full',
      body: 'long text',
      contact: 'a@example.com',
      slug: 'a-slug',
      count: 7,
      big: 9007199254740991,
      price: 12.3456,
      ratio: 0.125,
      active: false,
      day: '2024-02-29',
      at: '2026-01-02T03:04:05.678+02:00',
      clock: '13:45:00',
      kind: 'large',
      meta: { nested: [1, 'two', { three: true }] },
      secret: 'correct horse battery',
      hidden: 'never shown',
      code: 'ABC',
      keeperUserKey: 'kim',
      labels: [labelIds[0], labelIds[2]],
      badgeId: badgeIds[0],
    });

    it('writes every type and reads back the same values as JSON types; secrets never come back', async () => {
      const res = await app.http.post('/api/specimen', full());
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      const r = res.body.data;
      expect(r).to.include({
        title: 'Full', body: 'long text', contact: 'a@example.com', slug: 'a-slug', count: 7, big: 9007199254740991, price: 12.3456,
        ratio: 0.125, active: false, day: '2024-02-29', at: '2026-01-02T01:04:05.678Z', clock: '13:45:00', kind: 'large', code: 'ABC',
        keeperId, badgeId: badgeIds[0],
      });
      expect(r.meta).to.deep.equal({ nested: [1, 'two', { three: true }] });
      expect(r).to.not.have.any.keys('secret', 'hidden');
      expect(JSON.stringify(r)).to.not.match(/\$2[aby]\$|never shown|correct horse/);
      const got = await app.http.get(`/api/specimen/${r.id}?populate[0]=labels&populate[1]=keeper&populate[2]=badge`);
      expect(got.body.labels.map((l: { name: string }) => l.name)).to.deep.equal(['red', 'blue']);
      expect(got.body.keeper).to.include({ handle: 'kim' });
      expect(got.body.badge).to.include({ number: 1 });
      expect(got.body).to.not.have.any.keys('secret', 'hidden');
    });

    it('a json value reads back as written, also a string that is itself JSON text ("null", "123", "{}")', async () => {
      // PostgreSQL's and MariaDB's drivers parsed json columns, and the json kind parsed the result again:
      // the string "null" came back as null, "123" as a number, "{\"a\":1}" as an object.
      const values: unknown[] = ['null', '123', 'true', '{"a":1}', '[1,"x"]', '"quoted"', 'plain', '', 123, 0, true, false, [], {}, ['null'], { s: 'null', n: null }];
      const ids: number[] = [];
      for (const [i, meta] of values.entries()) {
        const res = await app.http.post('/api/specimen', { title: `Json ${i}`, meta });
        expect(res.status, res.text).to.equal(200);
        expect(res.body.data.meta, `create answer of ${JSON.stringify(meta)}`).to.deep.equal(meta);
        ids.push(res.body.data.id);
      }
      for (const [i, meta] of values.entries()) {
        expect((await app.http.get(`/api/specimen/${ids[i]}`)).body.meta, `FindOne of ${JSON.stringify(meta)}`).to.deep.equal(meta);
      }
      const list = await app.http.get(`/api/specimen?filters[title][$startsWith]=Json&sort=id&limit=50&fields[0]=meta`);
      expect(list.body.records.map((r: { meta: unknown }) => r.meta)).to.deep.equal(values);
      const patched = await app.http.patch(`/api/specimen/${ids[0]}`, { meta: '42' });
      expect(patched.body.data.meta).to.equal('42');
    });

    it('applies defaults and nulls for omitted optional fields', async () => {
      const r = (await app.http.post('/api/specimen', { title: 'Bare' })).body.data;
      expect(r).to.include({ active: true, count: null, meta: null, keeperId: null, badgeId: null, day: null });
    });

    it('refuses values of the wrong type or outside the declared bounds with 422 per field', async () => {
      const res = await app.http.post('/api/specimen', {
        title: 'x', contact: 'not-an-email', slug: 'bad slug', count: 1.5, price: -1, active: 'yes', day: '2024-02-30x', at: 'yesterday', clock: '25', kind: 'medium', code: 'abc',
      });
      expect(res.status).to.equal(422);
      expect(Object.keys(res.body.error.details.fields)).to.have.members(['title', 'contact', 'slug', 'count', 'price', 'active', 'day', 'at', 'clock', 'kind', 'code']);
    });

    it('refuses integers outside the column range on every database (no silent difference)', async () => {
      const res = await app.http.post('/api/specimen', { title: 'Huge', count: 5, big: 2 ** 60 });
      expect(res.status).to.equal(422);
      expect(res.body.error.details.fields).to.have.property('big');
      const keeper = await app.http.post('/api/badge', { number: 2147483648 });
      expect(keeper.status).to.equal(422);
      expect(keeper.body.error.details.fields).to.have.property('number');
      expect((await app.http.post('/api/badge', { number: 2147483647 })).status).to.equal(200);
      expect((await app.http.post('/api/badge', { number: -2147483648 })).status).to.equal(200);
    });

    it('refuses a password shorter than 8 characters', async () => {
      const res = await app.http.post('/api/specimen', { title: 'Pw', secret: 'short' });
      expect(res.status).to.equal(422);
      expect(res.body.error.details.fields).to.have.property('secret');
    });

    it('many-to-many: PATCH replaces the set, an unknown id answers 422 and changes nothing', async () => {
      const r = (await app.http.post('/api/specimen', { title: 'Linked', labels: [labelIds[0]] })).body.data;
      await app.http.patch(`/api/specimen/${r.id}`, { labels: [labelIds[1], labelIds[2]] });
      const names = async () => (await app.http.get(`/api/specimen/${r.id}?populate[0]=labels`)).body.labels.map((l: { name: string }) => l.name);
      expect(await names()).to.deep.equal(['green', 'blue']);
      const bad = await app.http.patch(`/api/specimen/${r.id}`, { labels: [labelIds[0], 999999] });
      expect(bad.status).to.equal(422);
      expect(bad.body.error.details.fields).to.have.property('labels');
      expect(await names()).to.deep.equal(['green', 'blue']);
      // the inverse side sees it too
      const label = await app.http.get(`/api/label/${labelIds[1]}?populate[0]=specimens`);
      expect(label.body.specimens.map((s: { title: string }) => s.title)).to.include('Linked');
    });

    it('one-to-one: a second record cannot take the same badge (409); the inverse side populates one record', async () => {
      const first = (await app.http.post('/api/specimen', { title: 'Badge 2 a', badgeId: badgeIds[1] })).body.data;
      const second = await app.http.post('/api/specimen', { title: 'Badge 2 b', badgeId: badgeIds[1] });
      expect(second.status).to.equal(409);
      const badge = await app.http.get(`/api/badge/${badgeIds[1]}?populate[0]=specimen`);
      expect(badge.body.specimen).to.include({ id: first.id });
    });

    it('one-to-many inverse side is read-only: writing it is an unknown field', async () => {
      const res = await app.http.post('/api/keeper', { handle: 'lee', specimens: [1] });
      expect(res.status).to.equal(422);
      expect(res.body.error.details.fields.specimens).to.deep.equal(['is not a field of keeper']);
      const k = await app.http.get(`/api/keeper/${keeperId}?populate[0]=specimens`);
      expect(k.body.specimens.map((s: { title: string }) => s.title)).to.include('Full');
    });

    it('archived related records are not populated', async () => {
      const s = (await app.http.post('/api/specimen', { title: 'Gone soon', keeperId })).body.data;
      await app.http.del(`/api/specimen/${s.id}`);
      const k = await app.http.get(`/api/keeper/${keeperId}?populate[0]=specimens`);
      expect(k.body.specimens.map((x: { title: string }) => x.title)).to.not.include('Gone soon');
    });
  });
}
