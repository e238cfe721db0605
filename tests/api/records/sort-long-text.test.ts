/**
 * Long text sorts by all of its characters on every database. MariaDB compared sort keys by their first
 * `max_sort_length` bytes (1024 by default): two values sharing a longer prefix came back in id order
 * (a text field's `sort`, the order of groups, `groupFilter[sort]`). The service's sessions raise it.
 */
import { expect } from 'chai';
import qs from 'qs';
import { DIALECTS } from '../../helpers/dialects';
import { FIXTURE_MODELS, startTestApp, type TestApp } from '../../helpers/test-app';

const PREFIX = 'x'.repeat(2000);

for (const dialect of DIALECTS) {
  describe(`records: text sharing a 2,000-character prefix sorts by what follows [${dialect}]`, () => {
    let app: TestApp;
    before(async () => {
      app = await startTestApp(dialect, { contentTypesDir: FIXTURE_MODELS });
      // created in the wrong order: id order is not the answer
      for (const [name, last] of [['z', 'z'], ['b', 'b']]) {
        const res = await app.http.post('/api/author', { name, genre: 'poetry', bio: `${PREFIX}${last}` });
        expect(res.status, res.text).to.equal(200);
      }
    });
    after(async () => app?.close());

    const get = async (query: Record<string, unknown>): Promise<Record<string, unknown>> => {
      const res = await app.http.get(`/api/author?${qs.stringify(query, { encodeValuesOnly: true })}`);
      expect(res.status, res.text).to.equal(200);
      return res.body as Record<string, unknown>;
    };
    const names = (records: unknown): unknown[] => (records as { name: unknown }[]).map((r) => r.name);
    const lasts = (records: unknown): unknown[] => (records as { bio: string }[]).map((r) => r.bio.slice(PREFIX.length));

    it('sort ascending and descending', async () => {
      expect(names((await get({ sort: ['bio'], fields: ['name'] })).records)).to.deep.equal(['b', 'z']);
      expect(names((await get({ sort: ['bio:desc'], fields: ['name'] })).records)).to.deep.equal(['z', 'b']);
    });

    it('ten sort keys of the text at once still sort (the sort buffer holds them; MariaDB ran out of sort memory, 500)', async () => {
      expect(names((await get({ sort: Array(10).fill('bio:desc'), fields: ['name'] })).records)).to.deep.equal(['z', 'b']);
    });

    it('the order of groups keyed by the text', async () => {
      expect(lasts((await get({ groupBy: ['bio'], sort: ['bio'] })).records)).to.deep.equal(['b', 'z']);
      expect(lasts((await get({ groupBy: ['bio'], sort: ['bio:DESC'] })).records)).to.deep.equal(['z', 'b']);
    });

    it('groupFilter[sort] inside a group', async () => {
      for (const [sort, want] of [['bio', ['b', 'z']], ['bio:DESC', ['z', 'b']]] as const) {
        const body = await get({ groupBy: ['genre'], populateGroup: true, groupFilter: { sort: [sort] } });
        const groups = body.groupRecords as { records: unknown }[];
        expect(names(groups[0].records), sort).to.deep.equal(want);
      }
    });
  });
}
