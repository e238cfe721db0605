/**
 * Spec 4.5: `sum` and `avg` of integer, biginteger and decimal fields answer the same JSON number on
 * every database: the exact result (PostgreSQL numeric, MariaDB DECIMAL) as the nearest double, never
 * an error. SQLite's own SUM failed past 2^63 (500 "integer overflow") where PostgreSQL and MariaDB
 * answered 9907919180215090000; its AVG of 1,100 × 9007199254740991 answered 9007199254740990; its
 * decimal sum of 99999999999999.98 and 0.01 answered 100000000000000 (a float sum rounded at 0.0001).
 * Values are compared with ===, not within a tolerance.
 */
import { expect } from 'chai';
import qs from 'qs';
import { DIALECTS } from '../../helpers/dialects';
import { FIXTURE_MODELS, startTestApp, type TestApp } from '../../helpers/test-app';

const MAX_SAFE = 9007199254740991;

interface Author {
  readonly genre: string;
  readonly age?: number;
  readonly followers?: number;
  readonly rating?: number;
}

const rows: Author[] = [
  // 1,100 × (2^53 − 1) = 9907919180215090100: past 2^63 (9.2e18)
  ...Array.from({ length: 1100 }, (): Author => ({ genre: 'fiction', followers: MAX_SAFE })),
  // negative values and averages that are not whole
  { genre: 'poetry', age: 1, followers: -MAX_SAFE, rating: -0.0001 },
  { genre: 'poetry', age: 2, followers: MAX_SAFE, rating: -0.0002 },
  { genre: 'poetry', age: 2, followers: 3 },
  // sums that fit in 2^53 stay exact; decimals of 16 digits
  { genre: 'science', age: -1, followers: MAX_SAFE - 1, rating: 99999999999999.98 },
  { genre: 'science', age: -2, followers: 1, rating: 0.01 },
];

for (const dialect of DIALECTS) {
  describe(`records: sum and avg are the exact answer on every database, never an error [${dialect}]`, () => {
    let app: TestApp;
    before(async () => {
      app = await startTestApp(dialect, { contentTypesDir: FIXTURE_MODELS });
      for (let i = 0; i < rows.length; i += 100) {
        const batch = rows.slice(i, i + 100).map((r, k) => ({ name: `author ${i + k}`, ...r }));
        const res = await app.http.post('/api/author/bulk', batch);
        expect(res.status, res.text).to.equal(200);
      }
    });
    after(async () => app?.close());

    const find = async (query: Record<string, unknown>): Promise<Record<string, unknown>[]> => {
      const res = await app.http.get(`/api/author?${qs.stringify(query, { encodeValuesOnly: true })}`);
      expect(res.status, res.text).to.equal(200);
      return res.body.records as Record<string, unknown>[];
    };

    it('biginteger: a sum past 2^63 is the nearest double of the exact sum; sums within 2^53 are exact', async () => {
      const records = await find({ groupBy: ['genre'], aggregates: ['followers:sum', 'followers:avg'], sort: ['genre'] });
      expect(records).to.deep.equal([
        { genre: 'fiction', followers_sum: Number('9907919180215090100'), followers_avg: MAX_SAFE },
        { genre: 'poetry', followers_sum: 3, followers_avg: 1 },
        { genre: 'science', followers_sum: MAX_SAFE, followers_avg: 4503599627370495.5 },
      ]);
    });

    it('integer: averages as PostgreSQL and MariaDB answer them, negative and half-way ones too', async () => {
      const records = await find({ groupBy: ['genre'], aggregates: ['age:sum', 'age:avg'], sort: ['genre'] });
      expect(records).to.deep.equal([
        { genre: 'fiction', age_sum: null, age_avg: null },
        { genre: 'poetry', age_sum: 5, age_avg: 1.6666666666666667 },
        { genre: 'science', age_sum: -3, age_avg: -1.5 },
      ]);
    });

    it('decimal: sums and averages of large and of negative values are the decimal results', async () => {
      const records = await find({ groupBy: ['genre'], aggregates: ['rating:sum', 'rating:avg'], sort: ['genre'] });
      expect(records).to.deep.equal([
        { genre: 'fiction', rating_sum: null, rating_avg: null },
        // not rounded to 0.0001: -0.00015, not -0.0002
        { genre: 'poetry', rating_sum: -0.0003, rating_avg: -0.00015 },
        // the doubles nearest 99999999999999.99 and 49999999999999.995 (not 100000000000000 and 50000000000000)
        { genre: 'science', rating_sum: Number('99999999999999.99'), rating_avg: Number('49999999999999.995') },
      ]);
    });

    it('groups sort by the exact sums and averages', async () => {
      const bySum = await find({ groupBy: ['genre'], aggregates: ['followers:sum'], sort: ['-followers_sum'] });
      expect(bySum.map((r) => r.genre)).to.deep.equal(['fiction', 'science', 'poetry']);
      const byAvg = await find({ groupBy: ['genre'], aggregates: ['rating:avg'], sort: ['rating_avg'] });
      expect(byAvg.map((r) => r.genre)).to.deep.equal(['fiction', 'poetry', 'science']);
      const byAge = await find({ groupBy: ['genre'], aggregates: ['age:avg'], sort: ['age_avg:DESC'] });
      expect(byAge.map((r) => r.genre)).to.deep.equal(['poetry', 'science', 'fiction']);
    });
  });
}
