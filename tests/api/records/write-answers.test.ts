/**
 * Issue 13 item 3: write answers follow the read rule. A write populates its to-one relations; a related
 * record of a model the caller may not `find` shows as `{ id }` alone (as much as `<name>Id` already says),
 * in every write answer: create, bulk create, PUT, PATCH, delete, bulk delete, recover, bulk recover and the
 * multipart forms. A bad reference into such a model answers 422 "invalid reference", naming no id or key;
 * a reference to an existing record the caller cannot read is still a valid write.
 */
import { expect } from 'chai';
import { join } from 'node:path';
import { DIALECTS } from '../../helpers/dialects';
import { sendForm } from '../../helpers/multipart';
import { userWith } from '../../helpers/roles';
import { ROOT, startTestApp, type TestApp, type TestUser } from '../../helpers/test-app';

const MODELS = join(ROOT, 'tests', 'fixtures', 'access-models');
const NOTE_WRITES = ['secret-note.create', 'secret-note.update', 'secret-note.delete', 'secret-note.recover', 'secret-note.find'];

type Rec = Record<string, unknown>;

for (const dialect of DIALECTS) {
  describe(`write answers show related records only to callers who may find them [${dialect}]`, () => {
    let app: TestApp;
    /** May write notes; may not find users or topics. */
    let writer: TestUser;
    /** May write notes and find users and topics. */
    let reader: TestUser;
    let adminId: number;
    let topicId: number;

    before(async () => {
      app = await startTestApp(dialect, { contentTypesDir: MODELS });
      adminId = app.admin?.id ?? 0;
      topicId = (await app.http.post('/api/topic', { code: 'T1', name: 'Hidden topic' })).body.data.id;
      writer = await userWith(app, 'note-writer', NOTE_WRITES);
      reader = await userWith(app, 'note-reader', [...NOTE_WRITES, 'user.find', 'topic.find']);
    });
    after(async () => app?.close());

    const note = (text: string): Rec => ({ text, ownerId: adminId, topicId });

    /** The answer names the related records by id alone and carries nothing of the admin's user record. */
    function idsOnly(record: Rec, text: string): void {
      expect(record).to.include({ ownerId: adminId, topicId });
      expect(record.owner).to.deep.equal({ id: adminId });
      expect(record.topic).to.deep.equal({ id: topicId });
      expect(text).to.not.include('admin@example.test');
      expect(text).to.not.include('Hidden topic');
    }

    function populated(record: Rec): void {
      expect(record.owner).to.include({ id: adminId, username: 'admin', email: 'admin@example.test' });
      expect(record.topic).to.include({ id: topicId, code: 'T1', name: 'Hidden topic' });
    }

    it('create: without find on user and topic the answer shows { id } alone; with find, the records', async () => {
      const res = await writer.http.post('/api/secret-note', note('w1'));
      expect(res.status, res.text).to.equal(200);
      idsOnly(res.body.data, res.text);
      const full = await reader.http.post('/api/secret-note', note('r1'));
      expect(full.status, full.text).to.equal(200);
      populated(full.body.data);
      const admin = await app.http.post('/api/secret-note', note('a1'));
      populated(admin.body.data);
    });

    it('a null relation stays null for everyone', async () => {
      const res = await writer.http.post('/api/secret-note', { text: 'none' });
      expect(res.status, res.text).to.equal(200);
      expect(res.body.data).to.include({ ownerId: null, owner: null, topicId: null, topic: null });
    });

    it('bulk create: every record of the answer follows the rule', async () => {
      const res = await writer.http.post('/api/secret-note/bulk', [note('b1'), note('b2')]);
      expect(res.status, res.text).to.equal(200);
      for (const r of res.body.data as Rec[]) idsOnly(r, res.text);
      const full = await reader.http.post('/api/secret-note/bulk', [note('b3')]);
      populated(full.body.data[0]);
    });

    it('PATCH and PUT: the same', async () => {
      const id = (await app.http.post('/api/secret-note', { text: 'p' })).body.data.id;
      const patched = await writer.http.patch(`/api/secret-note/${id}`, { ownerId: adminId, topicId });
      expect(patched.status, patched.text).to.equal(200);
      idsOnly(patched.body.data, patched.text);
      const touched = await writer.http.patch(`/api/secret-note/${id}`, { text: 'only text' });
      idsOnly(touched.body.data, touched.text);
      const put = await writer.http.put(`/api/secret-note/${id}`, note('put'));
      expect(put.status, put.text).to.equal(200);
      idsOnly(put.body.data, put.text);
      populated((await reader.http.patch(`/api/secret-note/${id}`, { text: 'r' })).body.data);
      populated((await reader.http.put(`/api/secret-note/${id}`, note('r'))).body.data);
    });

    it('delete, bulk delete, recover and bulk recover: the same', async () => {
      const ids: number[] = [];
      for (const t of ['d1', 'd2', 'd3']) ids.push((await app.http.post('/api/secret-note', note(t))).body.data.id);
      const del = await writer.http.del(`/api/secret-note/${ids[0]}`);
      expect(del.status, del.text).to.equal(200);
      idsOnly(del.body.data, del.text);
      const bulkDel = await writer.http.del('/api/secret-note/bulk', [ids[1], ids[2]]);
      expect(bulkDel.status, bulkDel.text).to.equal(200);
      for (const e of bulkDel.body as { data: Rec }[]) idsOnly(e.data, bulkDel.text);
      const rec = await writer.http.post(`/api/secret-note/recover/${ids[0]}`);
      expect(rec.status, rec.text).to.equal(200);
      idsOnly(rec.body.data.data, rec.text);
      const bulkRec = await writer.http.post('/api/secret-note/recover/bulk', [ids[1], ids[2]]);
      expect(bulkRec.status, bulkRec.text).to.equal(200);
      for (const e of bulkRec.body.data as { data: Rec }[]) idsOnly(e.data, bulkRec.text);
      expect((await reader.http.del(`/api/secret-note/${ids[0]}`)).body.data.owner).to.include({ email: 'admin@example.test' });
    });

    it('multipart create and update: the same', async () => {
      const made = await sendForm(`${app.url}/api/secret-note`, 'POST', { data: note('m1') }, [], app.fetch, writer.accessToken);
      expect(made.status, JSON.stringify(made.body)).to.equal(200);
      idsOnly(made.body.data, JSON.stringify(made.body));
      const id = made.body.data.id as number;
      const upd = await sendForm(`${app.url}/api/secret-note/${id}`, 'PATCH', { data: { text: 'm2' } }, [], app.fetch, writer.accessToken);
      expect(upd.status, JSON.stringify(upd.body)).to.equal(200);
      idsOnly(upd.body.data, JSON.stringify(upd.body));
      const full = await sendForm(`${app.url}/api/secret-note`, 'POST', { data: note('m3') }, [], app.fetch, reader.accessToken);
      populated(full.body.data);
    });

    it('a missing reference into a model the caller may not find: 422 "invalid reference", no id or key named', async () => {
      const cases: [Rec, string][] = [
        [{ text: 'x', ownerId: 99999 }, 'ownerId'],
        [{ text: 'x', topicId: 99999 }, 'topicId'],
        [{ text: 'x', topicUserKey: 'NOPE' }, 'topicUserKey'],
        [{ text: 'x', related: [topicId, 99999] }, 'related'],
      ];
      for (const [body, field] of cases) {
        const res = await writer.http.post('/api/secret-note', body);
        expect(res.status, res.text).to.equal(422);
        expect(res.body.error.details.fields).to.deep.equal({ [field]: ['invalid reference'] });
        expect(res.text).to.not.match(/99999|NOPE|no (user|topic)/);
        const patched = await writer.http.patch(`/api/secret-note/${(await app.http.post('/api/secret-note', { text: 'y' })).body.data.id}`, body);
        expect(patched.status).to.equal(422);
        expect(patched.body.error.details.fields).to.deep.equal({ [field]: ['invalid reference'] });
      }
      const bulk = await writer.http.post('/api/secret-note/bulk', [{ text: 'ok' }, { text: 'x', ownerId: 99999 }]);
      expect(bulk.status).to.equal(422);
      expect(bulk.body.error.details.errors).to.deep.equal([{ index: 1, fields: { ownerId: ['invalid reference'] } }]);
      // an existing record named by key and a different id: the contradiction names neither
      const other = (await app.http.post('/api/topic', { code: 'T2' })).body.data.id;
      const clash = await writer.http.post('/api/secret-note', { text: 'x', topicId: other, topicUserKey: 'T1' });
      expect(clash.status).to.equal(422);
      expect(clash.body.error.details.fields).to.deep.equal({ topicId: ['contradicts topicUserKey'] });
    });

    it('a caller who may find the target hears which reference is missing', async () => {
      const res = await reader.http.post('/api/secret-note', { text: 'x', ownerId: 99999 });
      expect(res.status).to.equal(422);
      expect(res.body.error.details.fields.ownerId).to.deep.equal(['no user with id 99999']);
      const key = await reader.http.post('/api/secret-note', { text: 'x', topicUserKey: 'NOPE' });
      expect(key.body.error.details.fields.topicUserKey).to.deep.equal(['no topic with code "NOPE"']);
    });

    it('a reference to an existing record the caller cannot read is a valid write (by id, by user key, in a list)', async () => {
      const res = await writer.http.post('/api/secret-note', { text: 'k', topicUserKey: 'T1', related: [topicId] });
      expect(res.status, res.text).to.equal(200);
      expect(res.body.data).to.include({ topicId });
      expect(res.body.data.topic).to.deep.equal({ id: topicId });
      const stored = await app.http.get(`/api/secret-note/${res.body.data.id}?populate[0]=related`);
      expect(stored.body.related.map((t: Rec) => t.id)).to.deep.equal([topicId]);
    });

    it('reads keep their rule: populating user or topic without find is 403', async () => {
      const id = (await writer.http.post('/api/secret-note', note('r'))).body.data.id;
      expect((await writer.http.get(`/api/secret-note?populate[0]=owner`)).status).to.equal(403);
      expect((await writer.http.get(`/api/secret-note?filters[id][$eq]=${id}`)).body.records[0]).to.not.have.property('owner');
    });
  });
}
