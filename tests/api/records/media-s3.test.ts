/**
 * Issue 18: media on S3 beyond the shared media table (media.test.ts runs that on S3 too): presigned
 * URLs that expire, the public-bucket form, no link for callers who may not read, an outage during an
 * upload (503, nothing left), a failed delete after commit retried in the background, the start error.
 */
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { DIALECTS } from '../../helpers/dialects';
import { png, sendForm, sha256 } from '../../helpers/multipart';
import { userWith } from '../../helpers/roles';
import { cuttingProxy, eventually, hangingProxy, startS3, type S3TestServer } from '../../helpers/s3';
import { ROOT, startTestApp, type TestApp } from '../../helpers/test-app';

const TTL_SECONDS = 3;
const KEY = /\/media\/([0-9a-f]{2}\/[0-9a-f]{32}\.png)(\?|$)/;

const keyOf = (fullUrl: string): string => {
  const m = KEY.exec(fullUrl);
  if (!m) throw new Error(`no storage key in ${fullUrl}`);
  return m[1];
};

for (const dialect of DIALECTS) {
  describe(`records: media on S3 [${dialect}]`, () => {
    let s3: S3TestServer;
    let app: TestApp;
    let seq = 0;
    /** The service's log lines (JSON), to see failures logged. */
    const logLines: { msg?: string; key?: string; attempt?: number; op?: string }[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _enc, cb) {
        for (const line of chunk.toString().split('\n')) if (line.trim()) logLines.push(JSON.parse(line) as (typeof logLines)[number]);
        cb();
      },
    });
    const newInstitute = (): { name: string; code: string } => {
      seq++;
      return { name: `S3 institute ${seq}`, code: `S3-${seq}` };
    };
    const upload = (a: TestApp, token: string | null, bytes: Uint8Array) =>
      sendForm(`${a.url}/api/institute`, 'POST', { data: newInstitute() }, [{ part: 'logo', bytes, type: 'image/png', name: 'logo.png' }], a.fetch, token);

    before(async () => {
      s3 = await startS3();
      app = await startTestApp(dialect, { env: s3.env({ S3_SIGNED_URL_TTL: `${TTL_SECONDS}s` }), log: pino({ level: 'info' }, sink) });
    });
    after(async () => {
      await app?.close();
      await s3?.close();
    });

    it(`a private bucket: _full_url is a presigned GET that fetches the bytes and expires after S3_SIGNED_URL_TTL; /uploads/ is not served`, async () => {
      const logo = png('presigned');
      const res = await upload(app, app.admin?.accessToken ?? null, logo);
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      const fullUrl: string = res.body.data._media.logo[0]._full_url;
      expect(fullUrl.startsWith(`${s3.endpoint}/${s3.bucket}/media/`), fullUrl).to.equal(true);
      expect(new URL(fullUrl).searchParams.get('X-Amz-Expires')).to.equal(String(TTL_SECONDS));
      const minted = Date.now();
      const got = await fetch(fullUrl);
      expect(got.status).to.equal(200);
      expect(sha256(Buffer.from(await got.arrayBuffer()))).to.equal(sha256(logo));
      expect(got.headers.get('content-type')).to.equal('image/png');
      // A read mints a fresh one.
      const read = await app.http.get(`/api/institute/${res.body.data.id}?populateMedia[0]=logo`);
      expect(keyOf(read.body._media.logo[0]._full_url)).to.equal(keyOf(fullUrl));
      expect((await fetch(`${app.url}/uploads/${keyOf(fullUrl)}`)).status).to.equal(404);
      await new Promise((r) => setTimeout(r, Math.max(0, minted + (TTL_SECONDS + 1.2) * 1000 - Date.now())));
      const late = await fetch(fullUrl);
      expect(late.status).to.equal(403);
      expect(await late.text()).to.match(/expired/i);
    });

    it('a write answer to a caller without find on the model carries no link (_full_url null); a reader gets one', async () => {
      const writer = await userWith(app, `s3-writer-${dialect}`, ['institute.create', 'institute.update']);
      const res = await upload(app, writer.accessToken, png('writer'));
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      const [m] = res.body.data._media.logo;
      expect(m).to.include({ name: 'logo.png', _full_url: null });
      expect(m.id).to.be.a('number');
      const patched = await sendForm(`${app.url}/api/institute/${res.body.data.id}`, 'PATCH', { data: {} }, [{ part: 'logo', bytes: png('writer-2'), type: 'image/png', name: 'new.png' }], app.fetch, writer.accessToken);
      expect(patched.status, JSON.stringify(patched.body)).to.equal(200);
      expect(patched.body.data._media.logo[0]._full_url).to.equal(null);
      expect((await writer.http.get(`/api/institute/${res.body.data.id}?populateMedia[0]=logo`)).status).to.equal(403);
      const admin = await app.http.get(`/api/institute/${res.body.data.id}?populateMedia[0]=logo`);
      expect(admin.body._media.logo[0]._full_url).to.match(/X-Amz-Signature=/);
    });

    it('an S3 outage during an upload answers 503 with Retry-After and leaves no record, media row or object', async () => {
      const before = await s3.keys();
      const rows = await app.deps.db('media_files').count({ n: '*' });
      await s3.stop();
      let res;
      try {
        res = await upload(app, app.admin?.accessToken ?? null, png('outage'));
      } finally {
        await s3.start();
      }
      expect(res.status, JSON.stringify(res.body)).to.equal(503);
      expect(res.body.error).to.include({ status: 503, name: 'ServiceUnavailableError' });
      expect(res.body.error.message).to.match(/file storage is unavailable/);
      expect(res.headers.get('retry-after')).to.equal('1');
      expect(await app.deps.db('institute').where('name', `S3 institute ${seq}`).first()).to.equal(undefined);
      expect(await app.deps.db('media_files').count({ n: '*' })).to.deep.equal(rows);
      expect(await s3.keys()).to.deep.equal(before);
      expect(logLines.some((l) => l.msg === 'file storage: upload failed' && l.op === 'put')).to.equal(true);
    });

    it('S3 lost in the middle of a multipart upload (12 MiB file, cut after 9 MiB): 503, no record, no object', async function () {
      this.timeout(60_000);
      const proxy = await cuttingProxy(Number(new URL(s3.endpoint).port), 9 * 1024 * 1024);
      const cutApp = await startTestApp(dialect, { env: s3.env({ S3_ENDPOINT: proxy.endpoint, UPLOAD_MAX_BYTES: String(16 * 1024 * 1024) }) });
      try {
        const before = await s3.keys();
        const big = Buffer.alloc(12 * 1024 * 1024, 0x41); // text: stored as text/plain
        const name = `Cut ${dialect}`;
        const res = await sendForm(`${cutApp.url}/api/fee-type`, 'POST', { data: { feeType: name } }, [{ part: 'attachments', bytes: big, type: 'text/plain', name: 'big.txt' }], cutApp.fetch, cutApp.admin?.accessToken ?? null);
        expect(res.status, JSON.stringify(res.body)).to.equal(503);
        expect(res.body.error.name).to.equal('ServiceUnavailableError');
        expect((await cutApp.http.get(`/api/fee-type?filters[feeType][$eq]=${encodeURIComponent(name)}`)).body.records).to.deep.equal([]);
        expect(await cutApp.deps.db('media_files').first()).to.equal(undefined);
        expect(await s3.keys()).to.deep.equal(before);
      } finally {
        await cutApp.close();
        await proxy.close();
      }
    });

    it('S3 that stops answering (connections open, no byte back): an upload answers 503 naming S3_REQUEST_TIMEOUT after its attempts, nothing written', async () => {
      const proxy = await hangingProxy(Number(new URL(s3.endpoint).port));
      const timed = await startTestApp(dialect, { env: s3.env({ S3_ENDPOINT: proxy.endpoint, S3_REQUEST_TIMEOUT: '1s' }) });
      try {
        // within the bound: S3 answering, the upload is stored
        const ok = await upload(timed, timed.admin?.accessToken ?? null, png('answered'));
        expect(ok.status, JSON.stringify(ok.body)).to.equal(200);
        proxy.hang();
        const before = await s3.keys();
        const rows = Number((await timed.deps.db('media_files').count({ n: '*' }).first())?.n);
        const started = Date.now();
        const res = await upload(timed, timed.admin?.accessToken ?? null, png('hung'));
        const ms = Date.now() - started;
        expect(res.status, JSON.stringify(res.body)).to.equal(503);
        expect(res.body.error).to.include({ name: 'ServiceUnavailableError' });
        expect(res.body.error.message).to.include('S3_REQUEST_TIMEOUT');
        expect(res.body.error.details).to.deep.equal({ setting: 'S3_REQUEST_TIMEOUT', limit: 1 });
        // the SDK's 3 attempts of 1 s each and its backoff, not the 60 s default (3 minutes in all)
        expect(ms).to.be.below(15_000);
        expect(await s3.keys()).to.deep.equal(before);
        expect(Number((await timed.deps.db('media_files').count({ n: '*' }).first())?.n)).to.equal(rows);
      } finally {
        await timed.close();
        await proxy.close();
      }
    });

    it('delete after commit: a failed object delete never fails the call; it is logged and retried, and the object goes once S3 is back', async () => {
      const res = await upload(app, app.admin?.accessToken ?? null, png('retry'));
      const key = keyOf(res.body.data._media.logo[0]._full_url);
      expect(await s3.size(key)).to.equal(png('retry').length);
      await s3.stop();
      let del;
      let ms = 0;
      try {
        const started = Date.now();
        del = await app.http.del(`/api/institute/${res.body.data.id}`);
        ms = Date.now() - started;
        // Down long enough for the first attempt (with the SDK's own retries) to fail: a later retry removes it.
        await new Promise((r) => setTimeout(r, 1_000));
      } finally {
        await s3.start();
      }
      expect(del.status, JSON.stringify(del.body)).to.equal(200);
      expect(ms, 'the answer does not wait for the storage').to.be.below(3_000);
      expect(await app.deps.db('media_files').where('storage_key', key).first()).to.equal(undefined);
      expect(await eventually(async () => (await s3.size(key)) === null, 12_000)).to.equal(true);
      const mine = () => logLines.filter((l) => l.key === key);
      // The bucket may show the object gone a moment before the service has read S3's answer and logged it.
      expect(await eventually(async () => mine().some((l) => l.msg === 'file storage: delete succeeded on retry' && (l.attempt ?? 0) > 1)), JSON.stringify(mine())).to.equal(true);
      expect(mine().some((l) => l.msg === 'file storage: delete failed' && l.attempt === 1), JSON.stringify(mine())).to.equal(true);
    });

    it('a public bucket (S3_PUBLIC_URL): _full_url is the object under that base, fetched without a signature', async () => {
      const base = `${s3.endpoint}/${s3.bucket}`;
      const pub = await startTestApp(dialect, { env: s3.env({ S3_PUBLIC_URL: `${base}/` }) });
      try {
        const logo = png('public');
        const res = await upload(pub, pub.admin?.accessToken ?? null, logo);
        expect(res.status, JSON.stringify(res.body)).to.equal(200);
        const fullUrl: string = res.body.data._media.logo[0]._full_url;
        expect(fullUrl).to.equal(`${base}/media/${keyOf(fullUrl)}`);
        const got = await fetch(fullUrl);
        expect(got.status).to.equal(200);
        expect(sha256(Buffer.from(await got.arrayBuffer()))).to.equal(sha256(logo));
      } finally {
        await pub.close();
      }
    });

    it('the server refuses to start with UPLOADS_DRIVER=s3 and no S3_BUCKET: one line naming the setting', () => {
      const env = { ...process.env, ...app.env, ...s3.env(), S3_BUCKET: '', PORT: '0', HOST: '127.0.0.1', AUTO_MIGRATE: 'false' };
      const run = spawnSync(process.execPath, [join(ROOT, 'dist', 'core', 'main.js')], { env, encoding: 'utf8', timeout: 20_000 });
      expect(run.status).to.equal(1);
      expect(run.stderr.trim()).to.equal('error: S3_BUCKET: required when UPLOADS_DRIVER=s3');
    });
  });
}
