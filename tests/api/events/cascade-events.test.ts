/**
 * Issue 15 with relations' onDelete, every database: a hard delete whose foreign keys cascade or set null
 * announces every record the database changed with it, in the same transaction: a `record.delete` for each
 * row the cascade removes (its record as it was) and a `record.update` for each row whose link is set null
 * (its record after), following the chain; archived rows, private links and join-table links announce
 * nothing; a delete that fails announces nothing; a soft delete fires no foreign key and announces only itself.
 */
import { expect } from 'chai';
import { join } from 'node:path';
import type { StoredEvent } from '../../../core/events/types';
import { DIALECTS } from '../../helpers/dialects';
import { onEveryStatement } from '../../helpers/request-queries';
import { ROOT, startTestApp, type TestApp } from '../../helpers/test-app';

const CASCADE_MODELS = join(ROOT, 'tests', 'fixtures', 'cascade-models');

type Brief = [string, string, number];

for (const dialect of DIALECTS) {
  describe(`events of the records a delete's foreign keys change [${dialect}]`, function () {
    this.timeout(60_000);
    let app: TestApp;
    let mark = 0;
    let seq = 0;

    /** Record events committed since the last call. */
    const fresh = async (): Promise<StoredEvent[]> => {
      const list = await app.deps.events.readAfter(mark, 10_000);
      if (list.length > 0) mark = list[list.length - 1].id;
      return list.filter((e) => e.type.startsWith('record.'));
    };
    const brief = (events: readonly StoredEvent[]): Brief[] => events.map((e) => [e.type, e.model ?? '', e.recordId ?? 0]);
    const create = async (model: string, body: Record<string, unknown>): Promise<number> => {
      const res = await app.http.post(`/api/${model}`, body);
      expect(res.status, res.text).to.equal(200);
      return res.body.data.id as number;
    };
    const findOne = async (model: string, id: number): Promise<Record<string, unknown>> => {
      const res = await app.http.get(`/api/${model}/${id}`);
      expect(res.status, res.text).to.equal(200);
      return res.body as Record<string, unknown>;
    };
    const status = async (model: string, id: number, query = ''): Promise<number> => (await app.http.get(`/api/${model}/${id}${query}`)).status;
    const institute = (): Promise<number> => create('institute', { name: `Institute ${++seq}` });

    before(async () => {
      app = await startTestApp(dialect, { contentTypesDir: CASCADE_MODELS });
      mark = await app.deps.events.latestId();
    });
    after(async () => {
      await app?.close();
    });

    it('DELETE: a record.delete per row the cascade removes (as it was), a record.update per row set null (after), the chain followed', async () => {
      const inst = await institute();
      const note = await create('note', { title: 'n', secret: 'hush', instituteId: inst });
      const comment = await create('comment', { body: 'c', noteId: note });
      const memoOfInstitute = await create('memo', { title: 'm1', instituteId: inst });
      const memoOfNote = await create('memo', { title: 'm2', noteId: note });
      const memoOfBoth = await create('memo', { title: 'm3', instituteId: inst, noteId: note });
      const noteBefore = await findOne('note', note);
      const commentBefore = await findOne('comment', comment);
      expect(noteBefore).to.not.have.property('secret');
      await fresh();

      const res = await app.http.del(`/api/institute/${inst}`);
      expect(res.status, res.text).to.equal(200);
      expect(await status('note', note, '?showSoftDeleted=inclusive')).to.equal(404);
      expect(await status('comment', comment)).to.equal(404);
      const events = await fresh();
      expect(brief(events)).to.deep.equal([
        ['record.delete', 'institute', inst],
        ['record.delete', 'note', note],
        ['record.delete', 'comment', comment],
        ['record.update', 'memo', memoOfInstitute],
        ['record.update', 'memo', memoOfNote],
        ['record.update', 'memo', memoOfBoth],
      ]);
      const of = (model: string, id: number): StoredEvent => events.find((e) => e.model === model && e.recordId === id) as StoredEvent;
      expect(of('note', note).record).to.deep.equal(noteBefore);
      expect(of('comment', comment).record).to.deep.equal(commentBefore);
      for (const memo of [memoOfInstitute, memoOfNote, memoOfBoth]) {
        const now = await findOne('memo', memo);
        expect(now).to.include({ instituteId: null, noteId: null });
        expect(of('memo', memo).record).to.deep.equal(now);
      }
      for (const e of events) expect(e.actor).to.deep.equal({ userId: app.admin!.id, apiTokenId: null });
    });

    it('archived rows, a private link and join-table links change without an event', async () => {
      const inst = await institute();
      const archivedNote = await create('note', { title: 'old', instituteId: inst });
      const archivedMemo = await create('memo', { title: 'old', instituteId: inst });
      expect((await app.http.del(`/api/note/${archivedNote}`)).status).to.equal(200);
      expect((await app.http.del(`/api/memo/${archivedMemo}`)).status).to.equal(200);
      const ledger = await create('ledger', { title: 'books' });
      const ledgers = app.deps.registry.get('ledger')!;
      const link = ledgers.byName.get('institute');
      if (link?.kind !== 'relation' || !link.column) throw new Error('ledger.institute: no column');
      await app.deps.db(ledgers.table).where('id', ledger).update({ [link.column]: inst });
      const label = await create('label', { title: 'tagged', institutes: [inst] });
      const ledgerBefore = await findOne('ledger', ledger);
      await fresh();

      expect((await app.http.del(`/api/institute/${inst}`)).status).to.equal(200);
      expect(brief(await fresh())).to.deep.equal([['record.delete', 'institute', inst]]);
      expect(await status('note', archivedNote, '?showSoftDeleted=inclusive')).to.equal(404);
      const memo = await app.http.get(`/api/memo/${archivedMemo}?showSoftDeleted=inclusive`);
      expect(memo.body).to.include({ instituteId: null });
      expect(await findOne('ledger', ledger)).to.deep.equal(ledgerBefore);
      expect((await app.deps.db(ledgers.table).where('id', ledger).first())[link.column]).to.equal(null);
      expect(await status('label', label)).to.equal(200);
    });

    it('a bulk DELETE announces each record\'s dependents after it, in the order of the call', async () => {
      const a = await institute();
      const b = await institute();
      const noteA = await create('note', { title: 'a', instituteId: a });
      const memoB = await create('memo', { title: 'b', instituteId: b });
      const noteB = await create('note', { title: 'b', instituteId: b });
      await fresh();
      const res = await app.http.del('/api/institute/bulk', [b, a]);
      expect(res.status, res.text).to.equal(200);
      expect(brief(await fresh())).to.deep.equal([
        ['record.delete', 'institute', b],
        ['record.delete', 'note', noteB],
        ['record.update', 'memo', memoB],
        ['record.delete', 'institute', a],
        ['record.delete', 'note', noteA],
      ]);
    });

    it('a delete the foreign keys refuse (restrict down the chain) changes nothing and announces nothing', async () => {
      const inst = await institute();
      const note = await create('note', { title: 'held', instituteId: inst });
      const comment = await create('comment', { body: 'pinned', noteId: note });
      const memo = await create('memo', { title: 'kept', instituteId: inst });
      await create('pin', { label: 'p', commentId: comment });
      await fresh();
      const res = await app.http.del(`/api/institute/${inst}`);
      expect(res.status, res.text).to.equal(409);
      expect(await fresh()).to.deep.equal([]);
      expect(await status('institute', inst)).to.equal(200);
      expect(await status('comment', comment)).to.equal(200);
      expect(await findOne('memo', memo)).to.include({ instituteId: inst });
      // in a bulk call too: the first institute's delete (and its events) roll back with the second's failure
      const other = await institute();
      const otherNote = await create('note', { title: 'other', instituteId: other });
      await fresh();
      const bulk = await app.http.del('/api/institute/bulk', [other, inst]);
      expect(bulk.status, bulk.text).to.equal(409);
      expect(await fresh()).to.deep.equal([]);
      expect(await status('note', otherNote)).to.equal(200);
    });

    it('a soft delete fires no foreign key: its dependents keep their link, and it alone is announced', async () => {
      const inst = await institute();
      const note = await create('note', { title: 'soft', instituteId: inst });
      const comment = await create('comment', { body: 'stays', noteId: note });
      const memo = await create('memo', { title: 'stays', noteId: note });
      await fresh();
      expect((await app.http.del(`/api/note/${note}`)).status).to.equal(200);
      expect(brief(await fresh())).to.deep.equal([['record.delete', 'note', note]]);
      expect(await findOne('comment', comment)).to.include({ noteId: note });
      expect(await findOne('memo', memo)).to.include({ noteId: note });
    });

    it('a role\'s delete announces the access rules that go with it (the identity plugin\'s cascade)', async () => {
      const role = await create('role', { name: `clerk-${++seq}` });
      const rule = await create('access-rule', { roleId: role, action: 'institute.find', where: { name: { $eq: 'x' } } });
      const ruleBefore = await findOne('access-rule', rule);
      await fresh();
      expect((await app.http.del(`/api/role/${role}`)).status).to.equal(200);
      const events = await fresh();
      expect(brief(events)).to.deep.equal([
        ['record.delete', 'role', role],
        ['record.delete', 'access-rule', rule],
      ]);
      expect(events[1].record).to.deep.equal(ruleBefore);
    });

    it('a delete of a model nothing points at with cascade or set null reads no other table', async () => {
      const comment = await create('comment', { body: 'alone' });
      const sql: string[] = [];
      const stop = onEveryStatement(app.deps, (q: { sql: string }) => void sql.push(q.sql));
      try {
        expect((await app.http.del(`/api/comment/${comment}`)).status).to.equal(200);
      } finally {
        stop();
      }
      const others = ['institute', 'note', 'memo', 'ledger', 'label'].map((m) => app.deps.registry.get(m)!.table);
      expect(sql.filter((s) => others.some((t) => new RegExp(`["\`]${t}["\`]`).test(s))), sql.join('\n')).to.deep.equal([]);
    });
  });
}
