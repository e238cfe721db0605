/** Issue 18: `npm run admin -- media:migrate --to s3`: local files to the bucket under their keys; resumable, sizes verified. */
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { DIALECTS } from '../../helpers/dialects';
import { filesUnder, pdf, png, sendForm, sha256 } from '../../helpers/multipart';
import { startS3, type S3TestServer } from '../../helpers/s3';
import { ROOT, startTestApp, type TestApp } from '../../helpers/test-app';
import { createTestDatabase, type TestDatabase } from '../../helpers/test-db';
import { DRAFT_MODELS } from '../../helpers/drafts';

for (const dialect of DIALECTS) {
  describe(`admin: media:migrate --to s3 [${dialect}]`, () => {
    let s3: S3TestServer;
    let database: TestDatabase;
    let app: TestApp;
    const files: { key: string; bytes: Uint8Array }[] = [];

    const migrate = (...args: string[]) => {
      const env = { ...process.env, ...app.env, ...s3.env(), UPLOADS_DRIVER: 'local', AUTO_MIGRATE: 'false' };
      return spawnSync(process.execPath, [join(ROOT, 'dist', 'admin-cli', 'index.js'), 'media:migrate', '--to', 's3', ...args], { env, encoding: 'utf8', timeout: 30_000 });
    };
    const keyOf = (fullUrl: string): string => fullUrl.replace(/^.*\/uploads\//, '');

    before(async () => {
      s3 = await startS3();
      database = await createTestDatabase(dialect);
      app = await startTestApp(dialect, { database });
      const token = app.admin?.accessToken ?? null;
      const logo = png('migrate');
      const i = await sendForm(`${app.url}/api/institute`, 'POST', { data: { name: 'Migrated', code: 'MIG' } }, [{ part: 'logo', bytes: logo, type: 'image/png', name: 'logo.png' }], app.fetch, token);
      expect(i.status, JSON.stringify(i.body)).to.equal(200);
      files.push({ key: keyOf(i.body.data._media.logo[0]._full_url), bytes: logo });
      const docs = [pdf('one'), pdf('two'.repeat(1000))];
      const f = await sendForm(`${app.url}/api/fee-type`, 'POST', { data: { feeType: 'Migrated' } }, docs.map((bytes, n) => ({ part: 'attachments', bytes, type: 'application/pdf', name: `${n}.pdf` })), app.fetch, token);
      expect(f.status, JSON.stringify(f.body)).to.equal(200);
      f.body.data._media.attachments.forEach((m: { _full_url: string }, n: number) => files.push({ key: keyOf(m._full_url), bytes: docs[n] }));
    });
    after(async () => {
      await app?.close();
      await database?.drop();
      await s3?.close();
    });

    it('copies every file under its key and verifies sizes; an object already there with the right size is skipped, a wrong one replaced', async () => {
      await s3.put(files[0].key, Buffer.from(files[0].bytes)); // a run cut short had copied this one
      await s3.put(files[1].key, Buffer.from('torn')); // …and left this one half-written
      const run = migrate();
      expect(run.status, run.stderr + run.stdout).to.equal(0);
      expect(run.stdout).to.match(/^2 file\(s\) copied \(\d+ bytes\), 1 already in the bucket, 0 failed, of 3$/m);
      for (const f of files) expect(await s3.size(f.key), f.key).to.equal(f.bytes.length);
      expect(filesUnder(app.deps.config.uploadsDir).filter((p) => !p.startsWith('.tmp'))).to.have.length(3);
    });

    it('is resumable: a second run skips everything', () => {
      const run = migrate();
      expect(run.status, run.stderr + run.stdout).to.equal(0);
      expect(run.stdout).to.match(/^0 file\(s\) copied \(0 bytes\), 3 already in the bucket, 0 failed, of 3$/m);
    });

    it('a row whose local file is missing fails the run (exit 1) naming its key; the others are still done', async () => {
      const lost = 'ef/ef' + '2'.repeat(30) + '.png';
      const [id] = (await app.deps.db('media_files').insert({ name: 'lost.png', mime: 'image/png', size: 10, sha256: 'y'.repeat(64), storage_key: lost, model: 'institute', field: 'logo', record_id: 424242, created_at: new Date().toISOString() }).returning('id')) as ({ id: number } | number)[];
      try {
        const run = migrate();
        expect(run.status).to.equal(1);
        expect(run.stderr).to.include(`failed: ${lost}: no local file`);
        expect(run.stdout).to.match(/3 already in the bucket, 1 failed, of 4/);
      } finally {
        await app.deps.db('media_files').where('id', typeof id === 'number' ? id : id.id).del();
      }
    });

    it('--remove-local removes the local files once their objects are verified; the app on UPLOADS_DRIVER=s3 then serves them', async () => {
      const run = migrate('--remove-local');
      expect(run.status, run.stderr + run.stdout).to.equal(0);
      expect(filesUnder(app.deps.config.uploadsDir).filter((p) => !p.startsWith('.tmp'))).to.deep.equal([]);
      const onS3 = await startTestApp(dialect, { database, env: s3.env() });
      try {
        const res = await onS3.http.get('/api/fee-type?filters[feeType][$eq]=Migrated&populateMedia[0]=attachments');
        const links = res.body.records[0]._media.attachments as { _full_url: string }[];
        expect(links).to.have.length(2);
        for (const [n, m] of links.entries()) {
          const got = await fetch(m._full_url);
          expect(got.status).to.equal(200);
          expect(sha256(Buffer.from(await got.arrayBuffer()))).to.equal(sha256(files[n + 1].bytes));
        }
      } finally {
        await onS3.close();
      }
    });

    it('refuses an unknown target (refused input: exit 2) and a missing bucket (configuration: exit 1)', () => {
      const env = { ...process.env, ...app.env, AUTO_MIGRATE: 'false' };
      const cli = join(ROOT, 'dist', 'admin-cli', 'index.js');
      const bad = spawnSync(process.execPath, [cli, 'media:migrate', '--to', 'ftp'], { env, encoding: 'utf8', timeout: 20_000 });
      expect(bad.status, bad.stderr).to.equal(2);
      expect(bad.stderr).to.match(/--to: "ftp" is not a target/);
      const noBucket = spawnSync(process.execPath, [cli, 'media:migrate', '--to', 's3'], { env, encoding: 'utf8', timeout: 20_000 });
      expect(noBucket.status).to.equal(1);
      expect(noBucket.stderr).to.match(/S3_BUCKET/);
    });
  });

  describe(`admin: media:migrate --to s3 copies files only a published copy shows [${dialect}]`, () => {
    let s3: S3TestServer;
    let database: TestDatabase;
    let app: TestApp;

    before(async () => {
      s3 = await startS3();
      database = await createTestDatabase(dialect);
      app = await startTestApp(dialect, { database, contentTypesDir: DRAFT_MODELS });
    });
    after(async () => {
      await app?.close();
      await database?.drop();
      await s3?.close();
    });

    it('a file the draft replaced but the published copy still shows is copied (and served from the bucket afterwards)', async () => {
      const token = app.admin?.accessToken ?? null;
      const first = Buffer.from('the published cover');
      const created = await sendForm(`${app.url}/api/article?status=published`, 'POST', { data: { title: 'Migrated article' } }, [{ part: 'cover', bytes: first, type: 'text/plain', name: 'cover.txt' }], app.fetch, token);
      expect(created.status, JSON.stringify(created.body)).to.equal(200);
      const id = created.body.data.id as number;
      // the draft gets a new cover; the published copy keeps the first one (issue 14)
      const edited = await sendForm(`${app.url}/api/article/${id}`, 'PATCH', { data: {} }, [{ part: 'cover', bytes: Buffer.from('a draft cover'), type: 'text/plain', name: 'draft.txt' }], app.fetch, token);
      expect(edited.status, JSON.stringify(edited.body)).to.equal(200);
      const published = await app.http.get(`/api/article/${id}?populateMedia[0]=cover`);
      const publishedKey = String(published.body._media.cover[0]._full_url).replace(/^.*\/uploads\//, '');
      const env = { ...process.env, ...app.env, ...s3.env(), UPLOADS_DRIVER: 'local', AUTO_MIGRATE: 'false' };
      const run = spawnSync(process.execPath, [join(ROOT, 'dist', 'admin-cli', 'index.js'), 'media:migrate', '--to', 's3', '--remove-local'], { env, encoding: 'utf8', timeout: 30_000 });
      expect(run.status, run.stderr + run.stdout).to.equal(0);
      expect(await s3.size(publishedKey), 'the published cover in the bucket').to.equal(first.length);
      expect(filesUnder(app.deps.config.uploadsDir).filter((p) => !p.startsWith('.tmp'))).to.deep.equal([]);
      const onS3 = await startTestApp(dialect, { database, contentTypesDir: DRAFT_MODELS, env: s3.env() });
      try {
        const res = await onS3.http.get(`/api/article/${id}?populateMedia[0]=cover`);
        const got = await fetch(res.body._media.cover[0]._full_url as string);
        expect(got.status).to.equal(200);
        expect(Buffer.from(await got.arrayBuffer()).equals(first)).to.equal(true);
      } finally {
        await onS3.close();
      }
    });
  });
}
