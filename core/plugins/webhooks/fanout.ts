/** Which webhooks get an event (pure), and the step that creates their deliveries in the event's transaction. */
import type { Knex } from 'knex';
import type { StoredEvent } from '../../plugin-api';
import type { DeliveryLease, Handed } from './dispatcher';
import type { WebhookCache } from './hook-cache';
import { DELIVERY, WEBHOOK, recordKey, type NewDelivery, type Webhook, type WebhookStore } from './store';

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

/** This node's dispatcher, as the fan-out sees it (dispatcher.ts). */
export interface DeliveryOwner {
  reserve(perHook: ReadonlyMap<number, number>): DeliveryLease | null;
  handOff(lease: DeliveryLease, handed: readonly Handed[], waiting: readonly string[]): void;
  release(lease: DeliveryLease): void;
  look(): void;
}

/** Settles when the write commits (or rolls back): the outermost transaction's end, not a savepoint's. */
function commitOf(trx: Knex.Transaction): Promise<unknown> {
  let top = trx as Knex.Transaction & { parentTransaction?: Knex.Transaction };
  while (top.parentTransaction) top = top.parentTransaction;
  return top.executionPromise;
}

/**
 * The step every event append runs in the write's transaction: a delivery per matching enabled webhook,
 * committed with the event (so none for a rolled-back write, none lost after a commit). The webhooks come
 * from `cache` (hook-cache.ts), checked by `version` (the webhook events' version probe, which the
 * events' own INSERT evaluated): a write that no webhook wants costs no statement.
 *
 * `ownerOf`: this node's dispatcher, asked at each append (null: none, as in the admin CLI, on a node with
 * WEBHOOK_DELIVERY=false, or before the server has started it).
 * With an owner (this node sends deliveries) and a database where `Dialect.freshInsertReturning` holds,
 * the deliveries are inserted leased to this node and handed to its dispatcher when the transaction
 * commits, events and webhooks in hand (store.insertOwned); otherwise, or when the dispatcher has no
 * room, they are inserted pending and the dispatcher is asked to claim them after the commit. The room
 * is given per webhook (WEBHOOK_CONCURRENCY_PER_HOOK): the deliveries of a webhook beyond its share are
 * inserted pending too, and claimed as its deliveries here finish.
 */
export function fanOut(store: WebhookStore, cache: WebhookCache, retryForMs: number, ownerOf: () => DeliveryOwner | null) {
  const handsOff = store.deps.dialect.freshInsertReturning;
  return async (trx: Knex.Transaction, events: readonly StoredEvent[], version?: unknown): Promise<void> => {
    const owner = ownerOf();
    if (events.some((e) => e.model === WEBHOOK)) cache.writingIn(trx);
    const relevant = events.filter((e) => e.model === null || !SILENT.has(e.model));
    if (relevant.length === 0) return;
    // A read, when the cache cannot answer, goes through the write's transaction: on SQLite the only
    // connection is this transaction's.
    const hooks = await cache.enabled(trx, version);
    if (hooks.length === 0) return;
    const pairs = relevant.flatMap((e) => hooks.filter((h) => wants(h, e)).map((h) => ({ hook: h, event: e })));
    if (pairs.length === 0) return;
    const rows: NewDelivery[] = pairs.map(({ hook, event: e }) => ({ webhookId: hook.id, eventId: e.id, eventType: e.type, model: e.model, recordId: e.recordId }));
    const now = new Date();
    const wanted = new Map<number, number>();
    for (const r of rows) wanted.set(r.webhookId, (wanted.get(r.webhookId) ?? 0) + 1);
    const lease = owner && handsOff ? owner.reserve(wanted) : null;
    if (!owner || !lease) {
      await store.insertDeliveries(trx, rows, now, retryForMs);
      if (owner) commitOf(trx).then(() => owner.look(), () => undefined);
      return;
    }
    let owned: Awaited<ReturnType<WebhookStore['insertOwned']>>;
    try {
      // each webhook's share of the room (a webhook at its share here: pending, claimed when it has room)
      const left = new Map(lease.perHook);
      const own = rows.map((r) => {
        const n = left.get(r.webhookId) ?? 0;
        if (n > 0) left.set(r.webhookId, n - 1);
        return n > 0;
      });
      owned = await store.insertOwned(trx, rows, now, retryForMs, lease, own);
    } catch (err) {
      owner.release(lease);
      throw err;
    }
    // one delivery per webhook and event: those not inserted delivering wait for an earlier one
    const unsent = new Map(pairs.map((p) => [`${p.hook.id}:${p.event.id}`, p]));
    const handed: Handed[] = owned.map((claimed) => {
      const key = `${claimed.webhookId}:${claimed.eventId}`;
      const { hook, event } = unsent.get(key) as (typeof pairs)[number];
      unsent.delete(key);
      return { claimed, hook, event };
    });
    const waiting = [...unsent.values()].map((p) => recordKey(p.hook.id, p.event.model, p.event.recordId));
    commitOf(trx).then(
      () => owner.handOff(lease, handed, waiting),
      () => owner.release(lease),
    );
  };
}
