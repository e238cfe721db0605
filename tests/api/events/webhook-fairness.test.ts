/**
 * Webhooks are sent fairly: one receiver that never answers (each attempt runs to WEBHOOK_TIMEOUT) takes
 * at most WEBHOOK_CONCURRENCY_PER_HOOK of a node's WEBHOOK_CONCURRENCY sending slots, and every other
 * webhook keeps its throughput. On the old code a bulk of 80 creates reached the fast receiver in some
 * 20 s (its deliveries were claimed `ORDER BY id` behind the hanging ones, which held every slot for 2 s).
 */
import { expect } from 'chai';
import { DIALECTS } from '../../helpers/dialects';
import { startTestApp, type TestApp } from '../../helpers/test-app';
import { createTestDatabase, type TestDatabase } from '../../helpers/test-db';
import { startReceiver, type Receiver } from '../../helpers/webhook-receiver';

const N = 80;
/** WEBHOOK_CONCURRENCY_PER_HOOK is left to its default: half of WEBHOOK_CONCURRENCY (4). */
const ENV = {
  WEBHOOK_ALLOW_HOSTS: '127.0.0.1',
  WEBHOOK_TIMEOUT: '2s',
  WEBHOOK_BACKOFF_BASE: '50ms',
  WEBHOOK_BACKOFF_MAX: '200ms',
  WEBHOOK_RETRY_FOR: '1h',
  WEBHOOK_POLL_INTERVAL: '100ms',
  WEBHOOK_CONCURRENCY: '8',
};
/** The fast receiver gets all N well within this (the old code: some 20 s). */
const BOUND_MS = 6000;

