/**
 * Issue 15, webhooks: the delivering process is killed (SIGKILL) in the middle of a delivery; a
 * restarted process takes the delivery over once its lease has run out. Every event is delivered at
 * least once, in order per record, none lost.
 */
import { expect } from 'chai';
import { DIALECTS } from '../../helpers/dialects';
import { startReceiver, type Receiver } from '../../helpers/webhook-receiver';
import { freshDatabase, type FreshDatabase } from '../../hardening/helpers/fresh-service';
import { startServerProcess, type ServerProcess } from '../../hardening/helpers/server-process';

const ENV = {
  LOG_LEVEL: 'warn',
  WEBHOOK_ALLOW_HOSTS: '127.0.0.1',
  WEBHOOK_TIMEOUT: '3s',
  WEBHOOK_LEASE: '1s', // raised to WEBHOOK_TIMEOUT + 1 s
  WEBHOOK_BACKOFF_BASE: '50ms',
  WEBHOOK_BACKOFF_MAX: '200ms',
  WEBHOOK_POLL_INTERVAL: '100ms',
};

async function call(node: ServerProcess, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(node.url + path, { method, headers: { authorization: `Bearer ${node.token}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: res.status, body: await res.json() };
}

for (const dialect of DIALECTS) {
  describe(`webhooks: kill -9 of the delivering process [${dialect}]`, function () {
    this.timeout(120_000);
    let fresh: FreshDatabase;
    let rx: Receiver;
    const nodes: ServerProcess[] = [];

    before(async () => {
      fresh = await freshDatabase(dialect);
      rx = await startReceiver();
    });
    after(async () => {
      for (const n of nodes) if (n.proc.exitCode === null && n.proc.signalCode === null) n.kill('SIGKILL');
      await Promise.all(nodes.map((n) => n.exited));
      await rx?.close();
      await fresh?.drop();
    });

    it('a restarted node delivers the interrupted delivery and the rest: at least once, in order per record', async () => {
      const a = await startServerProcess({ ...fresh.env, ...ENV });
      nodes.push(a);
      const hook = await call(a, 'POST', '/api/webhook', { name: 'crash', url: `${rx.url}/in`, events: ['record.*'], model: 'fee-type' });
      expect(hook.status).to.equal(200);
      // the first request is never answered: node A is mid-delivery when it dies
      rx.respond = (_r, n) => (n === 0 ? 'hang' : 200);
      const x = (await call(a, 'POST', '/api/fee-type', { feeType: 'Crash X' })).body.data.id;
      for (let i = 1; i <= 3; i++) expect((await call(a, 'PATCH', `/api/fee-type/${x}`, { latePaymentFees: i })).status).to.equal(200);
      const y = (await call(a, 'POST', '/api/fee-type', { feeType: 'Crash Y' })).body.data.id;
      for (let i = 1; i <= 2; i++) await call(a, 'PATCH', `/api/fee-type/${y}`, { latePaymentFees: i });
      // X's first delivery hangs; Y's go through meanwhile (they do not wait for another record)
      await rx.until((r) => r.filter((e) => e.json?.data?.recordId === y).length === 3, 5000);
      expect(rx.received[0].json.data).to.include({ recordId: x });
      expect(rx.received[0].json.type).to.equal('record.create');
      a.kill('SIGKILL');
      expect(await a.exited).to.equal('SIGKILL');
      const hungEventId = rx.received[0].json.data.eventId;

      const b = await startServerProcess({ ...fresh.env, ...ENV, AUTO_MIGRATE: 'false' });
      nodes.push(b);
      await rx.until((r) => r.filter((e) => e.json?.data?.recordId === x).length >= 5, 30_000);
      await new Promise((r) => setTimeout(r, 300));

      // every event of the outbox for these records reached the receiver with a 2xx answer at least once
      const answered = rx.received.slice(1); // all but the hung request were answered 200
      const events = fresh.inspect()('event_outbox').where('model', 'fee-type').orderBy('id');
      const eventIds = ((await events) as { id: number }[]).map((e) => Number(e.id));
      expect(eventIds).to.have.length(7);
      expect([...new Set(answered.map((r) => r.json.data.eventId))].sort((p, q) => p - q)).to.deep.equal(eventIds);
      // in order per record, the interrupted one first
      const order = (rid: number) => answered.filter((r) => r.json.data.recordId === rid).map((r) => r.json.data.eventId);
      const ox = order(x);
      expect(ox[0]).to.equal(hungEventId);
      expect(ox).to.deep.equal([...ox].sort((p, q) => p - q));
      expect(order(y)).to.deep.equal([...order(y)].sort((p, q) => p - q));
      // the interrupted delivery was sent again under the same webhook-id (receivers deduplicate on it)
      const hungId = rx.received[0].headers['webhook-id'];
      expect(answered.filter((r) => r.headers['webhook-id'] === hungId)).to.have.length(1);
      const list = (await call(b, 'GET', `/api/webhook-delivery?filters[webhookId][$eq]=${hook.body.data.id}&limit=100`)).body.records as any[];
      expect(list.map((d) => d.status)).to.deep.equal(Array(7).fill('succeeded'));
    });
  });
}
