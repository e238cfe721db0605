/**
 * The webhooks plugin (issue 15): admin-only models `webhook` and `webhook-delivery` (served by the
 * record API), deliveries created in the transaction of each event (fanout.ts, from the in-memory list of
 * enabled webhooks of hook-cache.ts, checked by the outbox INSERT), sent by one node each (dispatcher.ts:
 * the writing node's, handed over at commit, or claimed), signed per Standard Webhooks (signature.ts),
 * behind an SSRF guard (ssrf.ts).
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Plugin, PluginDeps } from '../../plugin-api';
import { syncWebhookFile } from './config-file';
import { Dispatcher } from './dispatcher';
import { fanOut } from './fanout';
import { webhookModelHooks } from './model-hooks';
import { WebhookCache } from './hook-cache';
import { WEBHOOK, WebhookStore } from './store';

function contentTypesDir(): string {
  let dir = __dirname;
  while (!existsSync(join(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir);
  return join(dir, 'core', 'plugins', 'webhooks', 'content-types');
}

export function webhooks(): Plugin {
  const stores = new Map<PluginDeps['db'], WebhookStore>();
  const storeOf = (deps: PluginDeps): WebhookStore => {
    let s = stores.get(deps.db);
    if (!s) {
      s = new WebhookStore(deps);
      stores.set(deps.db, s);
    }
    return s;
  };
  const dispatchers: Dispatcher[] = [];
  return {
    name: 'webhooks',
    contentTypesDir: contentTypesDir(),
    hooks: (deps) => webhookModelHooks(storeOf(deps), deps.config.webhooks, () => dispatchers.forEach((d) => d.look())),
    bootstrap: async (deps) => syncWebhookFile(storeOf(deps), deps.config.webhooks),
    // Called once per server (createApp): the fan-out joins the event pipeline; the dispatcher starts.
    routes: (_router, deps) => {
      const { events } = deps;
      if (!events) return;
      const store = storeOf(deps);
      const cache = new WebhookCache(store, deps.config.events.pollMs);
      const dispatcher = deps.config.webhooks.deliver ? new Dispatcher(store, events, deps.config.webhooks, deps.log, cache) : null;
      events.onAppend(fanOut(store, cache, deps.config.webhooks.retryForMs, dispatcher), events.versionProbe(WEBHOOK));
      // a finished delivery lives as long as its event (EVENTS_RETENTION): resending it needs the event
      events.onPrune((db, before) => store.pruneFinished(db, before));
      if (dispatcher) {
        dispatchers.push(dispatcher);
        dispatcher.start();
      }
    },
    async close() {
      await Promise.all(dispatchers.map((d) => d.close()));
      dispatchers.splice(0);
      stores.clear();
    },
  };
}