for (const dialect of DIALECTS) {
  describe(`webhook fairness [${dialect}]`, function () {
    this.timeout(90_000);
    let app: TestApp;
    let database: TestDatabase;
    let fast: Receiver;
    let slow: Receiver;

    before(async () => {
      fast = await startReceiver();
      slow = await startReceiver();
      slow.respond = () => 'hang';
      database = await createTestDatabase(dialect);
      app = await startTestApp(dialect, { database, env: ENV });
    });
    after(async () => {
      await app?.close();
      await database?.drop();
      await fast?.close();
      await slow?.close();
    });

    it(`a webhook whose receiver hangs takes at most its share: the other gets a bulk of ${N} creates within ${BOUND_MS} ms`, async () => {
      const mk = async (name: string, url: string) => {
        const res = await app.http.post('/api/webhook', { name, url, events: ['record.create'], model: 'fee-type' });
        expect(res.status, res.text).to.equal(200);
        return res.body.data.id as number;
      };
      // the hanging one first: its deliveries have the lower ids of each pair
      const slowId = await mk('slow', `${slow.url}/in`);
      const fastId = await mk('fast', `${fast.url}/in`);
      const t0 = Date.now();
      const bulk = await app.http.post(
        '/api/fee-type/bulk',
        Array.from({ length: N }, (_, i) => ({ feeType: `Fair ${i}` })),
      );
      expect(bulk.status, bulk.text).to.equal(200);
      const ids = new Set<number>();
      const got = () => {
        for (const r of fast.received) if (typeof r.json?.data?.recordId === 'number') ids.add(r.json.data.recordId);
        return ids.size;
      };
      const deadline = t0 + 40_000;
      while (got() < N && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      const took = Date.now() - t0;
      console.log(`      [${dialect}] fast receiver got ${ids.size}/${N} in ${took} ms; the hanging one saw ${slow.received.length} attempts`);
      expect(ids.size).to.equal(N);
      expect(took).to.be.below(BOUND_MS);
      // the hanging receiver is tried all the while, never with more than its share at once (4 of 8)
      await slow.until((r) => r.length >= 12, 20_000);
      // (an attempt there lasts the 2 s time-out: arrivals within 1.5 s of each other were open together)
      const at = slow.received.map((r) => r.at);
      const together = Math.max(...at.map((t) => at.filter((u) => u <= t && u > t - 1500).length));
      expect(together, 'attempts open at once at the hanging receiver').to.be.at.most(4);
      await app.http.patch(`/api/webhook/${slowId}`, { enabled: false });
      await app.http.patch(`/api/webhook/${fastId}`, { enabled: false });
    });

    it('a write\'s own deliveries (handed to its node at commit) keep to the same share per webhook', async () => {
      // a node of its own: the one before still holds the first test's deliveries (their webhooks are off)
      await app.close();
      app = await startTestApp(dialect, { database, env: ENV });
      fast.received.splice(0);
      slow.received.splice(0);
      const mk = async (name: string, url: string) => {
        const res = await app.http.post('/api/webhook', { name, url, events: ['record.create'], model: 'fee-type' });
        expect(res.status, res.text).to.equal(200);
        return res.body.data.id as number;
      };
      const slowId = await mk('slow-2', `${slow.url}/in`);
      const fastId = await mk('fast-2', `${fast.url}/in`);
      const t0 = Date.now();
      // one create at a time, two deliveries each: small enough to be handed over, not claimed
      for (let i = 0; i < 40; i++) expect((await app.http.post('/api/fee-type', { feeType: `Handed ${i}` })).status).to.equal(200);
      const wrote = Date.now() - t0;
      await fast.until((r) => new Set(r.map((x) => x.json?.data?.recordId)).size >= 40, 30_000);
      const took = Date.now() - t0;
      console.log(`      [${dialect}] 40 single creates (${wrote} ms): the fast receiver had them all ${took} ms after the first`);
      expect(took - wrote).to.be.below(BOUND_MS / 2);
      const at = slow.received.map((r) => r.at);
      const together = Math.max(...at.map((t) => at.filter((u) => u <= t && u > t - 1500).length));
      expect(together, 'attempts open at once at the hanging receiver').to.be.at.most(4);
      await app.http.patch(`/api/webhook/${slowId}`, { enabled: false });
      await app.http.patch(`/api/webhook/${fastId}`, { enabled: false });
    });

    it('a webhook alone may use every sending slot; the share binds again once a second one is enabled', async () => {
      await app.close();
      app = await startTestApp(dialect, { database, env: ENV });
      slow.received.splice(0);
      const mk = async (name: string, url: string) => {
        const res = await app.http.post('/api/webhook', { name, url, events: ['record.create'], model: 'fee-type' });
        expect(res.status, res.text).to.equal(200);
        return res.body.data.id as number;
      };
      const openTogether = (since: number): number => {
        const at = slow.received.map((r) => r.at).filter((t) => t >= since);
        return Math.max(0, ...at.map((t) => at.filter((u) => u <= t && u > t - 1500).length));
      };
      const slowId = await mk('slow-alone', `${slow.url}/in`);
      // the only webhook enabled: nobody to keep room for, so all 8 slots (the old code: its share, 4)
      for (let i = 0; i < 12; i++) expect((await app.http.post('/api/fee-type', { feeType: `Alone ${i}` })).status).to.equal(200);
      await slow.until((r) => r.length >= 8, 10_000);
      expect(openTogether(0), 'attempts open at once at the only webhook').to.equal(8);
      // a second webhook: from now on the hanging one keeps to its share
      const fastId = await mk('fast-beside', `${fast.url}/in`);
      const since = Date.now();
      for (let i = 0; i < 12; i++) expect((await app.http.post('/api/fee-type', { feeType: `Beside ${i}` })).status).to.equal(200);
      await slow.until((r) => r.filter((x) => x.at >= since).length >= 8, 20_000);
      expect(openTogether(since), 'attempts open at once at the hanging webhook beside another').to.be.at.most(4);
      await app.http.patch(`/api/webhook/${slowId}`, { enabled: false });
      await app.http.patch(`/api/webhook/${fastId}`, { enabled: false });
    });
  });
}
