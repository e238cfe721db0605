/**
 * The limits of a multipart record form, on SQLite, PostgreSQL and MariaDB: the bytes of one part's
 * headers (UPLOAD_PART_HEADER_MAX_BYTES), file parts per request (UPLOAD_MAX_FILES), the text parts a
 * record form takes (`data`, `updateDto`, once each: any other is 400 naming it, whatever their number),
 * the order they are judged in (as the parts arrive), and client text quoted in their errors (cut to
 * 100 characters, so an error body stays small whatever the client sent).
 */
import { expect } from 'chai';
import { join } from 'node:path';
import { DIALECTS } from '../../helpers/dialects';
import { filesUnder, pdf, type RawPart, sendParts } from '../../helpers/multipart';
import { startTestApp, type TestApp } from '../../helpers/test-app';

/** UPLOAD_PART_HEADER_MAX_BYTES's default (README: Media, Limits). */
const HEADER_MAX = 16384;
/** UPLOAD_MAX_FILES of these tests (default 10), so the setting shows. */
const MAX_FILES = 3;

/** The bytes a part's headers count against UPLOAD_PART_HEADER_MAX_BYTES, as tests/helpers/multipart.ts writes them: names and values. */
function headerBytes(p: RawPart): number {
  const disposition = `form-data; name="${p.name}"${p.filename !== undefined ? `; filename="${p.filename}"` : ''}`;
  return Buffer.byteLength('Content-Disposition') + Buffer.byteLength(disposition) + (p.type !== undefined ? Buffer.byteLength('Content-Type') + Buffer.byteLength(p.type) : 0);
}

/** A file part of `attachments` whose headers are exactly `bytes` long (its file name padded with `a`). */
function attachmentWithHeaders(bytes: number, tag: string): RawPart {
  const base: RawPart = { name: 'attachments', value: pdf(tag), type: 'application/pdf', filename: `${tag}.pdf` };
  const pad = bytes - headerBytes(base);
  return { ...base, filename: `${tag}${'a'.repeat(pad)}.pdf` };
}

const fileParts = (n: number, tag: string): RawPart[] => Array.from({ length: n }, (_, i) => ({ name: 'attachments', value: pdf(`${tag}${i}`), type: 'application/pdf', filename: `${tag}${i}.pdf` }));

