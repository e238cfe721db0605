/**
 * Reads are not held by a write in progress and never see it before it commits (SQLite: the read-only
 * connections of SQLITE_READERS beside the one writer, database/connect.ts; PostgreSQL and MariaDB:
 * their pools). A long write transaction is held open on the service's own writing connection while
 * Find and FindOne answer; after its commit the next read shows the change.
 */
import { expect } from 'chai';
import { DIALECTS } from '../../helpers/dialects';
import { startTestApp, type TestApp } from '../../helpers/test-app';

/** How long the open transaction waits for the reads before it gives up waiting (they never come: the test fails). */
const HOLD_AT_MOST_MS = 8000;

for (const dialect of DIALECTS) {
  describe(`records: reads while a write transaction is open [${dialect}]`, () => {
    let app: TestApp;

    before(async () => {
      app = await startTestApp(dialect);
    });
    after(async () => app?.close());

    /** Runs `reads` while a transaction that renamed record `id` is open on the writer; true if they finished before it ended. */
    const whileWriting = async (id: number, name: string, reads: () => Promise<void>): Promise<boolean> => {
      let readsDone = false;
      let release: () => void = () => undefined;
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      let renamed: () => void = () => undefined;
      const open = new Promise<void>((resolve) => {
        renamed = resolve;
      });
      const writing = app.deps.db.transaction(async (trx) => {
        await trx('fee_type').where({ id }).update({ fee_type: name, fee_type__fold: name.toLowerCase() });
        renamed();
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([released, new Promise((r) => (timer = setTimeout(r, HOLD_AT_MOST_MS)))]);
        clearTimeout(timer);
      });
      await open;
      const reading = reads().then(() => {
        readsDone = true;
        release();
      });
      await Promise.all([writing, reading]);
      return readsDone;
    };

    it('Find and FindOne answer while a write holds its transaction open, without its uncommitted change; the next read after the commit shows it', async () => {
      const created = await app.http.post('/api/fee-type', { feeType: 'Before the write', latePaymentFees: 3 });
      expect(created.status, created.text).to.equal(200);
      const id = created.body.data.id as number;
      const finishedFirst = await whileWriting(id, 'Uncommitted name', async () => {
        const one = await app.http.get(`/api/fee-type/${id}`);
        expect(one.status, one.text).to.equal(200);
        expect(one.body.feeType).to.equal('Before the write');
        const list = await app.http.get(`/api/fee-type?filters[id][$eq]=${id}`);
        expect(list.status, list.text).to.equal(200);
        expect(list.body.records.map((r: { feeType: string }) => r.feeType)).to.deep.equal(['Before the write']);
      });
      expect(finishedFirst, 'the reads waited for the write transaction to end').to.equal(true);
      const after = await app.http.get(`/api/fee-type/${id}`);
      expect(after.body.feeType).to.equal('Uncommitted name');
    });
  });
}
