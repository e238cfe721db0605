/**
 * Realtime filters judge the version an event carries, on every database (README "Realtime"): a stream
 * filtered on a record's own fields gets every event whose record matches and none whose record does
 * not, however fast the row changes after (an alternating run of PATCHes: the row at send time is
 * often another version than the event's). A filter through a relation is judged by the database
 * against the event's version pinned (its updatedAt): every event it sends matches; one whose row has
 * changed since is passed over for the later event. And a filter reaching a model the caller may not
 * read is refused naming that model's permission.
 */
import { expect } from 'chai';
import qs from 'qs';
import { DIALECTS } from '../../helpers/dialects';
import { makeRole } from '../../helpers/roles';
import { openSse, type SseClient, type SseEvent } from '../../helpers/sse';
import { FIXTURE_MODELS, startTestApp, type TestApp, type TestUser } from '../../helpers/test-app';

type Data = { id: number; type: string; model: string; recordId: number; record: Record<string, unknown> };
const dataOf = (e: SseEvent): Data => e.data as Data;
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

for (const dialect of DIALECTS) {
  describe(`realtime: a filter judges the version the event carries [${dialect}]`, function () {
    this.timeout(90_000);
    let app: TestApp;
    let reader: TestUser;
    const open: SseClient[] = [];
    const stream = async (query: string, u: TestUser = reader): Promise<SseClient> => {
      const c = await openSse(`${app.url}/api/realtime?${query}`, { Authorization: `Bearer ${u.accessToken}` });
      open.push(c);
      expect(c.status, JSON.stringify(c.body)).to.equal(200);
      return c;
    };

    before(async () => {
      app = await startTestApp(dialect, { contentTypesDir: FIXTURE_MODELS, env: { REALTIME_HEARTBEAT: '60s' } });
      await makeRole(app, 'rt-reader', ['author.find', 'book.find']);
      reader = await app.createUser({ roles: ['rt-reader'] });
    });
    afterEach(() => {
      for (const c of open.splice(0)) c.close();
    });
    after(async () => app?.close());

    it('30 PATCHes alternating score 5, 0, 5…: filters[score][$gt]=1 gets exactly the score-5 events, in order', async () => {
      const filtered = await stream(qs.stringify({ models: 'author', filters: { score: { $gt: 1 } } }));
      const all = await stream('models=author');
      const created = await app.http.post('/api/author', { name: `Alternating ${dialect}`, score: 5 });
      expect(created.status, created.text).to.equal(200);
      const id = created.body.data.id as number;
      for (let i = 1; i <= 30; i++) {
        const res = await app.http.patch(`/api/author/${id}`, { score: i % 2 === 1 ? 0 : 5 });
        expect(res.status, res.text).to.equal(200);
      }
      const mine = (c: SseClient): SseEvent[] => c.events.filter((e) => dataOf(e).recordId === id);
      await all.waitFor(() => mine(all).length === 31, 10_000).catch(() => undefined);
      expect(mine(all), 'the unfiltered stream got every event').to.have.length(31);
      const matching = mine(all).filter((e) => Number(dataOf(e).record.score) > 1).map((e) => e.id);
      expect(matching).to.have.length(16);
      const last = matching[matching.length - 1];
      await filtered.waitFor((e) => e.id === last, 10_000).catch(() => undefined);
      await sleep(200);
      const got = mine(filtered);
      expect(got.map((e) => dataOf(e).record.score), 'every delivered event matches').to.satisfy((s: unknown[]) => s.every((x) => Number(x) > 1));
      expect(got.map((e) => e.id), 'none matching is missed').to.deep.equal(matching);
    });

    it('a filter on the record\'s own fields runs no statement per event (judged on the record in memory)', async () => {
      const marker = `nostatement-${dialect}`;
      const statements: unknown[] = [];
      const onQuery = (q: { sql: string; bindings?: unknown[] }): void => {
        // the filter's value as a check binds it (`= ?` / `LIKE 'x%'`); the writes bind whole names
        if ((q.bindings ?? []).some((b) => b === marker || b === `${marker}%`)) statements.push(q.sql);
      };
      const filtered = await stream(qs.stringify({ models: 'author', filters: { name: { $startsWith: marker } } }));
      const dbs = [...new Set([app.deps.db, app.deps.readDb ?? app.deps.db])];
      for (const db of dbs) db.on('query', onQuery);
      try {
        const id = (await app.http.post('/api/author', { name: `${marker} one`, score: 2 })).body.data.id as number;
        expect((await app.http.patch(`/api/author/${id}`, { score: 3 })).status).to.equal(200);
        await filtered.waitFor((e) => dataOf(e).recordId === id && Number(dataOf(e).record.score) === 3);
      } finally {
        for (const db of dbs) db.off('query', onQuery);
      }
      expect(statements, 'no check statement names the filter value').to.deep.equal([]);
    });

    it('combined with $or, $not and $in on the record\'s own fields: judged on the event\'s record too', async () => {
      const filters = { $or: [{ score: { $in: ['5', '7'] } }, { $not: { name: { $startsWith: 'Alt' } } }] };
      const filtered = await stream(qs.stringify({ models: 'author', filters }));
      const all = await stream('models=author');
      const id = (await app.http.post('/api/author', { name: `Alt or ${dialect}`, score: 7 })).body.data.id as number;
      const steps: Record<string, unknown>[] = [{ score: 0 }, { name: `Other ${dialect}` }, { score: 5 }, { name: `Alt again ${dialect}`, score: 1 }, { score: 7 }];
      for (const body of steps) expect((await app.http.patch(`/api/author/${id}`, body)).status).to.equal(200);
      const mine = (c: SseClient): SseEvent[] => c.events.filter((e) => dataOf(e).recordId === id);
      await all.waitFor(() => mine(all).length === 6, 10_000).catch(() => undefined);
      const ok = (r: Record<string, unknown>): boolean => [5, 7].includes(Number(r.score)) || !String(r.name).startsWith('Alt');
      const matching = mine(all).filter((e) => ok(dataOf(e).record)).map((e) => e.id);
      expect(matching, 'create, rename, score 5, score 7').to.have.length(4);
      await filtered.waitFor((e) => e.id === matching[3], 10_000).catch(() => undefined);
      await sleep(200);
      expect(mine(filtered).map((e) => e.id)).to.deep.equal(matching);
    });

    it('a filter through a relation (the database\'s check, pinned to the event\'s version): every event it sends matches', async () => {
      const a = (await app.http.post('/api/author', { name: `Rel A ${dialect}` })).body.data.id as number;
      const b = (await app.http.post('/api/author', { name: `Rel B ${dialect}` })).body.data.id as number;
      const filtered = await stream(qs.stringify({ models: 'book', filters: { author: { name: { $eq: `Rel A ${dialect}` } } } }));
      const all = await stream('models=book');
      const book = (await app.http.post('/api/book', { title: 'Switching', authorId: a })).body.data.id as number;
      for (let i = 1; i <= 20; i++) expect((await app.http.patch(`/api/book/${book}`, { authorId: i % 2 === 1 ? b : a })).status).to.equal(200);
      const mine = (c: SseClient): SseEvent[] => c.events.filter((e) => dataOf(e).recordId === book);
      await all.waitFor(() => mine(all).length === 21, 10_000).catch(() => undefined);
      expect(mine(all)).to.have.length(21);
      // the last version (author A) is the row's: it is sent
      await filtered.waitFor((e) => e.id === mine(all)[20].id, 10_000);
      expect(mine(filtered).map((e) => dataOf(e).record.authorId), 'every delivered event matches').to.satisfy((s: unknown[]) => s.every((x) => x === a));
    });

    it('a filter through a relation to a model the caller may not find: 403 naming that permission (book.find, not author.find)', async () => {
      await makeRole(app, 'rt-author-only', ['author.find']);
      const u = await app.createUser({ roles: ['rt-author-only'] });
      const res = await openSse(`${app.url}/api/realtime?${qs.stringify({ models: 'author', filters: { books: { title: { $eq: 'W1' } } } })}`, { Authorization: `Bearer ${u.accessToken}` });
      open.push(res);
      expect(res.status).to.equal(403);
      const message = (res.body as { error: { message: string } }).error.message;
      expect(message).to.contain('missing permission book.find');
      expect(message).not.to.contain('author.find');
      // Find names the same permission.
      const find = await u.http.get(`/api/author?${qs.stringify({ filters: { books: { title: { $eq: 'W1' } } } })}`);
      expect(find.status).to.equal(403);
      expect(JSON.stringify(find.body)).to.contain('book.find');
      // The model's own find still is named for the model itself.
      const own = await openSse(`${app.url}/api/realtime?models=book`, { Authorization: `Bearer ${u.accessToken}` });
      open.push(own);
      expect(own.status).to.equal(403);
      expect((own.body as { error: { message: string } }).error.message).to.contain('missing permission book.find');
    });
  });
}
