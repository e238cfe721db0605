/**
 * The commit signal reaches the nodes of one deployment only. On PostgreSQL every deployment listened on
 * one channel (`ris_events`) whatever its DATABASE_SCHEMA, so two deployments sharing a database in
 * different schemas (staging beside production, a schema per tenant) woke each other's nodes on every
 * write: a webhook claim and an outbox read there each time, for events that were not theirs. Each schema
 * now has its own channel (database/dialects/postgres-notify.ts `eventsChannel`); the nodes of one
 * deployment still wake each other at once.
 */
import { expect } from 'chai';
import { DIALECTS } from '../../helpers/dialects';
import { onEveryStatement } from '../../helpers/request-queries';
import { startTestApp, type TestApp } from '../../helpers/test-app';
import { createTestDatabase, type TestDatabase } from '../../helpers/test-db';
import { startReceiver, type Receiver } from '../../helpers/webhook-receiver';

/** Long polls: a statement in the windows below comes from a signal, not from a timer. */
const ENV = { WEBHOOK_ALLOW_HOSTS: '127.0.0.1', WEBHOOK_POLL_INTERVAL: '30s', EVENTS_POLL_INTERVAL: '30s' };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

for (const dialect of DIALECTS) {
  describe(`the commit signal stays within its deployment [${dialect}]`, function () {
    this.timeout(60_000);
    let rx: Receiver;
    let other: TestDatabase;
    let mine: TestDatabase;
    let otherApp: TestApp;
    let node: TestApp;
    let peer: TestApp;

    before(async () => {
      rx = await startReceiver();
      // on PostgreSQL: two schemas of one database; elsewhere two databases
      other = await createTestDatabase(dialect);
      mine = await createTestDatabase(dialect);
      otherApp = await startTestApp(dialect, { database: other, env: ENV });
      node = await startTestApp(dialect, { database: mine, env: ENV });
      peer = await startTestApp(dialect, { database: mine, env: ENV });
    });
    after(async () => {
      await peer?.close();
      await node?.close();
      await otherApp?.close();
      await mine?.drop();
      await other?.drop();
      await rx?.close();
    });

    const create = async (app: TestApp, feeType: string): Promise<number> => {
      const res = await app.http.post('/api/fee-type', { feeType });
      expect(res.status, res.text).to.equal(200);
      return res.body.data.id as number;
    };
    const statementsOf = async (app: TestApp, fn: () => Promise<unknown>): Promise<string[]> => {
      const sql: string[] = [];
      const stop = onEveryStatement(app.deps, (q: { sql: string }) => sql.push(q.sql));
      try {
        await fn();
      } finally {
        stop();
      }
      return sql;
    };

    it("another deployment's writes wake none of this one's nodes; its own nodes' writes do", async () => {
      // a webhook here: any wake makes this node look for deliveries to claim
      const hook = await node.http.post('/api/webhook', { name: 'scope', url: `${rx.url}/in`, events: ['record.create'], model: 'fee-type' });
      expect(hook.status, hook.text).to.equal(200);
      const id = await create(node, 'Scope here');
      await rx.until((r) => r.some((x) => x.json?.data?.recordId === id), 5000);
      await sleep(500); // the looks the webhook and that write caused are over
      const woken = await statementsOf(node, async () => {
        for (let i = 0; i < 5; i++) await create(otherApp, `Scope elsewhere ${i}`);
        await sleep(1000);
      });
      expect(woken, woken.join('\n')).to.deep.equal([]);
      if (node.deps.events.signalKind === 'none') return; // SQLite, MariaDB without Redis: no signal at all
      // the other node of this deployment still wakes it: it looks for deliveries within the second
      const looked = await statementsOf(node, async () => {
        await create(peer, 'Scope from the peer');
        await sleep(1000);
      });
      expect(looked.filter((s) => /webhook_deliveries/.test(s)), looked.join('\n')).to.not.deep.equal([]);
    });
  });
}
