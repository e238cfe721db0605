/**
 * Text compares exactly on every database (issue 18): `$eq` and unique values are case-sensitive,
 * trailing spaces and accents count, ordering is by code point. MariaDB's default collations would
 * answer otherwise (case-insensitive, PAD SPACE): the service creates its tables utf8mb4_nopad_bin.
 */
import { expect } from 'chai';
import { DIALECTS } from '../../helpers/dialects';
import { startTestApp, type TestApp } from '../../helpers/test-app';

for (const dialect of DIALECTS) {
  describe(`records: text is compared exactly (case, trailing spaces, accents) [${dialect}]`, () => {
    let app: TestApp;
    before(async () => {
      app = await startTestApp(dialect);
    });
    after(async () => {
      await app?.close();
    });

    const create = (name: string, code: string) => app.http.post('/api/institute', { name, code });
    const codesOf = (body: { records: { code: string }[] }): string[] => body.records.map((r) => r.code);

    it('a unique value differing only in case, a trailing space or an accent is another value; the same bytes clash (409)', async () => {
      for (const code of ['ABC', 'abc', 'ABC ', 'ÀBC', 'ǍBC']) {
        const res = await create(`Institute ${JSON.stringify(code)}`, code);
        expect(res.status, `${code}: ${res.text}`).to.equal(200);
        expect(res.body.data.code).to.equal(code);
      }
      const clash = await create('Another', 'abc');
      expect(clash.status, clash.text).to.equal(409);
      expect(clash.body.error.details.fields).to.have.property('code');
    });

    it('$eq and $in match the exact text; $eqi matches every case variant', async () => {
      const eq = await app.http.get('/api/institute?filters[code][$eq]=abc');
      expect(codesOf(eq.body)).to.deep.equal(['abc']);
      const spaced = await app.http.get(`/api/institute?filters[code][$eq]=${encodeURIComponent('ABC ')}`);
      expect(codesOf(spaced.body)).to.deep.equal(['ABC ']);
      const inList = await app.http.get('/api/institute?filters[code][$in][0]=ABC&filters[code][$in][1]=ÀBC&sort=id');
      expect(codesOf(inList.body)).to.deep.equal(['ABC', 'ÀBC']);
      const eqi = await app.http.get('/api/institute?filters[code][$eqi]=aBc&sort=id');
      expect(codesOf(eqi.body)).to.deep.equal(['ABC', 'abc']);
    });

    it('sorts by code point (upper case before lower case, accented letters after z)', async () => {
      const res = await app.http.get('/api/institute?filters[code][$contains]=BC&sort=code');
      expect(codesOf(res.body)).to.deep.equal(['ABC', 'ABC ', 'ÀBC', 'ǍBC']);
      const lower = await app.http.get('/api/institute?filters[code][$containsi]=bc&sort=code:desc');
      expect(codesOf(lower.body)).to.deep.equal(['ǍBC', 'ÀBC', 'abc', 'ABC ', 'ABC']);
    });
  });
}