for (const dialect of DIALECTS) {
  describe(`records: multipart form limits [${dialect}]`, () => {
    let app: TestApp;
    let uploads: string;
    let instituteId: number;
    let seq = 0;

    before(async () => {
      app = await startTestApp(dialect, { env: { UPLOAD_MAX_FILES: String(MAX_FILES) } });
      uploads = app.deps.config.uploadsDir;
      instituteId = (await app.http.post('/api/institute', { name: 'Limits Institute', code: 'LIM' })).body.data.id;
    });
    after(async () => {
      await app?.close();
    });

    const send = (parts: readonly RawPart[], method = 'POST', path = '/api/fee-type') => sendParts(app.url + path, method, parts, app.fetch, app.admin?.accessToken ?? null);
    const data = (feeType: string): RawPart => ({ name: 'data', value: JSON.stringify({ feeType, instituteId }) });
    const feeTypeNamed = async (feeType: string): Promise<number> => (await app.http.get(`/api/fee-type?filters[feeType][$eq]=${encodeURIComponent(feeType)}`)).body.records.length;
    /** Neither a stored file nor a temporary one was added since `before`. */
    const nothingAdded = async (before: readonly string[]): Promise<void> => {
      await new Promise((r) => setTimeout(r, 50));
      expect(filesUnder(uploads).filter((f) => !before.includes(f)), 'files added').to.deep.equal([]);
      expect(filesUnder(join(uploads, '.tmp')), 'temporary files').to.deep.equal([]);
    };
    /** The answer's JSON text: an error body stays small whatever the client sent. */
    const small = (body: unknown): void => {
      expect(Buffer.byteLength(JSON.stringify(body)), 'error body bytes').to.be.below(2048);
    };
    const next = (): string => `Form ${++seq}`;

    describe('UPLOAD_PART_HEADER_MAX_BYTES: the headers of one part', () => {
      it(`a file part whose headers are ${HEADER_MAX} bytes is stored (its name cut to 255 characters); one byte more answers 413 naming the setting, nothing written`, async () => {
        const before = filesUnder(uploads);
        const atName = next();
        const at = await send([data(atName), attachmentWithHeaders(HEADER_MAX, 'at')]);
        expect(at.status, JSON.stringify(at.body).slice(0, 300)).to.equal(200);
        expect(at.body.data._media.attachments[0].name).to.have.length(255);

        const before2 = filesUnder(uploads);
        const pastName = next();
        const past = await send([data(pastName), attachmentWithHeaders(HEADER_MAX + 1, 'past')]);
        expect(past.status).to.equal(413);
        expect(past.body.error.name).to.equal('PayloadTooLargeError');
        expect(past.body.error.details).to.deep.equal({ setting: 'UPLOAD_PART_HEADER_MAX_BYTES', limit: HEADER_MAX });
        expect(past.body.error.message).to.contain('UPLOAD_PART_HEADER_MAX_BYTES').and.contain(String(HEADER_MAX));
        small(past.body);
        expect(await feeTypeNamed(pastName)).to.equal(0);
        await nothingAdded(before2);
        expect(before.length).to.be.below(filesUnder(uploads).length);
      });

      it('counts every header of the part: a Content-Type that takes it past the limit answers 413 too', async () => {
        const base = attachmentWithHeaders(HEADER_MAX - 100, 'typed');
        const type = `application/pdf; x=${'b'.repeat(100 - Buffer.byteLength('application/pdf; x=') + (Buffer.byteLength(base.type ?? '') + 1))}`;
        const part: RawPart = { ...base, type };
        expect(headerBytes(part)).to.equal(HEADER_MAX + 1);
        const res = await send([data(next()), part]);
        expect(res.status).to.equal(413);
        expect(res.body.error.details).to.deep.equal({ setting: 'UPLOAD_PART_HEADER_MAX_BYTES', limit: HEADER_MAX });
      });

      it('a 1 MB file name answers the limit error at once, with a small body; so does a 1 MB part name', async () => {
        const before = filesUnder(uploads);
        const huge = 'a'.repeat(1024 * 1024);
        for (const part of [
          { name: 'attachments', value: pdf('huge'), type: 'application/pdf', filename: `${huge}.pdf` },
          { name: huge, value: 'x' },
          { name: `files${huge}`, value: pdf('huge'), type: 'application/pdf', filename: 'x.pdf' },
        ] as RawPart[]) {
          const started = Date.now();
          const res = await send([data(next()), part]);
          const took = Date.now() - started;
          expect(res.status).to.equal(413);
          expect(res.body.error.details).to.deep.equal({ setting: 'UPLOAD_PART_HEADER_MAX_BYTES', limit: HEADER_MAX });
          small(res.body);
          expect(took, 'ms').to.be.below(2000);
        }
        await nothingAdded(before);
        // the service goes on answering
        expect((await app.http.get('/api/fee-type?limit=1')).status).to.equal(200);
      });
    });

    describe(`UPLOAD_MAX_FILES: file parts per request (${MAX_FILES} here)`, () => {
      it(`${MAX_FILES} files are stored; ${MAX_FILES + 1} answer 413 naming the setting and the limit, nothing written`, async () => {
        const at = await send([data(next()), ...fileParts(MAX_FILES, 'n')]);
        expect(at.status, JSON.stringify(at.body)).to.equal(200);
        expect(at.body.data._media.attachments).to.have.length(MAX_FILES);

        const before = filesUnder(uploads);
        const name = next();
        const past = await send([data(name), ...fileParts(MAX_FILES + 1, 'm')]);
        expect(past.status).to.equal(413);
        expect(past.body.error.name).to.equal('PayloadTooLargeError');
        expect(past.body.error.details).to.deep.equal({ setting: 'UPLOAD_MAX_FILES', limit: MAX_FILES });
        expect(past.body.error.message).to.contain('UPLOAD_MAX_FILES').and.contain(String(MAX_FILES));
        expect(await feeTypeNamed(name)).to.equal(0);
        await nothingAdded(before);
      });
    });

    describe('text parts: `data` or `updateDto`, once each', () => {
      it('any other text part answers 400 naming the first one, whatever their number', async () => {
        for (const n of [1, 2, 4, 5, 12, 50]) {
          const name = next();
          const parts: RawPart[] = [data(name), ...Array.from({ length: n }, (_, i) => ({ name: `extra${i}`, value: 'x' }))];
          const res = await send(parts);
          expect(res.status, `${n} unknown parts: ${JSON.stringify(res.body)}`).to.equal(400);
          expect(res.body.error.message, String(n)).to.contain('unknown form field "extra0"');
          expect(res.body.error.details, String(n)).to.deep.equal({ field: 'extra0' });
          expect(await feeTypeNamed(name)).to.equal(0);
        }
      });

      it('a text part sent twice (or more) answers 400 naming it, whatever the count', async () => {
        for (const n of [2, 3, 6]) {
          const res = await send(Array.from({ length: n }, () => data(next())));
          expect(res.status, `data × ${n}: ${JSON.stringify(res.body)}`).to.equal(400);
          expect(res.body.error.message).to.contain('form field "data" is sent more than once');
          expect(res.body.error.details).to.deep.equal({ field: 'data' });
        }
        const both = await send([data(next()), { name: 'updateDto', value: '{}' }]);
        expect(both.status).to.equal(400);
        expect(both.body.error.message).to.match(/not both/);
      });

      it('parts are judged in the order they arrive: the first past a limit decides the answer', async () => {
        const before = filesUnder(uploads);
        const filesFirst = await send([data(next()), ...fileParts(MAX_FILES + 1, 'o'), { name: 'extra', value: 'x' }]);
        expect(filesFirst.status).to.equal(413);
        expect(filesFirst.body.error.details).to.deep.equal({ setting: 'UPLOAD_MAX_FILES', limit: MAX_FILES });
        const unknownFirst = await send([data(next()), { name: 'extra', value: 'x' }, ...fileParts(MAX_FILES + 1, 'p')]);
        expect(unknownFirst.status).to.equal(400);
        expect(unknownFirst.body.error.details).to.deep.equal({ field: 'extra' });
        const hugeAfter = await send([data(next()), { name: 'extra', value: 'x' }, { name: 'b'.repeat(HEADER_MAX), value: 'x' }]);
        expect(hugeAfter.status).to.equal(400);
        expect(hugeAfter.body.error.details).to.deep.equal({ field: 'extra' });
        await nothingAdded(before);
      });
    });

    describe('client text in multipart errors is cut to 100 characters', () => {
      const long = `${'n'.repeat(100)}${'z'.repeat(4900)}`;
      const cut = `${'n'.repeat(100)}…`;

      it('an unknown text part, a repeated one, a file part naming no media field, a record part of a long type', async () => {
        const unknown = await send([data(next()), { name: long, value: 'x' }]);
        expect(unknown.status).to.equal(400);
        expect(unknown.body.error.message).to.contain(`"${cut}"`).and.not.contain('z');
        expect(unknown.body.error.details).to.deep.equal({ field: cut });
        small(unknown.body);

        const noField = await send([data(next()), { name: long, value: pdf('nf'), type: 'application/pdf', filename: 'nf.pdf' }]);
        expect(noField.status).to.equal(422);
        expect(Object.keys(noField.body.error.details.fields)).to.deep.equal([cut]);
        small(noField.body);

        const type = `image/png; x=${'t'.repeat(5000)}`;
        const typed = await send([{ name: 'data', value: '{}', type }]);
        expect(typed.status).to.equal(400);
        expect(typed.body.error.details).to.deep.equal({ part: 'data', contentType: `${type.slice(0, 100)}…` });
        small(typed.body);
      });
    });
  });
}
