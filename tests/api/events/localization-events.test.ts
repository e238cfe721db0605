/**
 * Issues 14 and 15 together, every database: `POST /api/{model}/{id}/localizations` is a create like any
 * other. It emits one `record.create` for the new locale row in its own transaction (so webhooks and
 * realtime streams hear of it), runs the `beforeCreate` hooks inside that transaction (they may change the
 * data or refuse) and the `afterCreate` hooks after the commit; a refused or failed localization emits nothing.
 */
import { expect } from 'chai';
import { enabledPlugins } from '../../../config/plugins';
import type { StoredEvent } from '../../../core/events/types';
import { HookError, type Plugin } from '../../../core/plugin-api';
import { DIALECTS } from '../../helpers/dialects';
import { freshEvents } from '../../helpers/fresh-events';
import { startTestApp, type TestApp } from '../../helpers/test-app';
import { startReceiver, type Receiver } from '../../helpers/webhook-receiver';
import { LOCALE_MODELS } from '../locales/app';

for (const dialect of DIALECTS) {
  describe(`events and hooks of a new localization [${dialect}]`, function () {
    this.timeout(30_000);
    let app: TestApp;
    let rx: Receiver;
    const calls: string[] = [];
    const events = freshEvents(() => app, 'article');
    const fresh = (): Promise<StoredEvent[]> => events.fresh();
    const recorder: Plugin = {
      name: 'localization-hooks',
      hooks: (deps) => [
        {
          models: ['article'],
          async beforeCreate(ctx) {
            // inside the write's transaction: the entry's rows so far are visible through ctx.trx
            const rows = (await ctx.trx(deps.registry.get('article')!.table).count({ n: '*' }).where('title', 'like', 'Hooked%')) as { n: number | string }[];
            calls.push(`beforeCreate ${String(ctx.data.title)} id=${String(ctx.id)} ${ctx.mode} sees ${Number(rows[0].n)}`);
            if (ctx.data.title === 'Hooked refused') throw new HookError(409, 'no such translation here');
            if (typeof ctx.data.title === 'string' && ctx.data.title.startsWith('trim:')) ctx.data.title = ctx.data.title.slice(5);
            ctx.state.seen = true;
          },
          afterCreate(ctx) {
            calls.push(`afterCreate ${ctx.id} ${String(ctx.record.localeName)} ${String(ctx.record.title)} state=${String(ctx.state.seen)}`);
          },
        },
      ],
    };

    before(async () => {
      rx = await startReceiver();
      app = await startTestApp(dialect, {
        contentTypesDir: LOCALE_MODELS,
        plugins: [...enabledPlugins(), recorder],
        env: { LOCALES: 'en,fr,de', DEFAULT_LOCALE: 'en', WEBHOOK_ALLOW_HOSTS: '127.0.0.1', WEBHOOK_POLL_INTERVAL: '50ms' },
      });
      await events.skipAll();
    });
    after(async () => {
      await app?.close();
      await rx?.close();
    });
    beforeEach(() => void calls.splice(0));

    it('one record.create for the new locale row, with the record as FindOne answers it, the actor; the hooks run around it', async () => {
      const en = await app.http.post('/api/article', { title: 'Hooked', price: 3 });
      expect(en.status, en.text).to.equal(200);
      const [created] = await fresh();
      expect([created.type, created.recordId]).to.deep.equal(['record.create', en.body.data.id]);
      const enFindOne = (await app.http.get(`/api/article/${en.body.data.id}`)).body;
      expect(enFindOne.localizations).to.deep.equal([]);
      expect(created.record).to.deep.equal(enFindOne);
      calls.splice(0);
      const fr = await app.http.post(`/api/article/${en.body.data.id}/localizations?locale=fr`, { title: 'trim:Hooked (fr)' });
      expect(fr.status, fr.text).to.equal(200);
      const id = fr.body.data.id as number;
      expect(fr.body.data).to.include({ title: 'Hooked (fr)', localeName: 'fr', defaultEntityLocaleId: en.body.data.id, price: 3 });
      const [e, ...rest] = await fresh();
      expect(rest).to.deep.equal([]);
      expect(e).to.include({ type: 'record.create', model: 'article', recordId: id });
      expect(e.actor).to.deep.equal({ userId: app.admin!.id, apiTokenId: null });
      // as FindOne answers it, `localizations` (the entry's other locales at the time of the event) included
      const findOne = (await app.http.get(`/api/article/${id}`)).body;
      expect(findOne.localizations).to.deep.equal([{ id: en.body.data.id, locale: 'en' }]);
      expect(e.record).to.deep.equal(findOne);
      expect(calls).to.deep.equal([`beforeCreate trim:Hooked (fr) id=null create sees 1`, `afterCreate ${id} fr Hooked (fr) state=true`]);
    });

    it('a beforeCreate refusal answers its status: no row, no event, no after hook; a 409 for a taken locale runs no hook', async () => {
      const en = (await app.http.post('/api/article', { title: 'Hooked twice' })).body.data.id as number;
      await fresh();
      calls.splice(0);
      const refused = await app.http.post(`/api/article/${en}/localizations?locale=de`, { title: 'Hooked refused' });
      expect(refused.status, refused.text).to.equal(409);
      expect(refused.body.error.message).to.equal('no such translation here');
      expect((await app.http.get(`/api/article/${en}?locale=de`)).status).to.equal(404);
      expect(await fresh()).to.deep.equal([]);
      // Hooked, Hooked (fr), Hooked twice
      expect(calls).to.deep.equal(['beforeCreate Hooked refused id=null create sees 3']);
      expect((await app.http.post(`/api/article/${en}/localizations?locale=de`, { title: 'Hooked zweimal' })).status).to.equal(200);
      await fresh();
      calls.splice(0);
      const taken = await app.http.post(`/api/article/${en}/localizations?locale=de`, { title: 'Hooked dreimal' });
      expect(taken.status, taken.text).to.equal(409);
      expect(await fresh()).to.deep.equal([]);
      expect(calls).to.deep.equal([]);
    });

    it('a webhook on every event receives the new locale row as a record.create', async () => {
      const hook = await app.http.post('/api/webhook', { name: 'all', url: `${rx.url}/in`, events: ['*'] });
      expect(hook.status, hook.text).to.equal(200);
      const en = (await app.http.post('/api/article', { title: 'Hooked webhook' })).body.data.id as number;
      const de = await app.http.post(`/api/article/${en}/localizations?locale=de`, { title: 'Hooked Webhaken' });
      expect(de.status, de.text).to.equal(200);
      const ofDe = (r: { json: any }) => r.json?.type === 'record.create' && r.json?.data?.recordId === de.body.data.id;
      await rx.until((list) => list.some(ofDe));
      const got = rx.received.find(ofDe)!;
      expect(got.json.data).to.include({ model: 'article' });
      expect(got.json.data.record).to.include({ id: de.body.data.id, localeName: 'de', title: 'Hooked Webhaken' });
      expect((await app.http.patch(`/api/webhook/${hook.body.data.id}`, { enabled: false })).status).to.equal(200);
    });

    it('an update of a shared value is a record.update of every active locale row of the entry, each as FindOne answers it', async () => {
      const en = (await app.http.post('/api/article', { title: 'Shared en', price: 3 })).body.data.id as number;
      const fr = (await app.http.post(`/api/article/${en}/localizations?locale=fr`, { title: 'Shared fr' })).body.data.id as number;
      const de = (await app.http.post(`/api/article/${en}/localizations?locale=de`, { title: 'Shared de' })).body.data.id as number;
      expect((await app.http.del(`/api/article/${de}`)).status).to.equal(200);
      await fresh();
      calls.splice(0);
      const patched = await app.http.patch(`/api/article/${en}`, { price: 5 });
      expect(patched.status, patched.text).to.equal(200);
      const list = await fresh();
      // the row the call names first; the archived de row changed too, but FindOne does not answer it: no event
      expect(list.map((e) => [e.type, e.recordId])).to.deep.equal([
        ['record.update', en],
        ['record.update', fr],
      ]);
      const frFindOne = (await app.http.get(`/api/article/${fr}`)).body;
      expect(frFindOne.localizations).to.deep.equal([{ id: en, locale: 'en' }]);
      expect(frFindOne.price).to.equal(5);
      expect(list[1].record).to.deep.equal(frFindOne);
      expect(list[1].actor).to.deep.equal({ userId: app.admin!.id, apiTokenId: null });
      // a localized value changes the named row alone
      expect((await app.http.patch(`/api/article/${en}`, { title: 'Shared en again' })).status).to.equal(200);
      expect((await fresh()).map((e) => [e.type, e.recordId])).to.deep.equal([['record.update', en]]);
    });
  });
}
