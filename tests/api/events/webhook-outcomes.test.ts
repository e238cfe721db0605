/**
 * Attempt outcomes are written together (core/plugins/webhooks/store.ts finishAll, finish-batch.ts):
 * one UPDATE for a batch, each row only while this node still holds its lease, with the attempt log,
 * the count, the next attempt's time, the delivery time and the case-fold shadows each outcome needs.
 */
import { expect } from 'chai';
import type { Claimed, Finish, WebhookStore } from '../../../core/plugins/webhooks/store';
import { DIALECTS } from '../../helpers/dialects';
import { onEveryStatement } from '../../helpers/request-queries';
import type { TestApp } from '../../helpers/test-app';
import { DELIVERIES, nodeWithDeliveries } from '../../helpers/webhook-deliveries';
const LATER = '2030-01-01T00:00:05.000Z';

for (const dialect of DIALECTS) {
  describe(`webhook delivery outcomes, written in one statement [${dialect}]`, function () {
    this.timeout(60_000);
    let app: TestApp;
    let store: WebhookStore;
    let ids: number[];

    before(async () => {
      // no dispatcher here: the deliveries stay as the test sets them
      ({ app, store, ids } = await nodeWithDeliveries(dialect, 'outcomes', ['OUT1', 'OUT2', 'OUT3']));
    });
    after(async () => {
      await app?.close();
    });

    const claimedAs = async (id: number, token: string, earlier: unknown[]): Promise<Claimed> => {
      await app.deps.db(DELIVERIES).where({ id }).update({ status: 'delivering', status__fold: 'delivering', lease_token: token, lease_until: LATER, attempt_count: earlier.length, attempts: JSON.stringify(earlier) });
      const row = (await app.deps.db(DELIVERIES).where({ id }).first()) as Record<string, unknown>;
      return { id, webhookId: Number(row.webhook_id), eventId: Number(row.event_id), attemptCount: earlier.length, retryUntil: LATER, attempts: earlier, leaseToken: token };
    };
    const attempt = (at: string, status: number | null, error: string | null) => ({ at, status, durationMs: 3, error, response: status === null ? null : 'ok' });

    it('a success, a retry and a lease lost to another node: one UPDATE; each row as its outcome says, the lost one untouched', async () => {
      const first = attempt('2030-01-01T00:00:00.000Z', 503, 'receiver answered 503');
      const [ok, retry, lost] = [await claimedAs(ids[0], 'tok-a', []), await claimedAs(ids[1], 'tok-a', [first]), await claimedAs(ids[2], 'tok-b', [])];
      // another node took the third over (its lease ran out here): its token is no longer ours
      await app.deps.db(DELIVERIES).where({ id: ids[2] }).update({ lease_token: 'tok-other' });
      const items: Finish[] = [
        { claimed: ok, attempt: attempt('2030-01-01T00:00:01.000Z', 204, null), next: { status: 'succeeded', nextAttemptAt: null } },
        { claimed: retry, attempt: attempt('2030-01-01T00:00:02.000Z', null, 'Timed Out'), next: { status: 'pending', nextAttemptAt: '2030-01-01T00:01:00.000Z' } },
        { claimed: lost, attempt: attempt('2030-01-01T00:00:03.000Z', 204, null), next: { status: 'succeeded', nextAttemptAt: null } },
      ];
      const before = (await app.deps.db(DELIVERIES).where({ id: ids[1] }).first()) as Record<string, unknown>;
      const statements: string[] = [];
      const stop = onEveryStatement(app.deps, (q) => {
        if (q.sql.includes(DELIVERIES)) statements.push(q.sql);
      });
      try {
        await store.finishAll(items);
      } finally {
        stop();
      }
      expect(statements, statements.join('\n')).to.have.length(1);

      const read = async (id: number) => (await app.http.get(`/api/webhook-delivery/${id}`)).body;
      const a = await read(ids[0]);
      expect(a).to.include({ status: 'succeeded', attemptCount: 1, lastError: null });
      expect(Date.parse(a.deliveredAt)).to.equal(Date.parse('2030-01-01T00:00:01.000Z'));
      expect(a.attempts).to.deep.equal([items[0].attempt]);
      const b = await read(ids[1]);
      expect(b).to.include({ status: 'pending', attemptCount: 2, lastError: 'Timed Out', deliveredAt: null });
      expect(Date.parse(b.nextAttemptAt)).to.equal(Date.parse('2030-01-01T00:01:00.000Z'));
      expect(b.attempts).to.deep.equal([first, items[1].attempt]);
      expect(Date.parse(b.createdAt)).to.equal(Date.parse(String(before.created_at instanceof Date ? before.created_at.toISOString() : before.created_at)));
      const c = await read(ids[2]);
      expect(c).to.include({ status: 'delivering', attemptCount: 0, deliveredAt: null });
      expect(c.attempts).to.deep.equal([]);
      // the leases of the written rows are given back; the lost one keeps the other node's
      const leases = (await app.deps.db(DELIVERIES).select('id', 'lease_token', 'lease_until').orderBy('id')) as Record<string, unknown>[];
      expect(leases.map((r) => r.lease_token)).to.deep.equal([null, null, 'tok-other']);
      expect(leases[0].lease_until).to.equal(null);
      // the case-insensitive operators see what was written
      const byFold = async (q: string) => (await app.http.get(`/api/webhook-delivery?${q}&sort[0]=id`)).body.records.map((r: { id: number }) => r.id);
      expect(await byFold('filters[status][$eqi]=PENDING')).to.deep.equal([ids[1]]);
      expect(await byFold('filters[lastError][$containsi]=timed out')).to.deep.equal([ids[1]]);
      expect(await byFold('filters[status][$eqi]=Succeeded')).to.deep.equal([ids[0]]);
    });
  });
}
