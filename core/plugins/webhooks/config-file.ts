/**
 * Webhooks declared in git (WEBHOOK_CONFIG_FILE), applied at every start of every node as a diff:
 *
 *   webhooks:
 *     - name: search-index
 *       url: https://search.example.com/hooks/cms
 *       events: [record.create, record.update, record.delete]
 *       model: fee-type        # optional
 *       enabled: true          # optional, default true
 *       secretEnv: SEARCH_WEBHOOK_SECRET   # or `secret: whsec_…` (a Standard Webhooks secret)
 *
 * A declared webhook is identified by its name; what the file declares is its url, events, model, enabled
 * and secret (the secret is the file's, never generated here: a webhook made through the API gets one made and
 * shown once, a declared one carries the receiver's). The stored webhooks of the file (source `config`) are made
 * to say what it says now (`planWebhookFile`), changing only what differs: one whose declared fields are the
 * same is left alone (same id, same secret, same updatedAt: nothing written), one that differs is updated in
 * place (id kept), a new name is inserted, a `config` webhook no longer declared is deleted. Webhooks made
 * through the API (source `api`) are never read for the diff or touched; a name the file declares that an API
 * webhook holds stops the start (the file would take it over, or be silently ignored). A `config` webhook
 * changed or deleted through the API is put back at the next start (the file wins).
 *
 * Every change is a record change of `webhook`, announced in the same transaction as the record API's write
 * would be (issue 15; actor null, the system, as seeding): `record.delete` of each dropped webhook (its record
 * read before the delete), `record.update` of each changed one, `record.create` of each new one (their record
 * read after), then `committed()` after the commit. As with the API's webhook writes, no webhook is sent these
 * events (fanout.ts SILENT), but they reach the outbox and realtime, and they tell every node's webhook list
 * (hook-cache.ts) that it changed. Two nodes starting at once: the transaction holds the database lock
 * `webhook-config-file` (Dialect.lockedTransaction), so the second waits, then finds the work done and writes
 * nothing (before, both wrote every webhook, and could conflict on the unique name).
 */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { announce, deleteAnnounced, insertedId, withFolds, type EventModel } from '../../plugin-api';
import type { WebhooksConfig } from '../../../config/schema';
import { webhookProblems } from './model-hooks';
import { isSecret } from './signature';
import { WEBHOOK, type Webhook, type WebhookStore } from './store';

export interface Declared {
  readonly name: string;
  readonly url: string;
  readonly events: string[];
  readonly model: string | null;
  readonly enabled: boolean;
  readonly secret: string;
}

/** `modelOf`: the registry's model of a name (a `model` naming none, or one its events never carry, is refused). */
export function readWebhookFile(file: string, config: WebhooksConfig, env: NodeJS.ProcessEnv, modelOf: (name: string) => EventModel | undefined): Declared[] {
  const doc = parse(readFileSync(file, 'utf8')) as { webhooks?: unknown } | null;
  const list = doc?.webhooks ?? [];
  if (!Array.isArray(list)) throw new Error(`${file}: "webhooks" must be a list`);
  const names = new Set<string>();
  return list.map((raw: unknown, i: number) => {
    const w = (raw ?? {}) as Record<string, unknown>;
    const where = `${file}: webhooks[${i}]`;
    if (typeof w.name !== 'string' || w.name === '') throw new Error(`${where}: name is required`);
    if (names.has(w.name)) throw new Error(`${where}: name "${w.name}" appears twice`);
    names.add(w.name);
    const problems = webhookProblems({ url: w.url, events: w.events, model: w.model }, config.allowHosts, modelOf);
    for (const [field, msgs] of Object.entries(problems)) throw new Error(`${where}: ${field} ${msgs[0]}`);
    const secret = typeof w.secretEnv === 'string' ? env[w.secretEnv] : w.secret;
    if (!isSecret(secret)) throw new Error(`${where}: secret (or the variable secretEnv names) must be a Standard Webhooks secret: whsec_ + base64 of 24–64 bytes`);
    if (w.model !== undefined && typeof w.model !== 'string') throw new Error(`${where}: model must be a model name`);
    return { name: w.name, url: String(w.url), events: w.events as string[], model: (w.model as string | undefined) ?? null, enabled: w.enabled !== false, secret };
  });
}

/** What the diff did (logged at start). */
export interface AppliedWebhookFile {
  readonly declared: number;
  readonly kept: number;
  readonly created: number;
  readonly updated: number;
  readonly deleted: number;
}

