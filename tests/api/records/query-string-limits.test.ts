/**
 * README Security, limits of the query string, each answered as JSON naming the limit at one past it:
 * - its length (MAX_QUERY_STRING, 32 KiB): Node's 16 KiB head limit used to answer 431 with no body
 *   before this limit could be met; the head may now be 48 KiB, and only past that Node answers 431;
 * - filter nesting (12 levels, a field counting as one): qs stopped `$and`/`$or` at 8 levels ("Input
 *   depth exceeded", details {});
 * - an array index above 999: named now ("Array limit exceeded", details {} before).
 */
import { expect } from 'chai';
import { DIALECTS } from '../../helpers/dialects';
import { startTestApp, type TestApp } from '../../helpers/test-app';

const MAX_QUERY_STRING = 32_768;

/** `filters[feeType][$in][i]=…` values padded so the query string is exactly `length` characters. */
function queryOfLength(length: number): string {
  const parts: string[] = [];
  let used = 0;
  for (let i = 0; used < length; i++) {
    const key = `${i ? '&' : ''}filters[feeType][$in][${i}]=`;
    const room = length - used - key.length;
    const value = 'a'.repeat(Math.max(1, Math.min(8000, room)));
    parts.push(key + value);
    used += key.length + value.length;
  }
  const q = parts.join('');
  expect(q.length).to.equal(length);
  return q;
}

const nested = (levels: number): string => `filters${'[$and][0]'.repeat(levels)}[feeType][$eq]=a`;

for (const dialect of DIALECTS) {
  describe(`query string limits answer JSON naming them [${dialect}]`, () => {
    let app: TestApp;
    before(async () => {
      app = await startTestApp(dialect);
    });
    after(async () => app?.close());

    it(`a query string of ${MAX_QUERY_STRING} characters is read; one more answers 400 naming the limit`, async () => {
      expect((await app.http.get(`/api/fee-type?${queryOfLength(MAX_QUERY_STRING)}`)).status).to.equal(200);
      const past = await app.http.get(`/api/fee-type?${queryOfLength(MAX_QUERY_STRING + 1)}`);
      expect(past.status).to.equal(400);
      expect(past.body.error.details).to.deep.equal({ limit: 'queryString', max: MAX_QUERY_STRING });
    });

    it('a request head past 48 KiB is refused by the HTTP parser (431)', async () => {
      const res = await fetch(`${app.url}/api/fee-type?filters[feeType][$eq]=${'a'.repeat(50 * 1024)}`);
      expect(res.status).to.equal(431);
    });

    it('filters nest 12 levels (11 `$and` and the field); one more answers 400 naming the nesting limit', async () => {
      expect((await app.http.get(`/api/fee-type?${nested(11)}`)).status).to.equal(200);
      const past = await app.http.get(`/api/fee-type?${nested(12)}`);
      expect(past.status).to.equal(400);
      expect(past.body.error.message).to.match(/nest deeper than 12 levels/);
      const far = await app.http.get(`/api/fee-type?${nested(40)}`);
      expect(far.status).to.equal(400);
      expect(far.body.error.details).to.deep.include({ limit: 'keyDepth' });
    });

    it('an array index of 999 is read; 1000 answers 400 naming the limit', async () => {
      expect((await app.http.get('/api/fee-type?filters[id][$in][999]=1')).status).to.equal(200);
      const past = await app.http.get('/api/fee-type?filters[id][$in][1000]=1');
      expect(past.status).to.equal(400);
      expect(past.body.error.details).to.deep.equal({ limit: 'arrayIndex', max: 999 });
    });
  });
}
