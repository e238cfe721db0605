/**
 * A stream starts after its resume point (Last-Event-ID), or after the newest event at connect, even
 * when this node's hub has not read the outbox that far yet: the events at or before that point are
 * the client's already (resume) or older than its connection, and are never sent, also not when the
 * hub reads them later. Before, a node whose hub lagged (another node's write, its signal not yet
 * there, EVENTS_POLL_INTERVAL) handed them to the new stream live: a client resuming after event N
 * received N (and earlier ones) again.
 * The lagging hub is made deterministic by appending to the outbox directly (no poke, no signal):
 * as another node's commit whose signal has not arrived.
 */
import { expect } from 'chai';
import { DIALECTS } from '../../helpers/dialects';
import { openSse, type SseClient, type SseEvent } from '../../helpers/sse';
import { startTestApp, type TestApp } from '../../helpers/test-app';
import { appendEvents } from '../../../core/events/outbox';

type Data = { id: number; recordId: number };
const dataOf = (e: SseEvent): Data => e.data as Data;
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

for (const dialect of DIALECTS) {
  describe(`realtime: a new stream never gets events at or before its start point from a lagging hub [${dialect}]`, function () {
    this.timeout(60_000);
    let app: TestApp;
    const open: SseClient[] = [];
    const stream = async (headers: Record<string, string> = {}): Promise<SseClient> => {
      const c = await openSse(`${app.url}/api/realtime?models=fee-type`, { Authorization: `Bearer ${app.admin!.accessToken}`, ...headers });
      open.push(c);
      expect(c.status, JSON.stringify(c.body)).to.equal(200);
      return c;
    };
    /** An event committed elsewhere: in the outbox, this node's hub not told. */
    const foreignEvent = async (recordId: number): Promise<number> => {
      const [id] = await appendEvents(app.deps.db, app.deps.dialect, [{ type: 'record.create', model: 'fee-type', recordId, actor: null, record: { id: recordId, feeType: `Foreign ${recordId}` } }]);
      return id;
    };

    before(async () => {
      app = await startTestApp(dialect, { env: { EVENTS_POLL_INTERVAL: '5s', REALTIME_HEARTBEAT: '60s' } });
    });
    afterEach(() => {
      for (const c of open.splice(0)) c.close();
    });
    after(async () => app?.close());

    it('resumed with Last-Event-ID N (the hub not yet past N): N and earlier never arrive; later events do', async () => {
      const watcher = await stream();
      await sleep(300); // the hub has its cursor
      const first = await foreignEvent(900001);
      const second = await foreignEvent(900002);
      const resumed = await stream({ 'Last-Event-ID': String(second) });
      const fresh = await stream();
      await watcher.waitFor((e) => e.id === String(second), 15_000);
      const res = await app.http.post('/api/fee-type', { feeType: `After ${dialect}` });
      expect(res.status, res.text).to.equal(200);
      const after = res.body.data.id as number;
      await resumed.waitFor((e) => dataOf(e).recordId === after, 10_000);
      await fresh.waitFor((e) => dataOf(e).recordId === after, 10_000);
      for (const [name, c] of [['resumed', resumed], ['fresh', fresh]] as const) {
        const ids = c.events.map((e) => Number(e.id));
        expect(ids, `${name}: nothing at or before ${second} (${first}, ${second} were there at connect)`).to.satisfy((xs: number[]) => xs.every((x) => x > second));
        expect(ids, `${name}: each once`).to.deep.equal([...new Set(ids)]);
      }
    });
  });
}
