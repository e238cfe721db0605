/**
 * The claim's share per webhook (core/plugins/webhooks/store.ts claim): of each webhook at most `perHook`
 * less what the node holds of it already, oldest first; a webhook holding its share is passed over. The
 * room per webhook is one statement on all three databases (a row_number window); on PostgreSQL it once
 * failed whenever a webhook was partly held (its CASE was typed text), and the node claimed nothing.
 */
import { expect } from 'chai';
import type { WebhookStore } from '../../../core/plugins/webhooks/store';
import { DIALECTS } from '../../helpers/dialects';
import type { TestApp } from '../../helpers/test-app';
import { DELIVERIES, nodeWithDeliveries } from '../../helpers/webhook-deliveries';

for (const dialect of DIALECTS) {
  describe(`webhook claims: each webhook's share [${dialect}]`, function () {
    this.timeout(60_000);
    let app: TestApp;
    let store: WebhookStore;
    let first: number;
    let second: number;

    before(async () => {
      // no dispatcher here: nothing is claimed but by the test
      ({ app, store } = await nodeWithDeliveries(dialect, 'share-a', ['SA1', 'SA2', 'SA3', 'SA4', 'SA5', 'SA6']));
      const hook = await app.http.post('/api/webhook', { name: 'share-b', url: 'http://127.0.0.1:9/in', events: ['record.create'], model: 'institute' });
      expect(hook.status, hook.text).to.equal(200);
      second = hook.body.data.id;
      for (const code of ['SB1', 'SB2', 'SB3']) expect((await app.http.post('/api/institute', { name: `share ${code}`, code })).status).to.equal(200);
      first = Number(((await app.deps.db(DELIVERIES).whereNot('webhook_id', second).first('webhook_id')) as { webhook_id: number }).webhook_id);
    });
    after(async () => {
      await app?.close();
    });

    const ofHook = async (webhookId: number) => ((await app.deps.db(DELIVERIES).where('webhook_id', webhookId).orderBy('id').select('id')) as { id: number }[]).map((r) => Number(r.id));

    it('claims of each webhook up to its share less what is held, oldest first; passes over one holding its share', async () => {
      const a = await ofHook(first);
      const b = await ofHook(second);
      expect([a.length, b.length]).to.deep.equal([9, 3]);
      // the first webhook: one held here already, so 3 of its 9; the second: all 3 (under its 4)
      const one = await store.claim(20, 60_000, { perHook: 4, held: new Map([[first, 1]]) });
      expect(one.map((c) => c.id)).to.deep.equal([...a.slice(0, 3), ...b].sort((p, q) => p - q));
      // the first holds its share now: passed over; the second has nothing due left
      expect(await store.claim(20, 60_000, { perHook: 4, held: new Map([[first, 4], [second, 3]]) })).to.deep.equal([]);
      // the limit still bounds the claim as a whole
      const two = await store.claim(2, 60_000, { perHook: 4, held: new Map([[second, 3]]) });
      expect(two.map((c) => c.id)).to.deep.equal(a.slice(3, 5));
      // without a share, the rest
      expect((await store.claim(20, 60_000)).map((c) => c.id)).to.deep.equal(a.slice(5));
      const rows = (await app.deps.db(DELIVERIES).select('status')) as { status: string }[];
      expect(rows.every((r) => r.status === 'delivering')).to.equal(true);
    });
  });
}
