/** Which webhooks get an event (pure), and the step that creates their deliveries in the event's transaction. */
import type { Knex } from 'knex';
import type { StoredEvent } from '../../plugin-api';
import type { WebhookCache } from './hook-cache';
import { DELIVERY, WEBHOOK, type Webhook, type WebhookStore } from './store';

/** `*`, an exact type, or `<prefix>.*`. */
export function eventMatches(patterns: readonly string[], type: string): boolean {
  return patterns.some((p) => p === '*' || p === type || (p.endsWith('.*') && type.startsWith(p.slice(0, -1))));
}

export function wants(hook: Webhook, e: StoredEvent): boolean {
  if (!hook.enabled || !eventMatches(hook.events, e.type)) return false;
  return hook.model === null || hook.model === e.model;
}

/** The webhooks' own models send nothing (a webhook about deliveries would feed itself). */
const SILENT = new Set([WEBHOOK, DELIVERY]);

/**
 * The step every event append runs in the write's transaction: a pending delivery per matching enabled
 * webhook, committed with the event (so none for a rolled-back write, none lost after a commit). The
 * webhooks come from `cache` (hook-cache.ts), checked by `version` (the webhook events' version probe, which the events'
 * own INSERT evaluated): a write that no webhook wants costs no statement.
 */
export function fanOut(store: WebhookStore, cache: WebhookCache, retryForMs: number) {
  return async (trx: Knex.Transaction, events: readonly StoredEvent[], version?: unknown): Promise<void> => {
    if (events.some((e) => e.model === WEBHOOK)) cache.writingIn(trx);
    const relevant = events.filter((e) => e.model === null || !SILENT.has(e.model));
    if (relevant.length === 0) return;
    // A read, when the cache cannot answer, goes through the write's transaction: on SQLite the only
    // connection is this transaction's.
    const hooks = await cache.enabled(trx, version);
    if (hooks.length === 0) return;
    const rows = relevant.flatMap((e) => hooks.filter((h) => wants(h, e)).map((h) => ({ webhookId: h.id, eventId: e.id, eventType: e.type, model: e.model, recordId: e.recordId })));
    await store.insertDeliveries(trx, rows, new Date(), retryForMs);
  };
}
