/**
 * Issue 15: the webhooks declared in WEBHOOK_CONFIG_FILE, applied at every start of every node as a diff in one
 * transaction, each change announced as the record API's webhook writes are (a `webhook` event: to the outbox
 * and realtime, sent by no webhook), by the system (actor null):
 * - the first start creates the declared webhooks: a `record.create` each, the FindOne answer (no secret);
 * - a restart with the same file (or the same webhooks written differently) writes and announces nothing: same
 *   ids, same updatedAt, same secrets;
 * - a changed file updates (id and secret kept), creates and deletes only what changed, each announced;
 *   webhooks made through the API are never touched; a declared name an API webhook holds stops the start;
 *   a `config` webhook changed through the API is put back at the next start (its `record.update`);
 * - a node already running sees the change at its next write (its webhook list: hook-cache.ts);
 * - two nodes applying at once write and announce each change once, and neither fails.
 */
import { expect } from 'chai';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StoredEvent } from '../../../core/events/types';
import { syncWebhookFile } from '../../../core/plugins/webhooks/config-file';
import { WebhookStore } from '../../../core/plugins/webhooks/store';
import { DIALECTS } from '../../helpers/dialects';
import { startTestApp, type TestApp } from '../../helpers/test-app';
import { createTestDatabase, type TestDatabase } from '../../helpers/test-db';

const secret = (n: number): string => 'whsec_' + Buffer.alloc(32, n).toString('base64');

// Nothing is sent: every node here records deliveries only (WEBHOOK_DELIVERY=false), and the hosts are fake.
const ENV = { WEBHOOK_DELIVERY: 'false' };

const V1 = `
webhooks:
  - name: alpha
    url: https://alpha.example.com/in
    events: [record.create, record.update]
    secret: ${secret(1)}
  - name: beta
    url: https://beta.example.com/in
    events: ['*']
    model: institute
    secretEnv: TEST_HOOK_BETA_SECRET
  - name: gamma
    url: https://gamma.example.com/in
    events: [record.delete]
    enabled: false
    secret: ${secret(3)}
`;

// V1 written differently: other order of webhooks and keys, flow style, defaults spelled out. The same webhooks.
const V1_AGAIN = `
# the same webhooks as before
webhooks:
  - { name: gamma, enabled: false, events: [record.delete], url: 'https://gamma.example.com/in', secret: '${secret(3)}' }
  - name: beta
    secretEnv: TEST_HOOK_BETA_SECRET
    model: institute
    events: ['*']
    url: https://beta.example.com/in
  - name: alpha
    enabled: true
    secret: ${secret(1)}
    url: https://alpha.example.com/in
    events: [record.create, record.update]
`;

const V2 = `
webhooks:
  - name: alpha                              # changed: updated (id and secret kept)
    url: https://alpha.example.com/v2
    events: [record.create, record.update, record.delete]
    secret: ${secret(1)}
  - name: beta                               # unchanged: kept
    url: https://beta.example.com/in
    events: ['*']
    model: institute
    secretEnv: TEST_HOOK_BETA_SECRET
  # gamma dropped: deleted
  - name: delta                              # new: created
    url: https://delta.example.com/in
    events: [record.create]
    model: institute
    secret: ${secret(4)}
`;

const V3 = `${V2}  - name: epsilon
    url: https://epsilon.example.com/in
    events: [record.create]
    model: institute
    secret: ${secret(5)}
`;

