/**
 * A `media` attribute removed (or renamed, which is a removal and a new field): no table or column goes,
 * so the start warns, naming the model and field and how many files no answer shows any more; and
 * `admin-cli media:prune` keeps those files until the operator says `--removed-fields`.
 */
import { expect } from 'chai';
import { Writable } from 'node:stream';
import { join } from 'node:path';
import pino from 'pino';
import { runCli } from '../../helpers/admin-cli';
import { DIALECTS } from '../../helpers/dialects';
import { filesUnder, png, sendForm } from '../../helpers/multipart';
import { ROOT, startTestApp } from '../../helpers/test-app';
import { createTestDatabase } from '../../helpers/test-db';

const FIXTURES = join(ROOT, 'tests', 'fixtures', 'media-removed');

for (const dialect of DIALECTS) {
  describe(`media: a media field removed from a model [${dialect}]`, () => {
    it('the start warns naming model, field and files; media:prune keeps them until --removed-fields', async function () {
      this.timeout(90_000);
      const database = await createTestDatabase(dialect);
      try {
        const before = await startTestApp(dialect, { database, contentTypesDir: join(FIXTURES, 'before') });
        const uploads = before.deps.config.uploadsDir;
        try {
          const files = [
            { part: 'cover', bytes: png('cover'), type: 'image/png', name: 'c.png' },
            { part: 'photos', bytes: png('one'), type: 'image/png', name: '1.png' },
            { part: 'photos', bytes: png('two'), type: 'image/png', name: '2.png' },
          ];
          const made = await sendForm(`${before.url}/api/album`, 'POST', { data: { title: 'Trip' } }, files, before.fetch, before.admin?.accessToken ?? null);
          expect(made.status, JSON.stringify(made.body)).to.equal(200);
        } finally {
          await before.close();
        }
        const stored = filesUnder(uploads).sort();
        expect(stored).to.have.length(3);

        const lines: Record<string, unknown>[] = [];
        const sink = new Writable({ write: (chunk: Buffer, _enc, done) => { lines.push(JSON.parse(chunk.toString())); done(); } });
        const after = await startTestApp(dialect, { database, contentTypesDir: join(FIXTURES, 'after'), log: pino({ level: 'warn' }, sink) });
        try {
          const warned = lines.filter((l) => l.level === 40 && l.model === 'album');
          expect(warned.map((l) => [l.field, l.files])).to.deep.equal([['photos', 2]]);
          expect(String(warned[0].msg)).to.match(/^media of album\.photos \(2 files\) belong to a field the models no longer have \(removed or renamed\).*media:prune` keeps them unless run with --removed-fields/);

          const kept = await runCli(after, ['media:prune', '--grace', '0']);
          expect(kept.code, kept.err).to.equal(0);
          expect(kept.out).to.contain('removed 0 media row(s), 0 file(s)');
          expect(kept.out).to.contain('kept the media of fields the models no longer have (album.photos: 2); run with --removed-fields to remove them');
          expect(filesUnder(uploads).sort(), 'no file pruned').to.deep.equal(stored);
          expect(Number((await after.deps.db('media_files').count({ n: '*' }))[0].n)).to.equal(3);

          const removed = await runCli(after, ['media:prune', '--grace', '0', '--removed-fields']);
          expect(removed.code, removed.err).to.equal(0);
          expect(removed.out).to.contain('removed 2 media row(s), 2 file(s)');
          expect((await after.deps.db('media_files').select('field')).map((r: { field: string }) => r.field)).to.deep.equal(['cover']);
          const left = filesUnder(uploads);
          expect(left, 'the cover stays').to.have.length(1);
        } finally {
          await after.close();
        }
      } finally {
        await database.drop();
      }
    });
  });
}
