/**
 * When the dispatcher next looks (core/plugins/webhooks/store.ts nextDue): the earliest of the pending
 * deliveries' next attempts and the delivering ones' lease ends, read in one statement. Read in two, an
 * outcome (delivering → pending) committing between them was seen by neither: the node went idle with a
 * retry due, and sent it up to IDLE_POLL_MS late (a timing failure of the retry tests under load).
 */
import { expect } from 'chai';
import type { WebhookStore } from '../../../core/plugins/webhooks/store';
import { DIALECTS } from '../../helpers/dialects';
import { onEveryStatement } from '../../helpers/request-queries';
import type { TestApp } from '../../helpers/test-app';
import { DELIVERIES, nodeWithDeliveries } from '../../helpers/webhook-deliveries';

for (const dialect of DIALECTS) {
  describe(`webhook deliveries: when the next one falls due [${dialect}]`, function () {
    this.timeout(60_000);
    let app: TestApp;
    let store: WebhookStore;
    let ids: number[];

    before(async () => {
      // no dispatcher here: the deliveries stay as the test sets them
      ({ app, store, ids } = await nodeWithDeliveries(dialect, 'due', ['DUE1', 'DUE2']));
    });
    after(async () => {
      await app?.close();
    });

    const set = (id: number, row: Record<string, unknown>) => app.deps.db(DELIVERIES).where({ id }).update(row);
    const T1 = '2030-01-01T00:00:01.000Z';
    const T2 = '2030-01-01T00:00:02.000Z';

    it('the earlier of a pending next attempt and a delivering lease end, in one statement', async () => {
      await set(ids[0], { status: 'pending', next_attempt_at: T2 });
      await set(ids[1], { status: 'delivering', lease_until: T1, next_attempt_at: '2000-01-01T00:00:00.000Z' });
      const statements: string[] = [];
      // (the service's own background work, event pruning say, may use the connections meanwhile)
      const stop = onEveryStatement(app.deps, (q) => {
        if (q.sql.includes(DELIVERIES)) statements.push(q.sql);
      });
      try {
        expect(await store.nextDue()).to.equal(Date.parse(T1));
      } finally {
        stop();
      }
      expect(statements, statements.join('\n')).to.have.length(1);
      await set(ids[1], { status: 'delivering', lease_until: '2030-01-01T00:00:03.000Z' });
      expect(await store.nextDue(), 'the pending one first').to.equal(Date.parse(T2));
    });

    it('a pending delivery waiting for an earlier one of its record counts for nothing; the earlier one\'s time stands', async () => {
      const [first] = (await app.deps.db(DELIVERIES).where({ id: ids[0] }).select('record_id', 'model')) as { record_id: number; model: string }[];
      const other = (await app.deps.db(DELIVERIES).where({ id: ids[1] }).first()) as { record_id: number };
      try {
        // the second delivery is now of the first's record: it waits while the first retries
        await app.deps.db(DELIVERIES).where({ id: ids[1] }).update({ record_id: first.record_id, model: first.model });
        await set(ids[0], { status: 'pending', next_attempt_at: T2 });
        await set(ids[1], { status: 'pending', next_attempt_at: '2000-01-01T00:00:00.000Z' });
        expect(await store.nextDue(), 'the earlier delivery\'s retry, not the waiting one\'s past time').to.equal(Date.parse(T2));
        await set(ids[0], { status: 'delivering', lease_until: T1 });
        expect(await store.nextDue()).to.equal(Date.parse(T1));
        // once the earlier one is finished, the waiting one is due
        await set(ids[0], { status: 'succeeded' });
        expect(await store.nextDue()).to.equal(Date.parse('2000-01-01T00:00:00.000Z'));
      } finally {
        await app.deps.db(DELIVERIES).where({ id: ids[1] }).update({ record_id: other.record_id });
      }
    });

    it('a finished delivery counts for nothing; none unfinished: null', async () => {
      await set(ids[0], { status: 'succeeded', next_attempt_at: T1 });
      await set(ids[1], { status: 'pending', next_attempt_at: T2 });
      expect(await store.nextDue()).to.equal(Date.parse(T2));
      await set(ids[1], { status: 'failed' });
      expect(await store.nextDue()).to.equal(null);
    });
  });
}