for (const dialect of DIALECTS) {
  describe(`webhooks: WEBHOOK_CONFIG_FILE, applied as a diff and announced [${dialect}]`, function () {
    this.timeout(60_000);
    let database: TestDatabase;
    let app: TestApp;
    let file: string;

    const start = async (text: string): Promise<void> => {
      writeFileSync(file, text);
      await app?.close();
      app = await startTestApp(dialect, { database, env: { ...ENV, WEBHOOK_CONFIG_FILE: file } });
    };
    const hookEvents = async (mark: number): Promise<StoredEvent[]> => (await app.deps.events.readAfter(mark, 10_000)).filter((e) => e.model === 'webhook');
    const hooks = async (source?: 'config' | 'api'): Promise<Record<string, unknown>[]> => {
      const res = await app.http.get(`/api/webhook?sort[0]=id&limit=100${source ? `&filters[source][$eq]=${source}` : ''}`);
      expect(res.status, res.text).to.equal(200);
      return res.body.records as Record<string, unknown>[];
    };
    const read = async (id: unknown): Promise<Record<string, unknown>> => {
      const res = await app.http.get(`/api/webhook/${id}`);
      expect(res.status, res.text).to.equal(200);
      return res.body as Record<string, unknown>;
    };
    /** Secrets are private (no answer shows them): read from the table. */
    const secrets = async (): Promise<Record<string, string | null>> => {
      const store = new WebhookStore(app.deps);
      const rows = (await app.deps.db(store.hooks.table).select('id', `${store.col(store.hooks, 'name')} as name`, `${store.col(store.hooks, 'secret')} as secret`)) as { name: string; secret: string | null }[];
      return Object.fromEntries(rows.map((r) => [r.name, r.secret]));
    };
    const named = (list: Record<string, unknown>[], name: string): Record<string, unknown> => {
      const found = list.filter((w) => w.name === name);
      expect(found, name).to.have.length(1);
      return found[0];
    };

    before(async () => {
      database = await createTestDatabase(dialect);
      file = join(mkdtempSync(join(tmpdir(), 'webhook-file-')), 'webhooks.yaml');
      // `secretEnv` names a variable of the process
      process.env.TEST_HOOK_BETA_SECRET = secret(2);
    });
    after(async () => {
      delete process.env.TEST_HOOK_BETA_SECRET;
      await app?.close();
      await database?.drop();
    });

    it('the first start creates the declared webhooks: record.create each, by the system, the FindOne answer as the API announces it', async () => {
      await start(V1);
      const stored = await hooks('config');
      expect(stored.map((w) => w.name)).to.deep.equal(['alpha', 'beta', 'gamma']);
      expect(named(stored, 'beta')).to.include({ url: 'https://beta.example.com/in', model: 'institute', enabled: true, source: 'config' });
      expect(named(stored, 'gamma')).to.include({ enabled: false });
      const events = await hookEvents(0);
      expect(events.map((e) => [e.type, e.model, e.recordId, e.actor])).to.deep.equal(stored.map((w) => ['record.create', 'webhook', w.id, null]));
      for (const e of events) {
        expect(e.record, `webhook ${e.recordId}`).to.deep.equal(await read(e.recordId));
        expect(e.record).to.not.have.property('secret');
      }
      expect(await secrets()).to.include({ alpha: secret(1), beta: secret(2), gamma: secret(3) });
      // the record of a webhook made through the API has the same fields
      const mark = await app.deps.events.latestId();
      const made = await app.http.post('/api/webhook', { name: 'by-hand', url: 'https://hand.example.com/in', events: ['record.create'] });
      expect(made.status, made.text).to.equal(200);
      const [apiEvent] = await hookEvents(mark);
      expect(apiEvent).to.include({ type: 'record.create', recordId: made.body.data.id });
      expect(Object.keys(events[0].record as object)).to.deep.equal(Object.keys(apiEvent.record as object));
    });

    it('a restart with the same file (or the same webhooks written differently) writes and announces nothing; ids, rows and secrets stay', async () => {
      const before = await hooks();
      const keys = await secrets();
      for (const text of [V1, V1_AGAIN]) {
        const mark = await app.deps.events.latestId();
        await start(text);
        expect(await hookEvents(mark), text === V1 ? 'same file' : 'same webhooks').to.deep.equal([]);
        expect(await hooks(), 'same ids, same updatedAt').to.deep.equal(before);
        expect(await secrets(), 'same secrets').to.deep.equal(keys);
      }
    });

    it('a changed file updates, creates and deletes only what changed, each announced; webhooks made through the API stay as they were', async () => {
      const old = await hooks('config');
      const api = await hooks('api');
      expect(api.map((w) => w.name)).to.deep.equal(['by-hand']);
      const keys = await secrets();
      const alpha = named(old, 'alpha');
      const beta = named(old, 'beta');
      const gamma = named(old, 'gamma');
      const gammaRecord = await read(gamma.id);

      const mark = await app.deps.events.latestId();
      await start(V2);
      const now = await hooks('config');
      expect(now.map((w) => w.name)).to.deep.equal(['alpha', 'beta', 'delta']);
      expect(named(now, 'alpha')).to.include({ id: alpha.id, url: 'https://alpha.example.com/v2' }).and.to.have.deep.property('events', ['record.create', 'record.update', 'record.delete']);
      expect(named(now, 'beta'), 'unchanged: kept as it was').to.deep.equal(beta);
      const delta = named(now, 'delta');
      expect(delta.id).to.be.above(Math.max(...[...old, ...api].map((w) => w.id as number)));
      expect(await hooks('api'), 'API webhooks untouched').to.deep.equal(api);
      const after = await secrets();
      expect(after, 'secrets kept').to.include({ alpha: keys.alpha, beta: keys.beta, 'by-hand': keys['by-hand'], delta: secret(4) });
      expect(after).to.not.have.property('gamma');

      const events = await hookEvents(mark);
      expect(events.map((e) => [e.type, e.model, e.recordId, e.actor])).to.deep.equal([
        ['record.delete', 'webhook', gamma.id, null],
        ['record.update', 'webhook', alpha.id, null],
        ['record.create', 'webhook', delta.id, null],
      ]);
      expect(events[0].record, 'the deleted webhook as it was').to.deep.equal(gammaRecord);
      for (const e of events.slice(1)) expect(e.record, `${e.type} ${e.recordId}`).to.deep.equal(await read(e.recordId));
      expect((await app.http.get(`/api/webhook/${gamma.id}`)).status).to.equal(404);
    });

    it('a declared webhook changed through the API is put back at the next start (record.update); a declared name an API webhook holds stops the start', async () => {
      const before = await hooks('config');
      const alpha = named(before, 'alpha');
      expect((await app.http.patch(`/api/webhook/${alpha.id}`, { enabled: false, url: 'https://elsewhere.example.com/' })).status).to.equal(200);
      const mark = await app.deps.events.latestId();
      await start(V2);
      expect((await hookEvents(mark)).map((e) => [e.type, e.recordId])).to.deep.equal([['record.update', alpha.id]]);
      expect(named(await hooks('config'), 'alpha')).to.include({ id: alpha.id, enabled: true, url: 'https://alpha.example.com/v2' });

      // a file naming the API webhook `by-hand`: not taken over, not ignored
      const api = await hooks('api');
      const clash = `${V2}  - { name: by-hand, url: 'https://file.example.com/', events: ['*'], secret: '${secret(6)}' }\n`;
      const keys = await secrets();
      const mark2 = await app.deps.events.latestId();
      await app.close();
      writeFileSync(file, clash);
      let failed: unknown = null;
      try {
        app = await startTestApp(dialect, { database, env: { ...ENV, WEBHOOK_CONFIG_FILE: file } });
      } catch (e) {
        failed = e;
      }
      expect(String(failed)).to.match(/webhook "by-hand" \(id \d+\) was made through the API/);
      writeFileSync(file, V2);
      app = await startTestApp(dialect, { database, env: { ...ENV, WEBHOOK_CONFIG_FILE: file } });
      expect(await hooks('api')).to.deep.equal(api);
      expect(await secrets()).to.deep.equal(keys);
      expect(await hookEvents(mark2)).to.deep.equal([]);
    });

    it('a node already running sees the change at its next write (its webhook list is told by the events)', async () => {
      // `app` keeps its webhook list for a minute unless told otherwise
      await app.close();
      writeFileSync(file, V2);
      app = await startTestApp(dialect, { database, env: { ...ENV, WEBHOOK_CONFIG_FILE: file, EVENTS_POLL_INTERVAL: '60s' } });
      const deliveries = async (name: string): Promise<unknown[]> => {
        const id = named(await hooks(), name).id;
        return (await app.http.get(`/api/webhook-delivery?filters[webhookId][$eq]=${id}&limit=100`)).body.records as unknown[];
      };
      // a write: the list is loaded (beta and delta get it)
      expect((await app.http.post('/api/institute', { name: 'Before', code: 'BEF' })).status).to.equal(200);
      expect(await deliveries('delta')).to.have.length(1);
      // another node starts with V3 (epsilon added), then `app` writes at once
      writeFileSync(file, V3);
      const other = await startTestApp(dialect, { database, env: { ...ENV, WEBHOOK_CONFIG_FILE: file } });
      try {
        expect((await app.http.post('/api/institute', { name: 'After', code: 'AFT' })).status).to.equal(200);
        expect(await deliveries('epsilon'), 'the new webhook gets the write').to.have.length(1);
        expect(await deliveries('delta')).to.have.length(2);
      } finally {
        await other.close();
      }
    });

    it('two nodes applying a changed file at once write and announce each change once; neither fails', async () => {
      writeFileSync(file, V3);
      await start(V3);
      const second = await startTestApp(dialect, { database, env: { ...ENV, WEBHOOK_CONFIG_FILE: file } });
      try {
        const stores = [app, second].map((a) => new WebhookStore(a.deps));
        const v3 = await hooks('config');
        // a dozen new ones first (as on a fresh database: two appliers both decide to insert them), beta changed
        const added = Array.from({ length: 12 }, (_, i) => `zeta-${i + 1}`);
        const fresh = added.map((n, i) => `  - { name: ${n}, url: 'https://${n}.example.com/', events: ['*'], secret: '${secret(10 + i)}' }\n`).join('');
        const next = V3.replace('https://beta.example.com/in', 'https://beta.example.com/v4').replace('webhooks:\n', `webhooks:\n${fresh}`);
        writeFileSync(file, next);
        const mark = await app.deps.events.latestId();
        const settled = await Promise.allSettled([0, 1, 0, 1, 0, 1].map((i) => syncWebhookFile(stores[i], { ...app.deps.config.webhooks, configFile: file })));
        expect(settled.filter((r) => r.status === 'rejected').map((r) => String((r as PromiseRejectedResult).reason)), 'none fails').to.deep.equal([]);
        const v4 = await hooks('config');
        expect(v4.map((w) => w.name), 'each new webhook stored once').to.deep.equal([...v3.map((w) => w.name), ...added]);
        const beta = named(v4, 'beta');
        expect(beta).to.include({ id: named(v3, 'beta').id, url: 'https://beta.example.com/v4' });
        const events = await hookEvents(mark);
        expect(events.map((e) => [e.type, e.recordId])).to.deep.equal([
          ['record.update', beta.id],
          ...added.map((n) => ['record.create', named(v4, n).id]),
        ]);
        // one applier did the work, the five others found it done
        const results = settled.map((r) => (r as PromiseFulfilledResult<Awaited<ReturnType<typeof syncWebhookFile>>>).value);
        expect(results.map((r) => [r?.created, r?.updated, r?.deleted].join()).sort()).to.deep.equal(['0,0,0', '0,0,0', '0,0,0', '0,0,0', '0,0,0', '12,1,0']);
      } finally {
        await second.close();
      }
    });

    it('a declared webhook that could never fire stops the start, naming it and the field: a webhook model, an event its model never carries, an event twice', async () => {
      const cases: [string, RegExp][] = [
        [`model: webhook`, /webhooks\[0\]: model no webhook is sent events of "webhook"/],
        [`model: webhook-delivery`, /webhooks\[0\]: model no webhook is sent events of "webhook-delivery"/],
        [`model: institute\n    events: [session.revoke]`, /webhooks\[0\]: events "session.revoke" never carries model "institute"/],
        [`model: fee-type\n    events: [record.create, record.publish]`, /webhooks\[0\]: events "record.publish" never carries model "fee-type"/],
        [`events: [record.create, record.create]`, /webhooks\[0\]: events lists "record.create" more than once/],
      ];
      await app?.close();
      for (const [extra, message] of cases) {
        const events = extra.includes('events:') ? '' : `\n    events: [record.create]`;
        writeFileSync(file, `webhooks:\n  - name: never\n    url: https://never.example.com/in\n    secret: ${secret(9)}${events}\n    ${extra}\n`);
        let failed: unknown = null;
        try {
          app = await startTestApp(dialect, { database, env: { ...ENV, WEBHOOK_CONFIG_FILE: file } });
        } catch (e) {
          failed = e;
        }
        expect(String(failed), extra).to.match(message);
      }
      // the same webhook, well formed, starts
      await start(`webhooks:\n  - name: never\n    url: https://never.example.com/in\n    secret: ${secret(9)}\n    events: [record.create, record.recover]\n    model: fee-type\n`);
      expect(named(await hooks('config'), 'never')).to.include({ model: 'fee-type' });
    });
  });
}
