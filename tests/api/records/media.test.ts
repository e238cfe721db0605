/**
 * Issue 6: multipart create/update, storage, `_media` (spec 2.5, 4.3), limits, cleanup, media:prune —
 * on local disk and on S3 (issue 18: a real S3-protocol server, a private bucket, presigned `_full_url`s).
 */
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DIALECTS } from '../../helpers/dialects';
import { filesUnder, pdf, png, type RawPart, sendForm, sendParts, sha256, text } from '../../helpers/multipart';
import { eventually, startS3, type S3TestServer } from '../../helpers/s3';
import { STORAGES } from '../../helpers/storages';
import { ROOT, startTestApp, type TestApp } from '../../helpers/test-app';

const MAX = 64 * 1024;
/** UPLOAD_MAX_FILES's default (media-form-limits.test.ts sets it). */
const MAX_FILES_PER_REQUEST = 10;
/** BODY_MAX_BYTES of these tests: above UPLOAD_MAX_BYTES, so a text part's bound shows. */
const BODY_MAX = 4 * MAX;

for (const dialect of DIALECTS) for (const storage of STORAGES) {
  describe(`records: media [${dialect}, ${storage}]`, () => {
    let app: TestApp;
    let s3: S3TestServer | null = null;
    let uploads: string;
    let instituteId: number;
    let seq = 0;

    const url = (p: string): string => app.url + p;
    // multipart answers are checked against the OpenAPI document too
    // …and carry the seeded admin's token: record writes need one once the identity plugin runs
    const send: typeof sendForm = (u, method, fields, files) => sendForm(u, method, fields, files, app.fetch, app.admin?.accessToken ?? null);
    /** The stored files' keys: under the uploads folder, or in the bucket. */
    const stored = async (): Promise<string[]> => (s3 ? s3.keys() : filesUnder(uploads).sort());
    /** No file was added since `before` (one removed meanwhile by an earlier test's background delete is fine). */
    const nothingAdded = async (before: readonly string[]): Promise<void> => {
      const now = await stored();
      expect(now.filter((k) => !before.includes(k)), 'files added').to.deep.equal([]);
    };
    /** A file's bytes are gone from storage (deletes after a commit run in the background). */
    const goneFromStorage = async (fullUrl: string): Promise<boolean> => eventually(async () => !(await stored()).some((f) => fullUrl.split('?')[0].endsWith(f)));
    const mediaRows = async (): Promise<number> => Number(((await app.deps.db('media_files').count({ n: '*' })) as { n: number | string }[])[0].n);
    const fetchBytes = async (u: string, headers: Record<string, string> = {}): Promise<{ status: number; bytes: Buffer; headers: Headers }> => {
      const res = await fetch(u, { headers });
      return { status: res.status, bytes: Buffer.from(await res.arrayBuffer()), headers: res.headers };
    };
    const newInstitute = (extra: Record<string, unknown> = {}) => {
      seq++;
      return { name: `Institute ${seq}`, code: `I${seq}`, ...extra };
    };

    before(async () => {
      if (storage === 's3') s3 = await startS3();
      app = await startTestApp(dialect, { env: { UPLOAD_MAX_BYTES: String(MAX), BODY_MAX_BYTES: String(BODY_MAX), PUBLIC_URL: 'https://cdn.example.test/', ...(s3 ? s3.env() : {}) } });
      uploads = app.deps.config.uploadsDir;
      const res = await app.http.post('/api/institute', newInstitute());
      instituteId = res.body.data.id;
    });
    after(async () => {
      await app?.close();
      await s3?.close();
    });

    /**
     * Local disk: `_full_url` is PUBLIC_URL + /uploads/<key>, which the test server answers. S3 (private
     * bucket): a presigned GET of the object under S3_PREFIX, fetched as it is.
     */
    const local = (fullUrl: string): string => {
      if (s3) {
        expect(fullUrl.startsWith(`${s3.endpoint}/${s3.bucket}/media/`), fullUrl).to.equal(true);
        expect(fullUrl).to.match(/[?&]X-Amz-Signature=/);
        return fullUrl;
      }
      expect(fullUrl.startsWith('https://cdn.example.test/uploads/'), fullUrl).to.equal(true);
      return url(fullUrl.slice('https://cdn.example.test'.length));
    };
    /** A removed file's address answers 404 (at once on local disk: the row is gone; on S3 once the object is). */
    const gone = async (fullUrl: string): Promise<boolean> => eventually(async () => (await fetchBytes(local(fullUrl))).status === 404);

    describe('create (spec 4.3: `data` + parts named after media fields)', () => {
      it('stores a single file and answers `_media`; the bytes come back equal, with safe caching headers', async () => {
        const logo = png('create');
        const res = await send(url('/api/institute'), 'POST', { data: newInstitute({ city: 'Ogdenville' }) }, [{ part: 'logo', bytes: logo, type: 'image/png', name: 'logo.png' }]);
        expect(res.status, JSON.stringify(res.body)).to.equal(200);
        expect(res.body.data).to.include({ city: 'Ogdenville' });
        const [m] = res.body.data._media.logo;
        expect(m).to.have.all.keys('id', 'name', '_full_url');
        expect(m).to.include({ name: 'logo.png' });
        const got = await fetchBytes(local(m._full_url));
        expect(got.status).to.equal(200);
        expect(sha256(got.bytes)).to.equal(sha256(logo));
        expect(got.headers.get('content-type')).to.equal('image/png');
        expect(got.headers.get('cache-control')).to.match(/immutable/);
        expect(got.headers.get('content-disposition')).to.match(/^inline/);
        if (s3) return; // the bucket's own ETag and conditional GETs are S3's; ours are local serving's
        expect(got.headers.get('etag')).to.equal(`"${sha256(logo)}"`);
        expect(got.headers.get('x-content-type-options')).to.equal('nosniff');
        const again = await fetchBytes(local(m._full_url), { 'if-none-match': `"${sha256(logo)}"` });
        expect(again.status).to.equal(304);
        expect(again.bytes.length).to.equal(0);
      });

      it('stores several files in a multiple field, in order', async () => {
        const files = [pdf('one'), text('two\n'), png('three')];
        const res = await send(url('/api/fee-type'), 'POST', { data: { feeType: 'Multi', instituteId } }, [
          { part: 'attachments', bytes: files[0], type: 'application/pdf', name: 'one.pdf' },
          { part: 'attachments', bytes: files[1], type: 'text/plain', name: 'two.txt' },
          { part: 'attachments', bytes: files[2], type: 'image/png', name: 'three.png' },
        ]);
        expect(res.status, JSON.stringify(res.body)).to.equal(200);
        const list = res.body.data._media.attachments;
        expect(list.map((x: { name: string }) => x.name)).to.deep.equal(['one.pdf', 'two.txt', 'three.png']);
        for (const [i, x] of list.entries()) expect(sha256((await fetchBytes(local(x._full_url))).bytes)).to.equal(sha256(files[i]));
      });

      it('validates `data` with the same validators as JSON (422 details.fields) and stores nothing', async () => {
        const before = await stored();
        const rows = await mediaRows();
        const res = await send(url('/api/fee-type'), 'POST', { data: { feeType: 7, bogus: 1 } }, [{ part: 'attachments', bytes: pdf(), type: 'application/pdf', name: 'x.pdf' }]);
        expect(res.status).to.equal(422);
        expect(res.body.error.details.fields).to.have.keys('feeType', 'bogus');
        await nothingAdded(before);
        expect(await mediaRows()).to.equal(rows);
      });

      it('answers 400 for `data` that is not JSON and for an unknown text part', async () => {
        const a = await send(url('/api/institute'), 'POST', { data: '{"name":' }, []);
        expect(a.status).to.equal(400);
        const b = await send(url('/api/institute'), 'POST', { data: newInstitute(), other: 'x' }, []);
        expect(b.status).to.equal(400);
      });

      it('JSON bodies keep working as before', async () => {
        const res = await app.http.post('/api/institute', newInstitute());
        expect(res.status).to.equal(200);
        expect(res.body.data).to.not.have.property('_media');
      });
    });

    describe('`data` / `updateDto` with a Content-Type of their own (FormData with a JSON Blob, curl `;type=`)', () => {
      const sendRaw = (path: string, method: string, parts: readonly RawPart[]) => sendParts(url(path), method, parts, app.fetch, app.admin?.accessToken ?? null);
      /** The upload temporary folder holds nothing (a refused or text part never leaves a file there). */
      const tmpEmpty = async (): Promise<void> => {
        await new Promise((r) => setTimeout(r, 50));
        expect(filesUnder(join(uploads, '.tmp'))).to.deep.equal([]);
      };

      it('create: a `data` part typed application/json (no file name, or a Blob\'s "blob") is the record, with its files', async () => {
        const typed = await sendRaw('/api/fee-type', 'POST', [{ name: 'data', value: JSON.stringify({ feeType: 'Typed part', instituteId }), type: 'application/json' }]);
        expect(typed.status, JSON.stringify(typed.body)).to.equal(200);
        expect(typed.body.data).to.include({ feeType: 'Typed part' });
        const form = new FormData();
        form.append('data', new Blob([JSON.stringify(newInstitute({ city: 'Blobville' }))], { type: 'application/json' }));
        form.append('logo', new Blob([png('blob')], { type: 'image/png' }), 'blob.png');
        const res = await app.fetch(url('/api/institute'), { method: 'POST', body: form, headers: { authorization: `Bearer ${app.admin?.accessToken}` } });
        const body = (await res.json()) as { data: { city: string; _media: { logo: { name: string }[] } } };
        expect(res.status, JSON.stringify(body)).to.equal(200);
        expect(body.data.city).to.equal('Blobville');
        expect(body.data._media.logo.map((m) => m.name)).to.deep.equal(['blob.png']);
        await tmpEmpty();
      });

      it('update: an `updateDto` typed application/json, text/plain or a +json type changes the record', async () => {
        const id = (await app.http.post('/api/institute', newInstitute())).body.data.id;
        for (const [type, city] of [['application/json', 'Jsonville'], ['application/json; charset=utf-8', 'Charsetville'], ['text/plain', 'Textville'], ['application/merge-patch+json', 'Mergeville']]) {
          const res = await sendRaw(`/api/institute/${id}`, 'PATCH', [{ name: 'updateDto', value: JSON.stringify({ city }), type }]);
          expect(res.status, `${type}: ${JSON.stringify(res.body)}`).to.equal(200);
          expect(res.body.data.city, type).to.equal(city);
        }
        const withFile = await sendRaw(`/api/institute/${id}`, 'PATCH', [
          { name: 'updateDto', value: '{"city":"Fileville"}', type: 'application/json', filename: 'blob' },
          { name: 'files', value: png('typed'), type: 'image/png', filename: 'typed.png' },
        ]);
        expect(withFile.status, JSON.stringify(withFile.body)).to.equal(200);
        expect(withFile.body.data.city).to.equal('Fileville');
        expect(withFile.body.data._media.logo.map((m: { name: string }) => m.name)).to.deep.equal(['typed.png']);
        await tmpEmpty();
      });

      it('a record part of another type (image/png, octet-stream) answers 400 naming the part; nothing written, no temporary file left', async () => {
        const before = await stored();
        const png400 = await sendRaw('/api/fee-type', 'POST', [{ name: 'data', value: JSON.stringify({ feeType: 'Png part' }), type: 'image/png' }]);
        expect(png400.status, JSON.stringify(png400.body)).to.equal(400);
        expect(png400.body.error.message).to.match(/"data"/).and.match(/image\/png/);
        expect(png400.body.error.details).to.deep.equal({ part: 'data', contentType: 'image/png' });
        const id = (await app.http.post('/api/institute', newInstitute({ city: 'Unchanged' }))).body.data.id;
        const bin = await sendRaw(`/api/institute/${id}`, 'PATCH', [{ name: 'updateDto', value: '{"city":"Changed"}', type: 'application/octet-stream', filename: 'dto.bin' }]);
        expect(bin.status).to.equal(400);
        expect(bin.body.error.details).to.deep.equal({ part: 'updateDto', contentType: 'application/octet-stream' });
        const latin1 = await sendRaw(`/api/institute/${id}`, 'PATCH', [{ name: 'updateDto', value: '{"city":"Changed"}', type: 'application/json; charset=iso-8859-1' }]);
        expect(latin1.status).to.equal(400);
        expect(latin1.body.error.message).to.match(/UTF-8/);
        expect((await app.http.get(`/api/institute/${id}`)).body.city).to.equal('Unchanged');
        expect((await app.http.get('/api/fee-type?filters[feeType][$eq]=Png part')).body.records).to.have.length(0);
        await nothingAdded(before);
        await tmpEmpty();
      });

      it(`a typed record part is a text part: up to BODY_MAX_BYTES (${BODY_MAX}), not UPLOAD_MAX_BYTES; one byte more answers 413 naming BODY_MAX_BYTES`, async () => {
        const record = JSON.stringify(newInstitute({ city: 'Bigville' }));
        const at = await sendRaw('/api/institute', 'POST', [{ name: 'data', value: record + ' '.repeat(BODY_MAX - record.length), type: 'application/json' }]);
        expect(at.status, JSON.stringify(at.body)).to.equal(200);
        expect(at.body.data.city).to.equal('Bigville');
        const past = await sendRaw('/api/institute', 'POST', [{ name: 'data', value: record + ' '.repeat(BODY_MAX + 1 - record.length), type: 'application/json' }]);
        expect(past.status).to.equal(413);
        expect(past.body.error.details).to.deep.equal({ setting: 'BODY_MAX_BYTES', limit: BODY_MAX });
        await tmpEmpty();
      });
    });

    describe('populateMedia on Find and FindOne (spec 2.5)', () => {
      let a: number;
      let b: number;
      before(async () => {
        const r1 = await send(url('/api/institute'), 'POST', { data: newInstitute({ city: 'Popville' }) }, [{ part: 'logo', bytes: png('p1'), type: 'image/png', name: 'p1.png' }]);
        const r2 = await app.http.post('/api/institute', newInstitute({ city: 'Popville' }));
        a = r1.body.data.id;
        b = r2.body.data.id;
      });

      it('Find: every record of the page has `_media.<field>` as an array (empty when no file)', async () => {
        const res = await app.http.get('/api/institute?filters[city][$eq]=Popville&sort[0]=id&populateMedia[0]=logo');
        expect(res.status).to.equal(200);
        const [ra, rb] = res.body.records;
        expect(ra.id).to.equal(a);
        expect(ra._media.logo).to.have.length(1);
        expect(ra._media.logo[0]).to.include({ name: 'p1.png' });
        expect(rb.id).to.equal(b);
        expect(rb._media).to.deep.equal({ logo: [] });
      });

      it('FindOne: `_media` when asked, absent otherwise; works with `fields`', async () => {
        const one = await app.http.get(`/api/institute/${a}?populateMedia[0]=logo&fields[0]=name`);
        expect(one.status).to.equal(200);
        expect(one.body._media.logo[0].id).to.be.a('number');
        expect(sha256((await fetchBytes(local(one.body._media.logo[0]._full_url))).bytes)).to.equal(sha256(png('p1')));
        const plain = await app.http.get(`/api/institute/${a}`);
        expect(plain.body).to.not.have.property('_media');
      });

      it('refuses populateMedia of a field that is not a media field (400)', async () => {
        const res = await app.http.get('/api/institute?populateMedia[0]=name');
        expect(res.status).to.equal(400);
      });
    });

    describe('update: replace, append, remove (spec 4.3 `updateDto` + `files`)', () => {
      it('an upload to a single field replaces the old file (row and bytes)', async () => {
        const r = await send(url('/api/institute'), 'POST', { data: newInstitute() }, [{ part: 'logo', bytes: png('old'), type: 'image/png', name: 'old.png' }]);
        const old = r.body.data._media.logo[0];
        const res = await send(url(`/api/institute/${r.body.data.id}`), 'PATCH', { updateDto: { city: 'Newtown' } }, [{ part: 'files', bytes: png('new'), type: 'image/png', name: 'new.png' }]);
        expect(res.status, JSON.stringify(res.body)).to.equal(200);
        expect(res.body.data.city).to.equal('Newtown');
        const now = res.body.data._media.logo;
        expect(now).to.have.length(1);
        expect(now[0].name).to.equal('new.png');
        expect(now[0].id).to.not.equal(old.id);
        expect(await gone(old._full_url)).to.equal(true);
        expect(await goneFromStorage(old._full_url)).to.equal(true);
      });

      it('a multiple field appends (PATCH with `files`, PUT with `data` + field parts)', async () => {
        const r = await send(url('/api/fee-type'), 'POST', { data: { feeType: 'Append', instituteId } }, [{ part: 'attachments', bytes: pdf('a'), type: 'application/pdf', name: 'a.pdf' }]);
        const id = r.body.data.id;
        const p = await send(url(`/api/fee-type/${id}`), 'PATCH', { updateDto: {} }, [{ part: 'files', bytes: pdf('b'), type: 'application/pdf', name: 'b.pdf' }]);
        expect(p.status, JSON.stringify(p.body)).to.equal(200);
        expect(p.body.data._media.attachments.map((x: { name: string }) => x.name)).to.deep.equal(['a.pdf', 'b.pdf']);
        const put = await send(url(`/api/fee-type/${id}`), 'PUT', { data: { feeType: 'Append', instituteId, latePaymentFees: 3 } }, [{ part: 'attachments', bytes: pdf('c'), type: 'application/pdf', name: 'c.pdf' }]);
        expect(put.status, JSON.stringify(put.body)).to.equal(200);
        expect(put.body.data.latePaymentFees).to.equal(3);
        expect(put.body.data._media.attachments.map((x: { name: string }) => x.name)).to.deep.equal(['a.pdf', 'b.pdf', 'c.pdf']);
      });

      it('a JSON keep-list removes the other files; null clears; an id of another record is refused (422)', async () => {
        const r = await send(url('/api/fee-type'), 'POST', { data: { feeType: 'Keep', instituteId } }, [
          { part: 'attachments', bytes: pdf('k1'), type: 'application/pdf', name: 'k1.pdf' },
          { part: 'attachments', bytes: pdf('k2'), type: 'application/pdf', name: 'k2.pdf' },
        ]);
        const id = r.body.data.id;
        const [k1, k2] = r.body.data._media.attachments;
        const keep = await app.http.patch(`/api/fee-type/${id}`, { attachments: [k1.id] });
        expect(keep.status, JSON.stringify(keep.body)).to.equal(200);
        expect(keep.body.data._media.attachments.map((x: { id: number }) => x.id)).to.deep.equal([k1.id]);
        expect(await gone(k2._full_url)).to.equal(true);
        const other = await app.http.get('/api/fee-type?filters[feeType][$eq]=Multi&populateMedia[0]=attachments');
        const foreign = other.body.records[0]._media.attachments[0].id;
        const bad = await app.http.patch(`/api/fee-type/${id}`, { attachments: [foreign] });
        expect(bad.status).to.equal(422);
        expect(bad.body.error.details.fields).to.have.property('attachments');
        const clear = await app.http.patch(`/api/fee-type/${id}`, { attachments: null });
        expect(clear.status).to.equal(200);
        expect(clear.body.data._media.attachments).to.deep.equal([]);
        expect(await gone(k1._full_url)).to.equal(true);
      });

      it('`logo: null` clears a single field', async () => {
        const r = await send(url('/api/institute'), 'POST', { data: newInstitute() }, [{ part: 'logo', bytes: png('clear'), type: 'image/png', name: 'c.png' }]);
        const res = await app.http.patch(`/api/institute/${r.body.data.id}`, { logo: null });
        expect(res.status).to.equal(200);
        expect(res.body.data._media).to.deep.equal({ logo: [] });
      });
    });

    describe('limits', () => {
      it('413 for a file over UPLOAD_MAX_BYTES; nothing left on disk or in the table', async () => {
        const before = await stored();
        const rows = await mediaRows();
        const res = await send(url('/api/fee-type'), 'POST', { data: { feeType: 'Big', instituteId } }, [{ part: 'attachments', bytes: Buffer.alloc(MAX * 3, 0x61), type: 'text/plain', name: 'big.txt' }]);
        expect(res.status).to.equal(413);
        expect(res.body.error.name).to.equal('PayloadTooLargeError');
        expect(res.body.error.details).to.include({ setting: 'UPLOAD_MAX_BYTES', limit: MAX });
        expect(res.body.error.message).to.contain('UPLOAD_MAX_BYTES');
        await new Promise((r) => setTimeout(r, 50));
        await nothingAdded(before);
        expect(await mediaRows()).to.equal(rows);
        expect((await app.http.get('/api/fee-type?filters[feeType][$eq]=Big')).body.records).to.have.length(0);
      });

      it('a zero-byte file and one of exactly UPLOAD_MAX_BYTES are stored and served back (an empty file is not a malformed body)', async () => {
        const res = await send(url('/api/fee-type'), 'POST', { data: { feeType: 'Edges', instituteId } }, [
          { part: 'attachments', bytes: Buffer.alloc(0), type: 'text/plain', name: 'empty.txt' },
          { part: 'attachments', bytes: Buffer.alloc(MAX, 0x61), type: 'text/plain', name: 'full.txt' },
        ]);
        expect(res.status, JSON.stringify(res.body)).to.equal(200);
        const [empty, full] = res.body.data._media.attachments;
        expect(empty.name).to.equal('empty.txt');
        const got = await fetchBytes(local(empty._full_url));
        expect(got.status).to.equal(200);
        expect(got.bytes.length).to.equal(0);
        const whole = await fetchBytes(local(full._full_url));
        expect(whole.status).to.equal(200);
        expect(whole.bytes.equals(Buffer.alloc(MAX, 0x61))).to.equal(true);
      });

      it(`413 for more than ${MAX_FILES_PER_REQUEST} files in one request`, async () => {
        const before = await stored();
        const parts = Array.from({ length: MAX_FILES_PER_REQUEST + 1 }, (_, i) => ({ part: 'attachments', bytes: pdf(String(i)), type: 'application/pdf', name: `${i}.pdf` }));
        const res = await send(url('/api/fee-type'), 'POST', { data: { feeType: 'Many', instituteId } }, parts);
        expect(res.status).to.equal(413);
        expect(res.body.error.message).to.match(/at most/);
        expect(res.body.error.details).to.deep.equal({ setting: 'UPLOAD_MAX_FILES', limit: MAX_FILES_PER_REQUEST });
        await new Promise((r) => setTimeout(r, 50));
        await nothingAdded(before);
      });

      it('422 details.fields.logo for a PDF or text declared as image/png (type from the bytes)', async () => {
        const before = await stored();
        for (const bytes of [pdf(), text('just text, not an image')]) {
          const res = await send(url('/api/institute'), 'POST', { data: newInstitute() }, [{ part: 'logo', bytes, type: 'image/png', name: 'fake.png' }]);
          expect(res.status).to.equal(422);
          expect(res.body.error.details.fields.logo[0]).to.match(/not allowed/);
        }
        await nothingAdded(before);
      });

      it('422 for two files in a single field and for a part that names no media field', async () => {
        const two = await send(url('/api/institute'), 'POST', { data: newInstitute() }, [
          { part: 'logo', bytes: png('1'), type: 'image/png', name: '1.png' },
          { part: 'logo', bytes: png('2'), type: 'image/png', name: '2.png' },
        ]);
        expect(two.status).to.equal(422);
        expect(two.body.error.details.fields).to.have.property('logo');
        const unknown = await send(url('/api/institute'), 'POST', { data: newInstitute() }, [{ part: 'city', bytes: png('3'), type: 'image/png', name: '3.png' }]);
        expect(unknown.status).to.equal(422);
        expect(unknown.body.error.details.fields).to.have.property('city');
      });

      it('a traversal file name is reduced to its last segment; the file lands only under the uploads folder', async () => {
        const res = await send(url('/api/fee-type'), 'POST', { data: { feeType: 'Traversal', instituteId } }, [{ part: 'attachments', bytes: text('root:x:0:0'), type: 'text/plain', name: '../../etc/passwd' }]);
        expect(res.status, JSON.stringify(res.body)).to.equal(200);
        const [m] = res.body.data._media.attachments;
        expect(m.name).to.equal('passwd');
        expect(m._full_url).to.match(/\/[0-9a-f]{2}\/[0-9a-f]{32}\.txt(\?|$)/);
        expect((await stored()).every((f) => !f.includes('..') && !f.endsWith('passwd'))).to.equal(true);
        for (const p of ['/uploads/../../etc/passwd', '/uploads/%2e%2e/%2e%2e/etc/passwd', '/uploads/..%2f..%2fetc%2fpasswd', '/uploads/.tmp/x']) {
          expect((await fetchBytes(url(p))).status, p).to.equal(404);
        }
      });

      it('HTML and SVG are served as attachments, with nosniff', async () => {
        const res = await send(url('/api/fee-type'), 'POST', { data: { feeType: 'Active', instituteId } }, [
          { part: 'attachments', bytes: text('<!doctype html><script>alert(1)</script>'), type: 'text/html', name: 'x.html' },
          { part: 'attachments', bytes: text('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'), type: 'image/svg+xml', name: 'x.svg' },
        ]);
        expect(res.status).to.equal(200);
        for (const m of res.body.data._media.attachments) {
          const got = await fetchBytes(local(m._full_url));
          expect(got.headers.get('content-disposition')).to.match(/^attachment; filename="x\.(html|svg)"/);
          if (!s3) expect(got.headers.get('x-content-type-options')).to.equal('nosniff');
        }
      });

      it("a file name with ' ( ) * or non-ASCII letters gets a valid RFC 5987 filename* (those characters percent-encoded)", async () => {
        const name = "it's (1)*é.txt";
        const res = await send(url('/api/fee-type'), 'POST', { data: { feeType: 'Quotes', instituteId } }, [{ part: 'attachments', bytes: text('hi'), type: 'text/plain', name }]);
        expect(res.status, JSON.stringify(res.body)).to.equal(200);
        const [m] = res.body.data._media.attachments;
        expect(m.name).to.equal(name);
        const got = await fetchBytes(local(m._full_url));
        const ext = /filename\*=UTF-8''(.*)$/.exec(got.headers.get('content-disposition') ?? '')?.[1] ?? '';
        // RFC 5987 attr-char: ALPHA DIGIT ! # $ & + - . ^ _ ` | ~ ; everything else is a %XX
        expect(ext, got.headers.get('content-disposition') ?? '').to.match(/^(?:[A-Za-z0-9!#$&+\-.^_`|~]|%[0-9A-F]{2})+$/);
        expect(decodeURIComponent(ext)).to.equal(name);
      });

      it('a script declared with any JavaScript MIME type (text/x-javascript, text/jscript, …) is served as an attachment', async () => {
        const types = ['text/x-javascript', 'text/jscript', 'text/livescript', 'text/x-ecmascript', 'text/javascript1.5'];
        const res = await send(url('/api/fee-type'), 'POST', { data: { feeType: 'Scripts', instituteId } }, types.map((type, i) => ({ part: 'attachments', bytes: text(`alert(${i})`), type, name: `s${i}.js` })));
        expect(res.status, JSON.stringify(res.body)).to.equal(200);
        for (const [i, m] of (res.body.data._media.attachments as { _full_url: string }[]).entries()) {
          const got = await fetchBytes(local(m._full_url));
          expect(got.headers.get('content-type'), types[i]).to.match(new RegExp(`^${types[i].replace('.', '\\.')}`));
          expect(got.headers.get('content-disposition'), types[i]).to.match(/^attachment; /);
        }
      });
    });

    describe('a failed write leaves nothing behind', () => {
      it('a unique conflict (409) removes the files it brought', async () => {
        const before = await stored();
        const rows = await mediaRows();
        const res = await send(url('/api/fee-type'), 'POST', { data: { feeType: 'Multi', instituteId } }, [{ part: 'attachments', bytes: pdf('dup'), type: 'application/pdf', name: 'dup.pdf' }]);
        expect(res.status).to.equal(409);
        await nothingAdded(before);
        expect(await mediaRows()).to.equal(rows);
      });

      it('an update of an unknown record (404) removes the files it brought', async () => {
        const before = await stored();
        const res = await send(url('/api/fee-type/999999'), 'PATCH', { updateDto: {} }, [{ part: 'files', bytes: pdf('nf'), type: 'application/pdf', name: 'nf.pdf' }]);
        expect(res.status).to.equal(404);
        await nothingAdded(before);
      });
    });

    describe('deletes and media:prune', () => {
      it('a soft-deleted record keeps its files; a hard delete removes rows and files', async () => {
        const f = await send(url('/api/fee-type'), 'POST', { data: { feeType: 'Soft', instituteId } }, [{ part: 'attachments', bytes: pdf('soft'), type: 'application/pdf', name: 's.pdf' }]);
        const soft = f.body.data._media.attachments[0];
        expect((await app.http.del(`/api/fee-type/${f.body.data.id}`)).status).to.equal(200);
        expect((await fetchBytes(local(soft._full_url))).status).to.equal(200);
        const archived = await app.http.get(`/api/fee-type/${f.body.data.id}?showSoftDeleted=inclusive&populateMedia[0]=attachments`);
        expect(archived.body._media.attachments[0].id).to.equal(soft.id);

        const i = await send(url('/api/institute'), 'POST', { data: newInstitute() }, [{ part: 'logo', bytes: png('hard'), type: 'image/png', name: 'h.png' }]);
        const hard = i.body.data._media.logo[0];
        expect((await app.http.del(`/api/institute/${i.body.data.id}`)).status).to.equal(200);
        expect(await gone(hard._full_url)).to.equal(true);
        expect(await app.deps.db('media_files').where('id', hard.id).first()).to.equal(undefined);
        expect(await goneFromStorage(hard._full_url)).to.equal(true);
      });

      it('`npm run admin -- media:prune` removes orphan rows and stray files, and keeps the rest', async () => {
        const keep = await stored();
        const rows = await mediaRows();
        const strayKey = 'ab/ab' + '0'.repeat(30) + '.bin';
        if (s3) await s3.put(strayKey, Buffer.from('stray'));
        else {
          mkdirSync(join(uploads, 'ab'), { recursive: true });
          writeFileSync(join(uploads, strayKey), 'stray');
        }
        await app.deps.db('media_files').insert({ name: 'o.png', mime: 'image/png', size: 1, sha256: 'x'.repeat(64), storage_key: 'cd/cd' + '1'.repeat(30) + '.png', model: 'institute', field: 'logo', record_id: 987654, created_at: new Date().toISOString() });
        const env = { ...process.env, ...app.env, AUTO_MIGRATE: 'false' };
        const run = spawnSync(process.execPath, [join(ROOT, 'dist', 'admin-cli', 'index.js'), 'media:prune', '--grace', '0'], { env, encoding: 'utf8', timeout: 20_000 });
        expect(run.status, run.stderr + run.stdout).to.equal(0);
        expect(run.stdout).to.match(/1 row.*1 file|removed/);
        expect(await stored()).to.deep.equal(keep);
        expect(await mediaRows()).to.equal(rows);
      });
    });
  });
}
