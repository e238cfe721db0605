/**
 * Issue 15, every database: webhook deliveries are the service's record of what it sent. An admin cannot
 * delete one (405, single or bulk; the one change is a resend); a finished delivery (succeeded or failed)
 * goes with its event when the outbox is pruned (EVENTS_RETENTION), an unfinished one stays.
 */
import { expect } from 'chai';
import { DIALECTS } from '../../helpers/dialects';
import type { TestApp } from '../../helpers/test-app';
import { nodeWithDeliveries } from '../../helpers/webhook-deliveries';

const DELIVERIES = 'webhook_deliveries';
const DAY = 86_400_000;

for (const dialect of DIALECTS) {
  describe(`webhook deliveries: kept as long as their event [${dialect}]`, () => {
    let app: TestApp;
    let ids: number[];
    before(async () => {
      ({ app, ids } = await nodeWithDeliveries(dialect, `retention-${dialect}`, ['ret1', 'ret2', 'ret3', 'ret4', 'ret5']));
    });
    after(async () => app?.close());

    it('DELETE of a delivery, single or bulk, answers 405 and keeps it', async () => {
      const one = await app.http.del(`/api/webhook-delivery/${ids[0]}`);
      expect(one.status, one.text).to.equal(405);
      expect(one.body.error.message).to.match(/cannot be deleted/);
      const bulk = await app.http.del('/api/webhook-delivery/bulk', [ids[0], ids[1]]);
      expect(bulk.status, bulk.text).to.equal(405);
      expect((await app.http.get(`/api/webhook-delivery/${ids[0]}`)).status).to.equal(200);
      expect(await app.deps.db(DELIVERIES).count({ n: '*' }).then((r) => Number(r[0].n))).to.equal(ids.length);
    });

    it('the outbox prune deletes finished deliveries older than the retention with their events; pending and younger ones stay', async () => {
      const now = new Date();
      const retention = 7 * DAY;
      const old = new Date(now.getTime() - retention - 60_000).toISOString();
      const set = (id: number, status: string, createdAt: string): Promise<number> => app.deps.db(DELIVERIES).where('id', id).update({ status, status__fold: status, created_at: createdAt });
      await set(ids[0], 'succeeded', old);
      await set(ids[1], 'failed', old);
      await set(ids[2], 'pending', old);
      await set(ids[3], 'delivering', old);
      await set(ids[4], 'succeeded', now.toISOString());
      await app.deps.events.prune(retention, now);
      const left = ((await app.deps.db(DELIVERIES).select('id').orderBy('id')) as { id: number }[]).map((r) => Number(r.id));
      expect(left).to.deep.equal([ids[2], ids[3], ids[4]]);
    });
  });
}
