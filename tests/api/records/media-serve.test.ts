/** Issue 18: local serving of /uploads/<key>: Range (206 / 416), ETag and Last-Modified, conditional GETs (304). */
import { expect } from 'chai';
import { DIALECTS } from '../../helpers/dialects';
import { sendForm, sha256 } from '../../helpers/multipart';
import { startTestApp, type TestApp } from '../../helpers/test-app';

/** 1000 bytes of text: byte i is `i % 10` as a digit, so every slice is easy to predict. */
const BYTES = Buffer.from(Array.from({ length: 1000 }, (_, i) => String(i % 10)).join(''));
const SIZE = BYTES.length;

for (const dialect of DIALECTS) {
  describe(`media: local serving with Range and conditional GETs [${dialect}]`, () => {
    let app: TestApp;
    let fileUrl: string;
    let lastModified: string;

    const get = async (headers: Record<string, string> = {}, method = 'GET') => {
      const res = await fetch(fileUrl, { method, headers });
      return { status: res.status, headers: res.headers, body: Buffer.from(await res.arrayBuffer()) };
    };

    before(async () => {
      app = await startTestApp(dialect);
      const res = await sendForm(`${app.url}/api/fee-type`, 'POST', { data: { feeType: `Ranges ${dialect}` } }, [{ part: 'attachments', bytes: BYTES, type: 'text/plain', name: 'digits.txt' }], app.fetch, app.admin?.accessToken ?? null);
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      fileUrl = String(res.body.data._media.attachments[0]._full_url).replace(app.deps.config.publicUrl, app.url);
      lastModified = (await get()).headers.get('last-modified') ?? '';
    });
    after(async () => app?.close());

    it('a plain GET: 200, the whole file, Accept-Ranges, ETag (the sha256) and Last-Modified (when it was stored)', async () => {
      const res = await get();
      expect(res.status).to.equal(200);
      expect(res.body.equals(BYTES)).to.equal(true);
      expect(res.headers.get('accept-ranges')).to.equal('bytes');
      expect(res.headers.get('etag')).to.equal(`"${sha256(BYTES)}"`);
      const stored = Date.parse(lastModified);
      expect(Number.isFinite(stored)).to.equal(true);
      expect(Math.abs(Date.now() - stored)).to.be.below(5 * 60_000);
    });

    it('bytes=a-b, bytes=a- and bytes=-n: 206 with Content-Range and exactly those bytes', async () => {
      const cases: [string, number, number][] = [
        ['bytes=0-0', 0, 0],
        ['bytes=10-19', 10, 19],
        ['bytes=990-5000', 990, 999],
        ['bytes=995-', 995, 999],
        ['bytes=-7', 993, 999],
        ['bytes=-5000', 0, 999],
        ['bytes=999-999', 999, 999],
      ];
      for (const [range, start, end] of cases) {
        const res = await get({ range });
        expect(res.status, range).to.equal(206);
        expect(res.headers.get('content-range'), range).to.equal(`bytes ${start}-${end}/${SIZE}`);
        expect(res.headers.get('content-length'), range).to.equal(String(end - start + 1));
        expect(res.body.equals(BYTES.subarray(start, end + 1)), range).to.equal(true);
        expect(res.headers.get('content-type'), range).to.match(/^text\/plain/);
      }
    });

    it('a range outside the file: 416 with Content-Range: bytes */size and a JSON error', async () => {
      for (const range of ['bytes=1000-', 'bytes=1000-1001', 'bytes=5000-6000', 'bytes=-0']) {
        const res = await get({ range });
        expect(res.status, range).to.equal(416);
        expect(res.headers.get('content-range'), range).to.equal(`bytes */${SIZE}`);
        const body = JSON.parse(res.body.toString()) as { error: { status: number; name: string; details: { size: number } } };
        expect(body.error).to.include({ status: 416, name: 'RangeNotSatisfiableError' });
        expect(body.error.details.size).to.equal(SIZE);
      }
    });

    it('several ranges, another unit or a malformed range: the whole file, 200', async () => {
      for (const range of ['bytes=0-1,5-6', 'items=0-1', 'bytes=5-2', 'bytes=abc']) {
        const res = await get({ range });
        expect(res.status, range).to.equal(200);
        expect(res.body.equals(BYTES), range).to.equal(true);
        expect(res.headers.get('content-range'), range).to.equal(null);
      }
    });

    it('If-Range: the range applies while the ETag or date still names the file; otherwise the whole file', async () => {
      const etag = `"${sha256(BYTES)}"`;
      expect((await get({ range: 'bytes=0-9', 'if-range': etag })).status).to.equal(206);
      expect((await get({ range: 'bytes=0-9', 'if-range': lastModified })).status).to.equal(206);
      expect((await get({ range: 'bytes=0-9', 'if-range': '"other"' })).status).to.equal(200);
      expect((await get({ range: 'bytes=0-9', 'if-range': 'Thu, 01 Jan 2015 00:00:00 GMT' })).status).to.equal(200);
    });

    it('If-None-Match and If-Modified-Since: 304 without a body; a changed validator or an older date: 200', async () => {
      const etag = `"${sha256(BYTES)}"`;
      const conditional: Record<string, string>[] = [{ 'if-none-match': etag }, { 'if-none-match': `"x", W/${etag}` }, { 'if-none-match': '*' }, { 'if-modified-since': lastModified }, { 'if-modified-since': new Date(Date.now() + 60_000).toUTCString() }];
      for (const headers of conditional) {
        const res = await get(headers);
        expect(res.status, JSON.stringify(headers)).to.equal(304);
        expect(res.body.length).to.equal(0);
        expect(res.headers.get('etag')).to.equal(etag);
      }
      const older = new Date(Date.parse(lastModified) - 1000).toUTCString();
      expect((await get({ 'if-modified-since': older })).status).to.equal(200);
      expect((await get({ 'if-none-match': '"other"' })).status).to.equal(200);
      // If-None-Match wins over If-Modified-Since (RFC 9110 §13.1.3)
      expect((await get({ 'if-none-match': '"other"', 'if-modified-since': lastModified })).status).to.equal(200);
      expect((await get({ 'if-modified-since': 'not a date' })).status).to.equal(200);
    });

    it('a malformed If-None-Match never yields 304, even when a member names the ETag (README: Conditional reads)', async () => {
      const etag = `"${sha256(BYTES)}"`;
      const bare = etag.slice(1, -1);
      for (const inm of [`garbage, ${etag}`, `${etag}, garbage`, `${etag} garbage`, bare, `W/${bare}`, `*, ${etag}`, `${etag}, *`, `"${bare}`, `${etag}"`]) {
        const res = await get({ 'if-none-match': inm });
        expect(res.status, inm).to.equal(200);
        expect(res.body.equals(BYTES), inm).to.equal(true);
        // If-None-Match (even malformed) wins over If-Modified-Since (RFC 9110 §13.1.3)
        expect((await get({ 'if-none-match': inm, 'if-modified-since': lastModified })).status, `${inm} + If-Modified-Since`).to.equal(200);
      }
      // Well-formed lists, with empty members (RFC 9110 §5.6.1), still match.
      for (const inm of [`, ${etag}`, `"x",, W/${etag} ,`, ` ${etag} `]) {
        expect((await get({ 'if-none-match': inm })).status, inm).to.equal(304);
      }
    });

    it('HEAD answers the headers of the GET, ranges included, without a body', async () => {
      const whole = await get({}, 'HEAD');
      expect(whole.status).to.equal(200);
      expect(whole.headers.get('content-length')).to.equal(String(SIZE));
      expect(whole.body.length).to.equal(0);
      const part = await get({ range: 'bytes=0-9' }, 'HEAD');
      expect(part.status).to.equal(206);
      expect(part.headers.get('content-range')).to.equal(`bytes 0-9/${SIZE}`);
    });
  });
}
