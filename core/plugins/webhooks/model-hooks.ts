/**
 * Lifecycle hooks of the webhooks' own models: a webhook's url and events are checked and its secret
 * made (answered once, in the creation answer); deliveries are made (and deleted, with their events)
 * by the service only, and the one change an admin may make to one is a resend (PATCH {"status":
 * "pending"} on a failed delivery).
 */
import { EVENT_TYPES, HookError, eventCarriesModel, type EventModel, type LifecycleHooks } from '../../plugin-api';
import type { WebhooksConfig } from '../../../config/schema';
import { eventMatches } from './fanout';
import { urlProblem } from './send';
import { newSecret } from './signature';
import { DELIVERY, WEBHOOK, type WebhookStore } from './store';

const KNOWN = EVENT_TYPES;

/** The webhooks' own models: no webhook is sent their events (fanout.ts SILENT). */
const SILENT_MODELS = [WEBHOOK, DELIVERY];

/**
 * Problems of a webhook's fields (422 details.fields): a bad url, an unknown or repeated event type, a
 * `model` that is no model of the registry (`modelOf` answers none) or one no webhook is sent events of,
 * and an `events` entry that never carries the `model` (`eventCarriesModel`): each would never fire.
 * `stored`: the webhook's fields as stored (an update): `events` and `model` are checked together, the
 * one the update leaves as stored included; the problem is named on the field the update changes.
 */
export function webhookProblems(
  data: Record<string, unknown>,
  allowHosts: readonly string[],
  modelOf: (name: string) => EventModel | undefined,
  stored?: { readonly events: readonly string[]; readonly model: string | null },
): Record<string, string[]> {
  const fields: Record<string, string[]> = {};
  let model: EventModel | undefined;
  if (typeof data.model === 'string') {
    model = modelOf(data.model);
    if (!model) fields.model = [`no model named ${JSON.stringify(data.model)}`];
    else if (SILENT_MODELS.includes(data.model)) {
      fields.model = [`no webhook is sent events of ${JSON.stringify(data.model)} (a webhook about webhooks or deliveries would feed itself)`];
      model = undefined;
    }
  } else if (data.model !== undefined && data.model !== null) fields.model = ['must be a model name'];
  if ('url' in data) {
    const p = urlProblem(data.url, allowHosts);
    if (p) fields.url = [p];
  }
  let events: readonly string[] | undefined;
  if ('events' in data) {
    const ev = data.events;
    if (!Array.isArray(ev) || ev.length === 0 || ev.some((e) => typeof e !== 'string')) fields.events = ['must be a non-empty array of event types'];
    else {
      const bad = ev.filter((e: string) => e !== '*' && !KNOWN.includes(e) && !(e.endsWith('.*') && KNOWN.some((k) => k.startsWith(e.slice(0, -1)))));
      const twice = ev.filter((e: string, i: number) => ev.indexOf(e) !== i);
      if (bad.length > 0) fields.events = [`unknown event type ${bad.map((b: string) => JSON.stringify(b)).join(', ')} (known: ${KNOWN.join(', ')}, "<prefix>.*" or "*")`];
      else if (twice.length > 0) fields.events = [`lists ${[...new Set(twice)].map((t: string) => JSON.stringify(t)).join(', ')} more than once`];
      else events = ev as string[];
    }
  }
  // events and model together (an update: the one it leaves as stored)
  const pairEvents = events ?? ('events' in data ? undefined : stored?.events);
  const pairModel = model ?? ('model' in data || !stored?.model ? undefined : modelOf(stored.model));
  if (pairEvents && pairModel) {
    const never = pairEvents.filter((e) => !KNOWN.some((k) => eventMatches([e], k) && eventCarriesModel(k, pairModel)));
    if (never.length > 0) {
      const field = 'events' in data ? 'events' : 'model';
      fields[field] = [`${never.map((e) => JSON.stringify(e)).join(', ')} never carries model ${JSON.stringify(pairModel.name)}: such a webhook would never fire (${describeCarried(pairModel)})`];
    }
  }
  return fields;
}

