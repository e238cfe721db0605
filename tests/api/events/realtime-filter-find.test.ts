/**
 * A stream's filter agrees with Find's on every database: the records whose create events a filtered
 * stream delivers are exactly the records Find answers for the same filter (README "Realtime":
 * `filters[...]` exactly as on Find). Values chosen where an in-memory judgement and SQL may differ.
 */
import { expect } from 'chai';
import qs from 'qs';
import { DIALECTS } from '../../helpers/dialects';
import { openSse, type SseClient, type SseEvent } from '../../helpers/sse';
import { FIXTURE_MODELS, startTestApp, type TestApp } from '../../helpers/test-app';

type Data = { id: number; type: string; recordId: number; record: Record<string, unknown> };
const dataOf = (e: SseEvent): Data => e.data as Data;
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

const FILTERS: Record<string, unknown>[] = [
  { name: { $eq: 'Pad' } },
  { name: { $ne: 'Pad' } },
  { name: { $in: ['Pad'] } },
  { name: { $eqi: 'pad' } },
  { name: { $lt: 'Pad!' } },
  { bio: { $contains: '' } },
  { bio: { $eq: 'x' } },
  { rating: { $eq: 1.1 } },
  { rating: { $gt: 1.05 } },
  { followers: { $eq: 5 } },
  { score: { $eq: 0.1 } },
  { score: { $lt: 0.2 } },
  { active: { $eq: false } },
  { active: { $ne: true } },
  { lastSeen: { $gte: '2026-01-01T00:00:00.000Z' } },
  { wakeUp: { $eq: '10:00' } },
  { wakeUp: { $gt: '09:59:59' } },
  { genre: { $lt: 'p' } },
  { email: { $eq: 'A@Example.test' } },
  { born: { $between: ['2000-01-01', '2000-12-31'] } },
  { name: { $containsi: 'STRASSE' } },
  { name: { $eqi: 'straße' } },
  { name: { $startsWithi: 'i̇' } },
  { name: { $containsi: 'ǅ' } },
  { name: { $notContainsi: 'a' } },
  { name: { $endsWithi: 'Σ' } },
  { name: { $gt: '\u{1F600}' } },
  { name: { $lt: '\uFFFD' } },
  { bio: { $containsi: '%' } },
  { bio: { $contains: '_' } },
  { bio: { $startsWith: '\\' } },
  { lastSeen: { $eq: '2026-01-01T01:00:00+01:00' } },
  { lastSeen: { $lt: '2026-01-01' } },
  { email: { $eqi: 'a@EXAMPLE.test' } },
  { slug: { $eqi: 'ABC' } },
  { genre: { $in: ['fiction', 'science'] } },
  { genre: { $notIn: ['fiction'] } },
  { $not: { name: { $in: [] } } },
  { age: { $null: false } },
  { age: { $lte: -1 } },
];

const RECORDS: Record<string, unknown>[] = [
  { name: 'Pad' },
  { name: 'Pad ', bio: '', rating: 1.1, score: 0.1, active: false, wakeUp: '10:00:00', genre: 'fiction', email: 'A@Example.test', born: '2000-06-01' },
  { name: 'pad', bio: 'x ', rating: 1.10, score: 0.1000001, active: true, lastSeen: '2026-01-01T00:00:00.000Z', genre: 'poetry', email: 'a@example.test', followers: 6 },
  { name: 'Straße İstanbul ǆ', bio: '50% off_\\x', slug: 'abc', age: -5 },
  { name: 'STRASSE ς', bio: 'a_b', slug: 'ABC-1', age: 0 },
  { name: '\u{1F601} smile', bio: '\\start' },
  { name: '\uFFFC x' },
  { name: 'PAD', followers: 5, wakeUp: '09:59:59.5', born: '2000-12-31', lastSeen: '2025-12-31T23:59:59.999Z' },
];

for (const dialect of DIALECTS) {
  describe(`realtime: a stream's filter answers what Find answers [${dialect}]`, function () {
    this.timeout(90_000);
    let app: TestApp;
    const open: SseClient[] = [];

    before(async () => {
      app = await startTestApp(dialect, { contentTypesDir: FIXTURE_MODELS, env: { REALTIME_HEARTBEAT: '60s', REALTIME_MAX_CONNECTIONS: '100' } });
    });
    after(async () => {
      for (const c of open.splice(0)) c.close();
      await app?.close();
    });

    it('the records whose create events reach a filtered stream are those Find answers for the filter', async () => {
      const streams: SseClient[] = [];
      for (const f of FILTERS) {
        const c = await openSse(`${app.url}/api/realtime?${qs.stringify({ models: 'author', filters: f })}`, { Authorization: `Bearer ${app.admin!.accessToken}` });
        open.push(c);
        expect(c.status, `${JSON.stringify(f)} ${JSON.stringify(c.body)}`).to.equal(200);
        streams.push(c);
      }
      const all = await openSse(`${app.url}/api/realtime?models=author`, { Authorization: `Bearer ${app.admin!.accessToken}` });
      open.push(all);
      const ids: number[] = [];
      for (const r of RECORDS) {
        const res = await app.http.post('/api/author', r);
        expect(res.status, res.text).to.equal(200);
        ids.push(res.body.data.id as number);
      }
      await all.waitFor((e) => dataOf(e).recordId === ids[ids.length - 1], 10_000);
      await sleep(500);
      const problems: string[] = [];
      for (let i = 0; i < FILTERS.length; i++) {
        const found = await app.http.get(`/api/author?${qs.stringify({ filters: { $and: [FILTERS[i], { id: { $in: ids } }] }, limit: 100 })}`);
        expect(found.status, found.text).to.equal(200);
        const want = (found.body.records as { id: number }[]).map((r) => r.id).sort((a, b) => a - b);
        const got = streams[i].events.filter((e) => e.event === 'record.create').map((e) => dataOf(e).recordId).sort((a, b) => a - b);
        if (JSON.stringify(want) !== JSON.stringify(got)) problems.push(`${JSON.stringify(FILTERS[i])}: Find ${JSON.stringify(want.map((x) => ids.indexOf(x)))} stream ${JSON.stringify(got.map((x) => ids.indexOf(x)))}`);
      }
      expect(problems, problems.join('\n')).to.deep.equal([]);
    });
  });
}
