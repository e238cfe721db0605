/** The WEBHOOK_CONFIG_FILE diff (planWebhookFile): identity by name, what the file declares compared, nothing else. */
import { expect } from 'chai';
import { planWebhookFile, type Declared } from '../../../core/plugins/webhooks/config-file';
import type { Webhook } from '../../../core/plugins/webhooks/store';

const declared = (name: string, over: Partial<Declared> = {}): Declared => ({ name, url: `https://${name}.example.com/`, events: ['record.create', 'record.update'], model: null, enabled: true, secret: `whsec_${name}`, ...over });
const stored = (id: number, d: Declared): Webhook => ({ id, name: d.name, url: d.url, events: [...d.events], model: d.model, enabled: d.enabled, secret: d.secret });

describe('unit: webhooks config file plan', () => {
  it('a webhook saying what the file declares is kept; nothing else compared', () => {
    const a = declared('a');
    expect(planWebhookFile([a], [stored(7, a)])).to.deep.equal({ keep: [7], update: [], insert: [], remove: [] });
  });

  it('any declared field that differs (url, events and their order, model, enabled, secret) is an update in place', () => {
    const a = declared('a');
    for (const over of [{ url: 'https://a.example.com/v2' }, { events: ['record.update', 'record.create'] }, { model: 'institute' }, { enabled: false }, { secret: 'whsec_other' }]) {
      const changed = declared('a', over);
      expect(planWebhookFile([changed], [stored(7, a)]), JSON.stringify(over)).to.deep.equal({ keep: [], update: [{ id: 7, hook: changed }], insert: [], remove: [] });
    }
  });

  it('a new name is inserted, a name no longer declared removed (a rename is both)', () => {
    const a = declared('a');
    const b = declared('b');
    const c = declared('c');
    expect(planWebhookFile([b, declared('a2', { url: a.url, secret: a.secret })], [stored(3, c), stored(1, a), stored(2, b)])).to.deep.equal({
      keep: [2],
      update: [],
      insert: [declared('a2', { url: a.url, secret: a.secret })],
      remove: [1, 3],
    });
  });
});
