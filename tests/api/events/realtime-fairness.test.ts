/**
 * Realtime's filter checks take turns fairly between callers (core/realtime/check-gate.ts): one caller
 * with many filtered streams (each of its events a check per stream) delays its own events, not another
 * caller's. With one turn (REALTIME_CHECK_CONCURRENCY=1), a heavy caller's 8 filtered streams and a quiet
 * caller's one, and a bulk write of N records: the quiet stream gets every other turn, so it has all N
 * events while the heavy streams have had well under half of theirs (first come, first served gave it
 * one turn in nine: it finished with them).
 */
import { expect } from 'chai';
import qs from 'qs';
import { DIALECTS } from '../../helpers/dialects';
import { makeRole } from '../../helpers/roles';
import { openSse, type SseClient } from '../../helpers/sse';
import { startTestApp, type TestApp, type TestUser } from '../../helpers/test-app';

const HEAVY_STREAMS = 8;
const RECORDS = 30;

for (const dialect of DIALECTS) {
  describe(`realtime: filter checks take turns fairly between callers [${dialect}]`, function () {
    this.timeout(120_000);
    let app: TestApp;
    const open: SseClient[] = [];
    const filtered = async (u: TestUser, marker: string): Promise<SseClient> => {
      // Through a relation, so it is checked in SQL (a filter on the record's own fields is judged in memory, no statement).
      const filters = { $or: [{ feeType: { $notContains: marker } }, { institute: { name: { $eq: marker } } }] };
      const q = qs.stringify({ models: 'fee-type', filters }, { encodeValuesOnly: true });
      const c = await openSse(`${app.url}/api/realtime?${q}`, { Authorization: `Bearer ${u.accessToken}` });
      expect(c.status).to.equal(200);
      open.push(c);
      return c;
    };

    before(async () => {
      app = await startTestApp(dialect, {
        env: { REALTIME_MAX_CONNECTIONS: String(HEAVY_STREAMS), REALTIME_CHECK_CONCURRENCY: '1', REALTIME_QUEUE_MAX: '2000', REALTIME_HEARTBEAT: '60s' },
      });
      await makeRole(app, 'rt-fair', ['fee-type.find', 'institute.find']);
    });
    after(async () => {
      for (const c of open.splice(0)) c.close();
      await app?.close();
    });

    it(`a caller with ${HEAVY_STREAMS} filtered streams does not hold back another caller's one`, async () => {
      const heavy = await app.createUser({ roles: ['rt-fair'] });
      const quiet = await app.createUser({ roles: ['rt-fair'] });
      // every stream has a filter of its own (no shared check), each matching every record
      const heavyStreams = await Promise.all(Array.from({ length: HEAVY_STREAMS }, (_, i) => filtered(heavy, `zq-heavy-${i}`)));
      const quietStream = await filtered(quiet, 'zq-quiet');
      const res = await app.http.post('/api/fee-type/bulk', Array.from({ length: RECORDS }, (_, i) => ({ feeType: `Fair ${i}` })));
      expect(res.status, res.text).to.equal(200);
      const creates = (c: SseClient): number => c.events.filter((e) => e.event === 'record.create').length;

      await quietStream.waitFor(() => creates(quietStream) === RECORDS, 30_000);
      const heavyWhenQuietDone = heavyStreams.reduce((n, c) => n + creates(c), 0);
      // and the heavy caller gets all of its events too, later
      await Promise.all(heavyStreams.map((c) => c.waitFor(() => creates(c) === RECORDS, 30_000)));

      const heavyTotal = HEAVY_STREAMS * RECORDS;
      expect(heavyWhenQuietDone, `heavy receipts when the quiet stream had all ${RECORDS} (of ${heavyTotal})`).to.be.below(heavyTotal / 2);
    });
  });
}
