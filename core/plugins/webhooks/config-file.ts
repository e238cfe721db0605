/**
 * Webhooks declared in git (WEBHOOK_CONFIG_FILE), synchronised at each start: a declared webhook is
 * created or updated by name (source `config`); a `config` webhook no longer in the file is deleted.
 *
 *   webhooks:
 *     - name: search-index
 *       url: https://search.example.com/hooks/cms
 *       events: [record.create, record.update, record.delete]
 *       model: fee-type        # optional
 *       enabled: true          # optional, default true
 *       secretEnv: SEARCH_WEBHOOK_SECRET   # or `secret: whsec_…` (a Standard Webhooks secret)
 */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { withFolds } from '../../plugin-api';
import type { WebhooksConfig } from '../../../config/schema';
import { webhookProblems } from './model-hooks';
import { isSecret } from './signature';
import type { WebhookStore } from './store';

interface Declared {
  readonly name: string;
  readonly url: string;
  readonly events: string[];
  readonly model: string | null;
  readonly enabled: boolean;
  readonly secret: string;
}

/** `isModel`: whether a name is a model of the registry (a `model` naming none is refused). */
export function readWebhookFile(file: string, config: WebhooksConfig, env: NodeJS.ProcessEnv, isModel: (name: string) => boolean): Declared[] {
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
    const problems = webhookProblems({ url: w.url, events: w.events, model: w.model }, config.allowHosts, isModel);
    for (const [field, msgs] of Object.entries(problems)) throw new Error(`${where}: ${field} ${msgs[0]}`);
    const secret = typeof w.secretEnv === 'string' ? env[w.secretEnv] : w.secret;
    if (!isSecret(secret)) throw new Error(`${where}: secret (or the variable secretEnv names) must be a Standard Webhooks secret: whsec_ + base64 of 24–64 bytes`);
    if (w.model !== undefined && typeof w.model !== 'string') throw new Error(`${where}: model must be a model name`);
    return { name: w.name, url: String(w.url), events: w.events as string[], model: (w.model as string | undefined) ?? null, enabled: w.enabled !== false, secret };
  });
}

export async function syncWebhookFile(store: WebhookStore, config: WebhooksConfig): Promise<void> {
  if (!config.configFile) return;
  const declared = readWebhookFile(config.configFile, config, process.env, (name) => store.isModel(name));
  const h = store.hooks;
  const c = (n: string): string => store.col(h, n);
  const { db } = store.deps;
  await db.transaction(async (trx) => {
    const now = new Date().toISOString();
    for (const w of declared) {
      const values = { [c('url')]: w.url, [c('events')]: JSON.stringify(w.events), [c('model')]: w.model, [c('enabled')]: w.enabled, [c('secret')]: w.secret, [c('source')]: 'config', updated_at: now };
      const existing = await store.hookByName(trx, w.name);
      if (existing) await trx(h.table).where('id', existing.id).update(withFolds(h, values));
      else await trx(h.table).insert(withFolds(h, { ...values, [c('name')]: w.name, created_at: now }));
    }
    await trx(h.table).where(c('source'), 'config').whereNotIn(c('name'), declared.length ? declared.map((w) => w.name) : ['']).delete();
  });
}
