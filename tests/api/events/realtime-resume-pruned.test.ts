/**
 * Realtime resume against a pruned outbox and a made-up id, on every database: the outbox pruned empty
 * (EVENTS_RETENTION: every event older than it deleted) still knows which ids it handed out (the
 * database's sequence: Dialect.lastIssuedId), so a resume point before the newest id answers 410
 * (the events after it are gone), at it 200 (nothing missed), and past it 400 naming Last-Event-ID and
 * the newest id, as a resume point past the newest kept event does while events are kept.
 */
import { expect } from 'chai';
import { DIALECTS } from '../../helpers/dialects';
import { openSse, type SseClient } from '../../helpers/sse';
import { startTestApp, type TestApp } from '../../helpers/test-app';
import { createTestDatabase } from '../../helpers/test-db';

type ErrorBody = { error: { status: number; name: string; message: string; details: Record<string, unknown> } };

for (const dialect of DIALECTS) {
  describe(`realtime: resuming against a pruned outbox, and past the newest event [${dialect}]`, function () {
    this.timeout(60_000);
    let app: TestApp;
    const open: SseClient[] = [];
    const resume = async (lastEventId: string): Promise<SseClient> => {
      const c = await openSse(`${app.url}/api/realtime?models=fee-type`, { Authorization: `Bearer ${app.admin!.accessToken}`, 'Last-Event-ID': lastEventId });
      open.push(c);
      return c;
    };
    const feeType = async (name: string): Promise<number> => {
      const res = await app.http.post('/api/fee-type', { feeType: name });
      expect(res.status, res.text).to.equal(200);
      return res.body.data.id as number;
    };

    before(async () => {
      app = await startTestApp(dialect, { env: { REALTIME_RESUME_WINDOW: '1000' } });
    });
    afterEach(() => {
      for (const c of open.splice(0)) c.close();
    });
    after(async () => app?.close());

    it('a Last-Event-ID past the newest event answers 400 naming the header and the newest id (events kept)', async () => {
      await feeType('Past newest');
      const newest = await app.deps.events.latestId();
      expect(newest).to.be.above(0);
      for (const id of ['99999999999', String(newest + 1)]) {
        const c = await resume(id);
        expect(c.status, id).to.equal(400);
        const body = c.body as ErrorBody;
        expect(body.error.details).to.include({ parameter: 'Last-Event-ID', latestEventId: newest });
        expect(body.error.message).to.contain('Last-Event-ID').and.contain(String(newest));
      }
      expect((await resume(String(newest))).status, 'the newest itself resumes').to.equal(200);
    });

    it('with the outbox pruned empty: before the newest id ever issued 410, at it 200, past it 400', async () => {
      await feeType('Pruned one');
      await feeType('Pruned two');
      const newest = await app.deps.events.latestId();
      // The pruner of EVENTS_RETENTION, run as if an hour had passed: every event goes.
      const pruned = await app.deps.events.prune(1000, new Date(Date.now() + 3_600_000));
      expect(pruned).to.be.above(0);
      expect(await app.deps.events.latestId(), 'the outbox is empty').to.equal(0);
      expect(await app.deps.events.issuedId()).to.equal(newest);

      const gone = await resume(String(newest - 1));
      expect(gone.status).to.equal(410);
      expect((gone.body as ErrorBody).error.name).to.equal('ResumeGoneError');
      expect((gone.body as ErrorBody).error.message).to.contain('no longer kept');
      expect((await resume('1')).status, 'far back').to.equal(410);
      expect((await resume('0')).status, 'from the start').to.equal(410);

      const at = await resume(String(newest));
      expect(at.status, 'nothing after it was lost').to.equal(200);
      // …and it goes on with the next event.
      const next = await feeType('After the prune');
      await at.waitFor((e) => e.event === 'record.create' && (e.data as { recordId: number }).recordId === next);
      at.close();

      // A new event after the prune: the outbox holds it alone. Before it 410, past it 400.
      const latest = await app.deps.events.latestId();
      expect(latest).to.be.above(newest);
      expect((await resume(String(newest - 1))).status).to.equal(410);
      const past = await resume(String(latest + 1));
      expect(past.status).to.equal(400);
      expect((past.body as ErrorBody).error.details).to.include({ parameter: 'Last-Event-ID', latestEventId: latest });
    });

    it('the newest id ever issued survives a pruned-empty outbox across a restart of the node', async () => {
      const database = await createTestDatabase(dialect);
      let node = await startTestApp(dialect, { database });
      try {
        expect((await node.http.post('/api/fee-type', { feeType: 'Before restart' })).status).to.equal(200);
        const newest = await node.deps.events.latestId();
        await node.deps.events.prune(1000, new Date(Date.now() + 3_600_000));
        await node.close();
        node = await startTestApp(dialect, { database });
        expect(await node.deps.events.latestId()).to.equal(0);
        expect(await node.deps.events.issuedId()).to.equal(newest);
        const headers = (id: number) => ({ Authorization: `Bearer ${node.admin!.accessToken}`, 'Last-Event-ID': String(id) });
        const before = await openSse(`${node.url}/api/realtime?models=fee-type`, headers(newest - 1));
        const past = await openSse(`${node.url}/api/realtime?models=fee-type`, headers(newest + 1));
        expect([before.status, past.status]).to.deep.equal([410, 400]);
      } finally {
        await node.close();
        await database.drop();
      }
    });
  });
}
