/**
 * The webhooks plugin (issue 15): admin-only models `webhook` and `webhook-delivery` (served by the
 * record API), deliveries created in the transaction of each event, in every process that appends one
 * (the `events` hook: servers and the admin CLI; fanout.ts, from the in-memory list of
 * enabled webhooks of hook-cache.ts, checked by the outbox INSERT), sent by one node each (dispatcher.ts:
 * the writing node's, handed over at commit, or claimed), signed per Standard Webhooks (signature.ts),
 * behind an SSRF guard (ssrf.ts).
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { EventPipeline, Plugin, PluginDeps } from '../../plugin-api';
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

/** One database's webhook machinery in this process: the fan-out's (every process) and the dispatcher (servers). */
interface Joined {
  readonly store: WebhookStore;
  readonly cache: WebhookCache;
  /** This node's sender (a server with WEBHOOK_DELIVERY on); null: the CLI, a quiet node, or not started yet. */
  dispatcher: Dispatcher | null;
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
  const joined = new Map<EventPipeline, Joined>();
  /**
   * The fan-out joins `events` (once per pipeline): every process that appends an event inserts its
   * deliveries in the event's transaction, the CLI too. Without a dispatcher here they are inserted
   * pending, and a server node claims them: told by the writer's signal at commit (PostgreSQL NOTIFY,
   * Redis), else at its next look (IDLE_POLL_NO_SIGNAL_MS), as the writes of a WEBHOOK_DELIVERY=false node.
   */
  const join = (deps: PluginDeps, events: EventPipeline): Joined => {
    let j = joined.get(events);
    if (!j) {
      const store = storeOf(deps);
      const state: Joined = { store, cache: new WebhookCache(store, deps.config.events.pollMs), dispatcher: null };
      events.onAppend(fanOut(store, state.cache, deps.config.webhooks.retryForMs, () => state.dispatcher), events.versionProbe(WEBHOOK));
      // a finished delivery lives as long as its event (EVENTS_RETENTION): resending it needs the event
      events.onPrune((db, before) => store.pruneFinished(db, before));
      joined.set(events, state);
      j = state;
    }
    return j;
  };
  return {
    name: 'webhooks',
    contentTypesDir: contentTypesDir(),
    // Every process (boot.ts): the fan-out, so that an event appended by the CLI gets its deliveries too.
    events: (deps) => void join(deps, deps.events),
    hooks: (deps) => webhookModelHooks(storeOf(deps), deps.config.webhooks, () => joined.forEach((j) => j.dispatcher?.look())),
    // The file's changes are announced (`webhook` events): every node's webhook list (hook-cache.ts) sees them
    // at its next write, through the events' version probe; this node's at once (the fan-out's writingIn).
    bootstrap: async (deps) => {
      const applied = await syncWebhookFile(storeOf(deps), deps.config.webhooks);
      if (applied && applied.created + applied.updated + applied.deleted > 0) deps.log.info({ file: deps.config.webhooks.configFile, ...applied }, 'webhook file applied');
    },
    // Called once per server (createApp): this node's dispatcher starts, and its writes hand their deliveries to it.
    routes: (_router, deps) => {
      const { events } = deps;
      if (!events) return;
      const j = join(deps, events);
      if (j.dispatcher || !deps.config.webhooks.deliver) return;
      j.dispatcher = new Dispatcher(j.store, events, deps.config.webhooks, deps.log, j.cache);
      j.dispatcher.start();
    },
    async close() {
      await Promise.all([...joined.values()].map((j) => j.dispatcher?.close()));
      joined.clear();
      stores.clear();
    },
  };
}
