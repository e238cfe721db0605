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

    it('$startsWith finds values whose next character lies past U+FFFF (an emoji, a math letter) on an indexed column', async () => {
      // MariaDB answered LIKE 'P%' from the unique index with a range ending at 'P' + U+FFFF: 'P😀' was missed.
      const codes = ['P', 'P\uFFFF', 'Pa', 'P😀', 'P😀😀', 'P𝔸b', '\u{10FFFF}', '\u{10FFFF}z', 'Q'];
      for (const code of codes) expect((await create(`Prefix ${JSON.stringify(code)}`, code)).status).to.equal(200);
      const starts = async (prefix: string): Promise<string[]> => {
        const res = await app.http.get(`/api/institute?filters[code][$startsWith]=${encodeURIComponent(prefix)}&sort=code&limit=50`);
        expect(res.status, res.text).to.equal(200);
        return codesOf(res.body);
      };
      expect(await starts('P')).to.deep.equal(['P', 'Pa', 'P\uFFFF', 'P𝔸b', 'P😀', 'P😀😀']);
      expect(await starts('P😀')).to.deep.equal(['P😀', 'P😀😀']);
      expect(await starts('\u{10FFFF}')).to.deep.equal(['\u{10FFFF}', '\u{10FFFF}z']);
      const all = codesOf((await app.http.get('/api/institute?sort=code&limit=50')).body);
      const not = await app.http.get('/api/institute?filters[$not][code][$startsWith]=P&sort=code&limit=50');
      expect(codesOf(not.body)).to.deep.equal(all.filter((c) => !c.startsWith('P')));
    });

    it('sorts by code point (upper case before lower case, accented letters after z)', async () => {
      const res = await app.http.get('/api/institute?filters[code][$contains]=BC&sort=code');
      expect(codesOf(res.body)).to.deep.equal(['ABC', 'ABC ', 'ÀBC', 'ǍBC']);
      const lower = await app.http.get('/api/institute?filters[code][$containsi]=bc&sort=code:desc');
      expect(codesOf(lower.body)).to.deep.equal(['ǍBC', 'ÀBC', 'abc', 'ABC ', 'ABC']);
    });
  });
}
