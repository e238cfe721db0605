/**
 * Realtime under a hostile client (the abandoned-stream review): a stream's per-event filter checks
 * stop as soon as its client is gone (catch-up and live delivery), its place under
 * REALTIME_MAX_CONNECTIONS stays counted until its work has stopped, and the checks of all streams
 * together never hold more than REALTIME_CHECK_CONCURRENCY database connections at once.
 * The checks are counted by the statements the realtime reader runs (knex `query` events) that
 * carry a stream's own filter value.
 */
import { expect } from 'chai';
import qs from 'qs';
import type { Knex } from 'knex';
import { DIALECTS } from '../../helpers/dialects';
import { makeRole } from '../../helpers/roles';
import { openSse, type SseClient } from '../../helpers/sse';
import { startTestApp, type TestApp, type TestUser } from '../../helpers/test-app';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** How long an abandoned stream may go on after its client left: the statement in flight, then nothing. */
const STOP_MS = 1000;

interface Statement {
  readonly __knexQueryUid?: string;
  readonly bindings?: readonly unknown[];
}

/** Counts the statements (and the ones in flight at once) whose bindings carry a marker. */
class CheckCounter {
  readonly count = new Map<string, number>();
  private readonly running = new Set<string>();
  peak = 0;
  private readonly onQuery = (q: Statement): void => {
    const marker = this.markerOf(q);
    if (marker === null) return;
    this.count.set(marker, (this.count.get(marker) ?? 0) + 1);
    if (q.__knexQueryUid) this.running.add(q.__knexQueryUid);
    this.peak = Math.max(this.peak, this.running.size);
  };
  private readonly onDone = (_r: unknown, q: Statement): void => {
    if (q?.__knexQueryUid) this.running.delete(q.__knexQueryUid);
  };

  constructor(private readonly db: Knex, private readonly prefix: string) {
    db.on('query', this.onQuery);
    db.on('query-response', this.onDone);
    db.on('query-error', this.onDone);
  }

  private markerOf(q: Statement): string | null {
    for (const b of q.bindings ?? []) if (typeof b === 'string' && b.includes(this.prefix)) return b.replace(/%/g, '');
    return null;
  }

  of(marker: string): number {
    return this.count.get(marker) ?? 0;
  }

  resetPeak(): void {
    this.peak = this.running.size;
  }

  stop(): void {
    this.db.off('query', this.onQuery);
    this.db.off('query-response', this.onDone);
    this.db.off('query-error', this.onDone);
  }
}