export interface WebhookFilePlan {
  /** Stored `config` webhooks that say what the file says: left alone. */
  readonly keep: readonly number[];
  /** Stored `config` webhooks of a declared name whose declared fields differ: updated in place. */
  readonly update: readonly { readonly id: number; readonly hook: Declared }[];
  /** Declared names no `config` webhook holds. */
  readonly insert: readonly Declared[];
  /** Stored `config` webhooks the file no longer names. */
  readonly remove: readonly number[];
}

/** Whether a stored webhook says what `d` declares (name, url, events in their order, model, enabled, secret). */
export function sameWebhook(stored: Webhook, d: Declared): boolean {
  return (
    stored.name === d.name &&
    stored.url === d.url &&
    JSON.stringify(stored.events) === JSON.stringify(d.events) &&
    (stored.model ?? null) === (d.model ?? null) &&
    stored.enabled === d.enabled &&
    stored.secret === d.secret
  );
}

/** The diff of the file against the stored `config` webhooks, by name (pure). */
export function planWebhookFile(declared: readonly Declared[], stored: readonly Webhook[]): WebhookFilePlan {
  const byName = new Map(stored.map((w) => [w.name, w]));
  const keep: number[] = [];
  const update: { id: number; hook: Declared }[] = [];
  const insert: Declared[] = [];
  for (const d of declared) {
    const s = byName.get(d.name);
    if (!s) insert.push(d);
    else if (sameWebhook(s, d)) keep.push(s.id);
    else update.push({ id: s.id, hook: d });
  }
  const names = new Set(declared.map((d) => d.name));
  const remove = stored.filter((w) => !names.has(w.name)).map((w) => w.id).sort((a, b) => a - b);
  return { keep, update, insert, remove };
}

/**
 * Makes the `config` webhooks say what the file declares, as a diff (`planWebhookFile`), in one transaction
 * holding the lock `webhook-config-file`; announces each change in it (actor null) and signals after the commit.
 * Null without WEBHOOK_CONFIG_FILE.
 */
export async function syncWebhookFile(store: WebhookStore, config: WebhooksConfig): Promise<AppliedWebhookFile | null> {
  if (!config.configFile) return null;
  const file = config.configFile;
  const declared = readWebhookFile(file, config, process.env, (name) => store.modelOf(name));
  const h = store.hooks;
  const c = (n: string): string => store.col(h, n);
  const { db, dialect, events } = store.deps;
  let appended = 0;
  const applied = await dialect.lockedTransaction(db, 'webhook-config-file', async (trx) => {
    const now = new Date().toISOString();
    const stored = await store.hooksOfSource(trx, 'config');
    const plan = planWebhookFile(declared, stored);
    if (plan.insert.length) {
      // a declared name an API webhook holds: the file would take it over (or be ignored); neither, say so
      // (not a `config` one: on MariaDB names compare without case, and one this diff deletes is no obstacle)
      const taken = (await trx(h.table).whereIn(c('name'), plan.insert.map((d) => d.name)).where((q) => q.whereNot(c('source'), 'config').orWhereNull(c('source'))).select('id', `${c('name')} as name`)) as { id: number; name: string }[];
      if (taken.length) {
        throw new Error(`${file}: ${taken.map((t) => `webhook "${t.name}" (id ${t.id})`).join(', ')} was made through the API; the file does not take it over: rename the declared webhook, or delete the API one (DELETE /api/webhook/{id})`);
      }
    }
    // the rows it changes, locked (an API PATCH or DELETE of one of them waits: no lost or doubled change)
    await dialect.lockRows(trx, h.table, [...plan.remove, ...plan.update.map((u) => u.id)]);
    const values = (w: Declared): Record<string, unknown> => ({ [c('url')]: w.url, [c('events')]: JSON.stringify(w.events), [c('model')]: w.model, [c('enabled')]: w.enabled, [c('secret')]: w.secret, [c('source')]: 'config', updated_at: now });

    appended += await deleteAnnounced(events, trx, h.table, WEBHOOK, plan.remove);
    for (const { id, hook } of plan.update) await trx(h.table).where('id', id).update(withFolds(h, values(hook)));
    appended += await announce(events, trx, 'record.update', WEBHOOK, plan.update.map((u) => u.id));
    const made: number[] = [];
    for (const w of plan.insert) made.push(insertedId(await trx(h.table).insert(withFolds(h, { ...values(w), [c('name')]: w.name, created_at: now })).returning('id')));
    appended += await announce(events, trx, 'record.create', WEBHOOK, made);
    return { declared: declared.length, kept: plan.keep.length, created: made.length, updated: plan.update.length, deleted: plan.remove.length };
  });
  if (appended > 0) events?.committed();
  return applied;
}
