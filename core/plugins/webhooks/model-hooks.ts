/**
 * Lifecycle hooks of the webhooks' own models: a webhook's url and events are checked and its secret
 * made (answered once, in the creation answer); deliveries are made (and deleted, with their events)
 * by the service only, and the one change an admin may make to one is a resend (PATCH {"status":
 * "pending"} on a failed delivery).
 */
import { HookError, type LifecycleHooks } from '../../plugin-api';
import type { WebhooksConfig } from '../../../config/schema';
import { urlProblem } from './send';
import { newSecret } from './signature';
import { DELIVERY, WEBHOOK, type WebhookStore } from './store';

const KNOWN = ['record.create', 'record.update', 'record.delete', 'record.recover', 'record.publish', 'record.unpublish', 'user.create', 'user.delete', 'session.revoke'];

/**
 * Problems of a webhook's fields (422 details.fields). `isModel`: whether a name is a model of the
 * registry (a `model` filter naming none would never match an event).
 */
export function webhookProblems(data: Record<string, unknown>, allowHosts: readonly string[], isModel: (name: string) => boolean): Record<string, string[]> {
  const fields: Record<string, string[]> = {};
  if (typeof data.model === 'string' && !isModel(data.model)) fields.model = [`no model named ${JSON.stringify(data.model)}`];
  if ('url' in data) {
    const p = urlProblem(data.url, allowHosts);
    if (p) fields.url = [p];
  }
  if ('events' in data) {
    const ev = data.events;
    if (!Array.isArray(ev) || ev.length === 0 || ev.some((e) => typeof e !== 'string')) fields.events = ['must be a non-empty array of event types'];
    else {
      const bad = ev.filter((e: string) => e !== '*' && !KNOWN.includes(e) && !(e.endsWith('.*') && KNOWN.some((k) => k.startsWith(e.slice(0, -1)))));
      if (bad.length > 0) fields.events = [`unknown event type ${bad.map((b: string) => JSON.stringify(b)).join(', ')} (known: ${KNOWN.join(', ')}, "<prefix>.*" or "*")`];
    }
  }
  return fields;
}

export function webhookModelHooks(store: WebhookStore, config: WebhooksConfig, poke: () => void): LifecycleHooks[] {
  const check = (data: Record<string, unknown>): void => {
    const fields = webhookProblems(data, config.allowHosts, (name) => store.isModel(name));
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
      beforeUpdate(ctx) {
        check(ctx.data);
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
        const row = (await ctx.trx(d.table).where('id', ctx.id).first(statusCol)) as Record<string, unknown> | undefined;
        if (row?.[statusCol] !== 'failed') throw new HookError(409, `delivery ${ctx.id} is ${String(row?.[statusCol])}: only a failed delivery can be resent`);
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
