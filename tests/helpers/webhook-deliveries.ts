/**
 * A node that records webhook deliveries but sends none (WEBHOOK_DELIVERY=false), with one delivery per
 * institute created: for tests that set deliveries' states by hand and call the store themselves.
 */
import { expect } from 'chai';
import { WebhookStore } from '../../core/plugins/webhooks/store';
import type { TestDialect } from './dialects';
import { startTestApp, type TestApp } from './test-app';

export const DELIVERIES = 'webhook_deliveries';

export async function nodeWithDeliveries(dialect: TestDialect, name: string, codes: readonly string[]): Promise<{ app: TestApp; store: WebhookStore; ids: number[] }> {
  const app = await startTestApp(dialect, { env: { WEBHOOK_ALLOW_HOSTS: '127.0.0.1', WEBHOOK_DELIVERY: 'false' } });
  const hook = await app.http.post('/api/webhook', { name, url: 'http://127.0.0.1:9/in', events: ['record.create'], model: 'institute' });
  expect(hook.status, hook.text).to.equal(200);
  for (const code of codes) expect((await app.http.post('/api/institute', { name: `${name} ${code}`, code })).status).to.equal(200);
  const ids = ((await app.deps.db(DELIVERIES).select('id').orderBy('id')) as { id: number }[]).map((r) => Number(r.id));
  expect(ids).to.have.length(codes.length);
  return { app, store: new WebhookStore(app.deps), ids };
}
