/**
 * The `webhook-id` a receiver deduplicates on (README) is unique across deployments: two deployments (or one
 * whose database was reset) whose delivery ids overlap send different ids for their deliveries. It was
 * `msg_<delivery id>`: both sent `msg_1`, and the receiver dropped the second as a duplicate.
 */
import { expect } from 'chai';
import { DIALECTS } from '../../helpers/dialects';
import { startTestApp, type TestApp } from '../../helpers/test-app';
import { createTestDatabase, type TestDatabase } from '../../helpers/test-db';
import { startReceiver, type Receiver } from '../../helpers/webhook-receiver';

const ENV = { WEBHOOK_ALLOW_HOSTS: '127.0.0.1', WEBHOOK_POLL_INTERVAL: '50ms' };

for (const dialect of DIALECTS) {
  describe(`webhook-id across deployments [${dialect}]`, function () {
    this.timeout(60_000);
    const apps: TestApp[] = [];
    const databases: TestDatabase[] = [];
    let rx: Receiver;

    before(async () => {
      rx = await startReceiver();
      for (let i = 0; i < 2; i++) {
        const database = await createTestDatabase(dialect);
        databases.push(database);
        apps.push(await startTestApp(dialect, { database, env: ENV }));
      }
    });
    after(async () => {
      for (const app of apps) await app.close();
      for (const d of databases) await d.drop();
      await rx?.close();
    });

    it('two deployments with the same delivery ids send different webhook-ids, each msg_<delivery id>_<event time in ms>', async () => {
      const deliveries: any[] = [];
      for (const [i, app] of apps.entries()) {
        const hook = await app.http.post('/api/webhook', { name: 'dedupe', url: `${rx.url}/in`, events: ['record.create'], model: 'fee-type' });
        expect(hook.status, hook.text).to.equal(200);
        await app.http.post('/api/fee-type', { feeType: `Deployment ${i}` });
        await rx.until((r) => r.length >= i + 1);
        deliveries.push((await app.http.get(`/api/webhook-delivery?filters[webhookId][$eq]=${hook.body.data.id}`)).body.records[0]);
        // a millisecond apart at least: the event times differ
        await new Promise((r) => setTimeout(r, 5));
      }
      // the same delivery id in both deployments (each database is fresh)
      expect(deliveries[0].id).to.equal(deliveries[1].id);
      const ids = rx.received.map((r) => String(r.headers['webhook-id']));
      expect(ids.map((id, i) => id === `msg_${deliveries[i].id}_${Date.parse(rx.received[i].json.timestamp)}`)).to.deep.equal([true, true]);
      expect(ids[0]).to.not.equal(ids[1]);
    });
  });
}