/** The event types a model's records carry, for the message. */
function describeCarried(model: EventModel): string {
  const types = KNOWN.filter((k) => eventCarriesModel(k, model));
  return `events of ${JSON.stringify(model.name)}: ${types.join(', ')}`;
}

export function webhookModelHooks(store: WebhookStore, config: WebhooksConfig, poke: () => void): LifecycleHooks[] {
  const check = (data: Record<string, unknown>, stored?: { events: readonly string[]; model: string | null }): void => {
    const fields = webhookProblems(data, config.allowHosts, (name) => store.modelOf(name), stored);
    if (Object.keys(fields).length > 0) throw new HookError(422, `invalid webhook: ${Object.entries(fields).map(([k, v]) => `${k} ${v[0]}`).join('; ')}`, { fields });
  };
  return [
    {
      models: [WEBHOOK],
      beforeCreate(ctx) {
        check(ctx.data);
        const secret = newSecret();
        ctx.data.secret = secret;
        ctx.state.secret = secret;
      },
      afterCreate(ctx) {
        // shown once: here, never again (the field is private)
        ctx.record.secret = ctx.state.secret;
      },
      async beforeUpdate(ctx) {
        // events and model are checked together: the one the update leaves is read as stored
        const stored = 'events' in ctx.data !== 'model' in ctx.data ? (await store.hooksByIds(ctx.trx, [Number(ctx.id)])).get(Number(ctx.id)) : undefined;
        check(ctx.data, stored);
      },
    },
    {
      models: [DELIVERY],
      beforeCreate() {
        throw new HookError(405, 'webhook deliveries are made by the service; resend one with PATCH /api/webhook-delivery/{id} {"status": "pending"}');
      },
      async beforeUpdate(ctx) {
        const keys = Object.keys(ctx.data).filter((k) => ctx.data[k] !== undefined);
        if (keys.length !== 1 || ctx.data.status !== 'pending') throw new HookError(422, 'the only change to a delivery is a resend: {"status": "pending"}', { fields: { status: ['must be "pending"'] } });
        const d = store.deliveries;
        const statusCol = store.col(d, 'status');
        const webhookCol = store.col(d, 'webhookId');
        const row = (await ctx.trx(d.table).where('id', ctx.id).first(statusCol, webhookCol)) as Record<string, unknown> | undefined;
        if (row?.[statusCol] !== 'failed') throw new HookError(409, `delivery ${ctx.id} is ${String(row?.[statusCol])}: only a failed delivery can be resent`);
        // its webhook must be there and on: a resend would fail at once, unsent
        const webhookId = Number(row[webhookCol]);
        const hook = (await store.hooksByIds(ctx.trx, [webhookId])).get(webhookId);
        if (!hook) throw new HookError(409, `delivery ${ctx.id} cannot be resent: its webhook ${webhookId} was deleted`);
        if (!hook.enabled) throw new HookError(409, `delivery ${ctx.id} cannot be resent: its webhook "${hook.name}" (${webhookId}) is disabled; enable it first (PATCH /api/webhook/${webhookId} {"enabled": true})`);
        const now = new Date();
        await ctx.trx(d.table)
          .where('id', ctx.id)
          .update({ [store.col(d, 'nextAttemptAt')]: now.toISOString(), [store.col(d, 'retryUntil')]: new Date(now.getTime() + config.retryForMs).toISOString() });
      },
      afterUpdate() {
        poke();
      },
      // the attempts are the service's record: they go with their event (EVENTS_RETENTION), not by hand
      beforeDelete() {
        throw new HookError(405, 'webhook deliveries are kept as long as their event (EVENTS_RETENTION) and cannot be deleted; resend a failed one with PATCH /api/webhook-delivery/{id} {"status": "pending"}');
      },
    },
  ];
}
