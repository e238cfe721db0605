/**
 * Issue 14 end to end: a model with records gets `draftAndPublish: true` and the service restarts (its
 * generated migration runs): readers still see every record, now as published entries. Drafts then work;
 * turning the flag off again keeps the published version of each entry.
 */
import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DIALECTS } from '../../helpers/dialects';
import { publish } from '../../helpers/drafts';
import { startTestApp } from '../../helpers/test-app';
import { createTestDatabase } from '../../helpers/test-db';

const note = (drafts: boolean): string => `${drafts ? 'draftAndPublish: true\n' : ''}permissions:
  public: [find, findOne]
attributes:
  text: { type: string, required: true, unique: true }
`;

for (const dialect of DIALECTS) {
  describe(`draft & publish: turning it on and off for a model with records [${dialect}]`, () => {
    it('no record disappears from readers; then drafts work; turning it off keeps the published versions', async () => {
      const models = mkdtempSync(join(tmpdir(), 'ris-drafts-onoff-'));
      const database = await createTestDatabase(dialect);
      try {
        writeFileSync(join(models, 'note.yaml'), note(false));
        const first = await startTestApp(dialect, { contentTypesDir: models, database });
        const ids: number[] = [];
        try {
          for (const text of ['one', 'two']) ids.push((await first.http.post('/api/note', { text })).body.data.id);
        } finally {
          await first.close();
        }

        writeFileSync(join(models, 'note.yaml'), note(true));
        const second = await startTestApp(dialect, { contentTypesDir: models, database });
        try {
          const seen = await second.anon.get('/api/note?sort[0]=id');
          expect(seen.status, seen.text).to.equal(200);
          expect(seen.body.records.map((r: { text: string }) => r.text)).to.deep.equal(['one', 'two']);
          for (const r of seen.body.records) expect(r).to.include({ _status: 'published', _hasUnpublishedChanges: false });
          expect(seen.body.records[0].publishedAt).to.be.a('string');
          // drafts now work: an edit stays invisible until published; a new record is a draft
          expect((await second.http.patch(`/api/note/${ids[0]}`, { text: 'one (edited)' })).status).to.equal(200);
          expect((await second.http.patch(`/api/note/${ids[1]}`, { text: 'two (published edit)' })).status).to.equal(200);
          await publish(second.http, 'note', ids[1]);
          const fresh = (await second.http.post('/api/note', { text: 'three' })).body.data.id as number;
          expect((await second.anon.get('/api/note?sort[0]=id')).body.records.map((r: { text: string }) => r.text)).to.deep.equal(['one', 'two (published edit)']);
          expect((await second.anon.get(`/api/note/${fresh}`)).status).to.equal(404);
        } finally {
          await second.close();
        }

        writeFileSync(join(models, 'note.yaml'), note(false));
        const third = await startTestApp(dialect, { contentTypesDir: models, database });
        try {
          const after = await third.anon.get('/api/note?sort[0]=id');
          expect(after.status, after.text).to.equal(200);
          // the published versions stay (the unpublished edit of "one" is dropped); a never-published entry stays as it was
          expect(after.body.records.map((r: { text: string }) => r.text)).to.deep.equal(['one', 'two (published edit)', 'three']);
          expect(after.body.records[0]).to.not.have.property('_status');
        } finally {
          await third.close();
        }
      } finally {
        await database.drop();
        rmSync(models, { recursive: true, force: true });
      }
    });
  });
}