for (const dialect of DIALECTS) {
  describe(`realtime: abandoned streams stop their work; checks bounded by REALTIME_CHECK_CONCURRENCY [${dialect}]`, function () {
    this.timeout(120_000);
    let app: TestApp;
    let counter: CheckCounter;
    const open: SseClient[] = [];
    const as = (u: TestUser): Record<string, string> => ({ Authorization: `Bearer ${u.accessToken}` });
    /** A stream of fee-type whose filter matches every record, names `marker` (so its checks can be counted) and is checked in SQL. */
    const filtered = async (u: TestUser, marker: string, headers: Record<string, string> = {}): Promise<SseClient> => {
      // Through a relation, so it is checked in SQL (a filter on the record's own fields is judged in memory, no statement).
      const filters = { $or: [{ feeType: { $notContains: marker } }, { institute: { name: { $eq: marker } } }] };
      const q = qs.stringify({ models: 'fee-type', filters }, { encodeValuesOnly: true });
      const c = await openSse(`${app.url}/api/realtime?${q}`, { ...as(u), ...headers });
      open.push(c);
      return c;
    };
    const bulk = async (n: number, name: string): Promise<number[]> => {
      const res = await app.http.post('/api/fee-type/bulk', Array.from({ length: n }, (_, i) => ({ feeType: `${name} ${i}` })));
      expect(res.status, res.text).to.equal(200);
      return (res.body.data as { id: number }[]).map((r) => r.id);
    };
    const until = async (what: string, cond: () => boolean, ms = 10_000): Promise<void> => {
      const t0 = Date.now();
      while (!cond()) {
        if (Date.now() - t0 > ms) throw new Error(`timed out waiting for ${what}`);
        await sleep(5);
      }
    };

    before(async () => {
      app = await startTestApp(dialect, {
        env: { REALTIME_RESUME_WINDOW: '2000', REALTIME_MAX_CONNECTIONS: '2', REALTIME_CHECK_CONCURRENCY: '2', REALTIME_QUEUE_MAX: '2000', REALTIME_HEARTBEAT: '60s' },
      });
      await makeRole(app, 'rt-abandon', ['fee-type.find', 'institute.find']);
      counter = new CheckCounter(app.deps.readDb ?? app.deps.db, 'zq-mark-');
    });
    afterEach(async () => {
      for (const c of open.splice(0)) c.close();
      await sleep(100);
    });
    after(async () => {
      counter?.stop();
      await app?.close();
    });

    it('a catch-up stream abandoned by its client stops its checks within a moment, and holds its place until then', async () => {
      const u = await app.createUser({ roles: ['rt-abandon'] });
      const from = await app.deps.events.latestId();
      await bulk(1000, 'Backlog');
      const other = await filtered(u, 'zq-mark-other');
      const victim = await filtered(u, 'zq-mark-catchup', { 'Last-Event-ID': String(from) });
      expect([other.status, victim.status]).to.deep.equal([200, 200]);
      // The caller is at REALTIME_MAX_CONNECTIONS (2): a third stream is refused while both run.
      await until('the catch-up checks to start', () => counter.of('zq-mark-catchup') >= 5);
      victim.close();
      const closedAt = Date.now();
      const atClose = counter.of('zq-mark-catchup');
      // The place comes back once the stream's work has stopped, not at once.
      let third: SseClient | null = null;
      while (Date.now() - closedAt < 10_000) {
        const c = await filtered(u, 'zq-mark-third');
        if (c.status === 200) {
          third = c;
          break;
        }
        expect(c.status).to.equal(429);
        expect((c.body as { error: { details: { setting: string } } }).error.details.setting).to.equal('REALTIME_MAX_CONNECTIONS');
        await sleep(10);
      }
      expect(third, 'the place is given back').not.to.equal(null);
      expect(Date.now() - closedAt, 'the place comes back within a moment').to.be.below(STOP_MS);
      const atFree = counter.of('zq-mark-catchup');
      await sleep(500);
      expect(counter.of('zq-mark-catchup'), 'no check after the place was given back').to.equal(atFree);
      // The statement in flight (and at most the one being issued) may finish; the backlog of ~1000 is not checked.
      expect(atFree - atClose, 'checks after the client left').to.be.at.most(2);
      expect(atFree).to.be.below(500);
    });

    it('a live stream abandoned with a queue of events stops its checks at once and holds its place until then', async () => {
      const u = await app.createUser({ roles: ['rt-abandon'] });
      const other = await filtered(u, 'zq-mark-other2');
      const victim = await filtered(u, 'zq-mark-live');
      expect([other.status, victim.status]).to.deep.equal([200, 200]);
      await sleep(100);
      await bulk(300, 'Live');
      await until('the live checks to start', () => counter.of('zq-mark-live') >= 5);
      victim.close();
      const closedAt = Date.now();
      const atClose = counter.of('zq-mark-live');
      let freed = false;
      while (!freed && Date.now() - closedAt < 10_000) {
        const c = await filtered(u, 'zq-mark-third2');
        if (c.status === 200) freed = true;
        else await sleep(10);
      }
      expect(freed).to.equal(true);
      const atFree = counter.of('zq-mark-live');
      await sleep(500);
      expect(counter.of('zq-mark-live'), 'no check after the place was given back').to.equal(atFree);
      expect(atFree - atClose, 'checks after the client left').to.be.at.most(2);
    });

    for (const streams of [2, 4]) {
      it(`${streams} streams with their own filters (${streams === 2 ? 'at' : 'past'} REALTIME_CHECK_CONCURRENCY=2): at most 2 checks at once, and every event still arrives`, async () => {
        const clients: SseClient[] = [];
        for (let i = 0; i < streams; i++) {
          const u = await app.createUser({ roles: ['rt-abandon'] });
          clients.push(await filtered(u, `zq-mark-c${streams}-${i}`));
        }
        expect(clients.map((c) => c.status)).to.deep.equal(clients.map(() => 200));
        await sleep(100);
        counter.resetPeak();
        const ids = await bulk(40, `Conc ${streams}`);
        for (const c of clients) await c.waitFor((e) => e.event === 'record.create' && (e.data as { recordId: number }).recordId === ids[ids.length - 1], 20_000);
        for (const c of clients) expect(c.events.filter((e) => e.event === 'record.create').length).to.equal(ids.length);
        for (let i = 0; i < streams; i++) expect(counter.of(`zq-mark-c${streams}-${i}`), `stream ${i} checked every event`).to.be.at.least(ids.length);
        expect(counter.peak, 'checks in flight at once').to.be.at.most(2);
        expect(counter.peak).to.be.at.least(1);
      });
    }
  });
}
