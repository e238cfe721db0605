/**
 * Issue 15, lifecycle hooks: before* inside the write's transaction (may change the data, may refuse
 * with the status and message the client sees), after* after the commit (cannot undo it), per model
 * or for all models, from a plugin and from the project's hooks folder (HOOKS_DIR).
 */
import { expect } from 'chai';
import { enabledPlugins } from '../../../config/plugins';
import { HookError, type Plugin } from '../../../core/plugin-api';
import { DIALECTS } from '../../helpers/dialects';
import { created, DRAFT_MODELS } from '../../helpers/drafts';
import { png, sendForm } from '../../helpers/multipart';
import { startTestApp, type TestApp } from '../../helpers/test-app';

for (const dialect of DIALECTS) {
  describe(`lifecycle hooks [${dialect}]`, () => {
    let app: TestApp;
    const calls: string[] = [];
    let protectedId = -1;
    let unrecoverableId = -1;

    const recorder: Plugin = {
      name: 'hook-recorder',
      hooks: (deps) => {
        const model = deps.registry.get('fee-type')!;
        const column = (model.byName.get('feeType') as { column: string }).column;
        return [
        {
          models: ['fee-type'],
          async beforeCreate(ctx) {
            // inside the write's transaction: a bulk call's earlier items are visible through ctx.trx
            const [{ n }] = (await ctx.trx(model.table).count({ n: '*' }).where(column, 'like', 'Bulk%')) as { n: number | string }[];
            calls.push(`beforeCreate ${String(ctx.data.feeType)} sees ${Number(n)}`);
            if (typeof ctx.data.feeType === 'string' && ctx.data.feeType.startsWith('trim:')) ctx.data.feeType = ctx.data.feeType.slice(5);
            const refuse = typeof ctx.data.feeType === 'string' ? /^Refuse (\d{3})$/.exec(ctx.data.feeType) : null;
            if (refuse) throw new HookError(Number(refuse[1]), `refused with ${refuse[1]}`, Number(refuse[1]) === 422 ? { fields: { feeType: ['is refused'] }, hint: 'x' } : { hint: 'x' });
            ctx.state.started = Date.now();
          },
          async afterCreate(ctx) {
            // after the commit: another connection sees the record
            const row = await deps.db(model.table).where('id', ctx.id).first('id');
            calls.push(`afterCreate ${ctx.id} visible=${row !== undefined} state=${typeof ctx.state.started}`);
          },
          beforeUpdate(ctx) {
            calls.push(`beforeUpdate ${ctx.id} ${ctx.mode}`);
            if (ctx.data.latePaymentFees === 13) throw new HookError(422, 'thirteen is unlucky', { fields: { latePaymentFees: ['unlucky'] } });
          },
          afterUpdate() {
            throw new Error('an after hook that fails cannot undo the write');
          },
          beforeDelete(ctx) {
            if (ctx.id === protectedId) throw new HookError(409, `fee type ${ctx.id} is protected`);
          },
          afterDelete(ctx) {
            calls.push(`afterDelete ${ctx.id} ${String(ctx.record.feeType)}`);
          },
          beforeRecover(ctx) {
            calls.push(`beforeRecover ${ctx.id}`);
            if (ctx.id === unrecoverableId) throw new HookError(403, `fee type ${ctx.id} stays archived`);
          },
          afterRecover(ctx) {
            calls.push(`afterRecover ${ctx.id}`);
          },
        },
        {
          // every model
          afterCreate(ctx) {
            calls.push(`any afterCreate ${ctx.model}`);
          },
        },
        ];
      },
    };

    before(async () => {
      app = await startTestApp(dialect, { plugins: [...enabledPlugins(), recorder], env: { HOOKS_DIR: 'tests/fixtures/hooks' } });
    });
    after(async () => app?.close());
    beforeEach(() => void calls.splice(0));

    it('before* may change the data; after* runs after the commit with the before hook state', async () => {
      const res = await app.http.post('/api/fee-type', { feeType: 'trim:Tuition' });
      expect(res.status).to.equal(200);
      expect(res.body.data.feeType).to.equal('Tuition');
      expect((await app.http.get(`/api/fee-type/${res.body.data.id}`)).body.feeType).to.equal('Tuition');
      expect(calls).to.deep.equal(['beforeCreate trim:Tuition sees 0', `afterCreate ${res.body.data.id} visible=true state=number`, 'any afterCreate fee-type']);
    });

    it('before* runs inside the transaction: a bulk call sees its earlier items, and a failure rolls back all with no after hook', async () => {
      const ok = await app.http.post('/api/fee-type/bulk', [{ feeType: 'Bulk A' }, { feeType: 'Bulk B' }]);
      expect(ok.status).to.equal(200);
      expect(calls.filter((c) => c.startsWith('beforeCreate'))).to.deep.equal(['beforeCreate Bulk A sees 0', 'beforeCreate Bulk B sees 1']);
      expect(calls.filter((c) => c.startsWith('afterCreate'))).to.have.length(2);
      calls.splice(0);
      const mark = await app.deps.events.latestId();
      const bad = await app.http.post('/api/fee-type/bulk', [{ feeType: 'Bulk C' }, { feeType: 'Bulk A' }]);
      expect(bad.status).to.equal(409);
      expect(calls).to.deep.equal(['beforeCreate Bulk C sees 2', 'beforeCreate Bulk A sees 3']);
      expect(await app.deps.events.readAfter(mark)).to.deep.equal([]);
    });

    it('a refusal answers its status and message; nothing is written and no event is emitted', async () => {
      const mark = await app.deps.events.latestId();
      const res = await app.http.post('/api/institute', { name: 'Refused', code: 'REF' });
      expect(res.status).to.equal(418);
      expect(res.body.error).to.include({ status: 418, message: 'institutes named Refused are not welcome here' });
      expect((await app.http.get('/api/institute?filters[code][$eq]=REF')).body.meta.totalRecords).to.equal(0);
      expect(await app.deps.events.readAfter(mark)).to.deep.equal([]);
    });

    it('project hooks from HOOKS_DIR apply to their model, on JSON and multipart writes', async () => {
      const json = await app.http.post('/api/institute', { name: 'Loud', code: 'LOUD', city: 'springfield' });
      expect(json.body.data.city).to.equal('SPRINGFIELD');
      const form = await sendForm(`${app.url}/api/institute`, 'POST', { data: { name: 'Loud 2', code: 'LOUD2', city: 'ogdenville' } }, [{ part: 'logo', bytes: png('h'), type: 'image/png', name: 'h.png' }], app.fetch, app.admin!.accessToken);
      expect(form.status).to.equal(200);
      expect(form.body.data.city).to.equal('OGDENVILLE');
      // the model filter: a fee type's hooks are not the institute's
      expect(calls).to.deep.equal(['any afterCreate institute', 'any afterCreate institute']);
    });

    it('update: PATCH and PUT run the hooks; a refusal with details; an after hook failure leaves the write standing', async () => {
      const id = (await app.http.post('/api/fee-type', { feeType: 'Updatable' })).body.data.id;
      calls.splice(0);
      const refused = await app.http.patch(`/api/fee-type/${id}`, { latePaymentFees: 13 });
      expect(refused.status).to.equal(422);
      expect(refused.body.error.details.fields).to.deep.equal({ latePaymentFees: ['unlucky'] });
      const patched = await app.http.patch(`/api/fee-type/${id}`, { latePaymentFees: 12 });
      expect(patched.status).to.equal(200);
      const put = await app.http.put(`/api/fee-type/${id}`, { feeType: 'Updated' });
      expect(put.status).to.equal(200);
      expect(calls).to.deep.equal([`beforeUpdate ${id} patch`, `beforeUpdate ${id} patch`, `beforeUpdate ${id} put`]);
      expect((await app.http.get(`/api/fee-type/${id}`)).body.feeType).to.equal('Updated');
    });

    it('delete and recover: a refused delete keeps the record; after hooks see the record', async () => {
      protectedId = (await app.http.post('/api/fee-type', { feeType: 'Protected' })).body.data.id;
      const id = (await app.http.post('/api/fee-type', { feeType: 'Deletable' })).body.data.id;
      calls.splice(0);
      const refused = await app.http.del(`/api/fee-type/${protectedId}`);
      expect(refused.status).to.equal(409);
      expect(refused.body.error.message).to.equal(`fee type ${protectedId} is protected`);
      expect((await app.http.get(`/api/fee-type/${protectedId}`)).status).to.equal(200);
      // a bulk delete naming the protected record deletes none
      expect((await app.http.del('/api/fee-type/bulk', [id, protectedId])).status).to.equal(409);
      expect((await app.http.get(`/api/fee-type/${id}`)).status).to.equal(200);
      expect((await app.http.del(`/api/fee-type/${id}`)).status).to.equal(200);
      expect((await app.http.post(`/api/fee-type/recover/${id}`)).status).to.equal(200);
      expect(calls).to.deep.equal([`afterDelete ${id} Deletable`, `beforeRecover ${id}`, `afterRecover ${id}`]);
    });

    /** A bulk call's refusal: the hook's status and message, naming the item as validation errors do. */
    const expectItemRefusal = (res: { status: number; body: { error: Record<string, unknown> & { details: Record<string, unknown> } } }, status: number, index: number, message: string, fields: Record<string, string[]> = {}): void => {
      expect(res.status, JSON.stringify(res.body)).to.equal(status);
      expect(res.body.error).to.include({ status, name: 'HookError', message: `item ${index}: ${message}` });
      expect(res.body.error.details.errors).to.deep.equal([{ index, fields }]);
    };

    it('a bulk create refused by a hook names the item: details.errors [{index, fields}], with the hook\'s status and message (422, 409, 403, 418)', async () => {
      const mark = await app.deps.events.latestId();
      const invalid = await app.http.post('/api/fee-type/bulk', [{ feeType: 'Bulk Kept 1' }, { feeType: 'Bulk Kept 2' }, { feeType: 'Refuse 422' }]);
      expectItemRefusal(invalid, 422, 2, 'refused with 422', { feeType: ['is refused'] });
      // as a bulk validation error: details.fields holds the item's messages prefixed with it, details.errors the item's fields; other details kept
      expect(invalid.body.error.details).to.deep.equal({ fields: { feeType: ['item 2: is refused'] }, hint: 'x', errors: [{ index: 2, fields: { feeType: ['is refused'] } }] });
      for (const status of [409, 403, 418]) {
        const res = await app.http.post('/api/fee-type/bulk', [{ feeType: `Refuse ${status}` }, { feeType: 'Bulk Kept 3' }]);
        expectItemRefusal(res, status, 0, `refused with ${status}`);
        expect(res.body.error.details).to.deep.equal({ hint: 'x', errors: [{ index: 0, fields: {} }] });
      }
      // the project's hook (HOOKS_DIR) too
      expectItemRefusal(await app.http.post('/api/institute/bulk', [{ name: 'Fine', code: 'FINE1' }, { name: 'Refused', code: 'REF1' }]), 418, 1, 'institutes named Refused are not welcome here');
      // nothing written, no event; a single create keeps the hook's own answer
      expect((await app.http.get('/api/fee-type?filters[feeType][$startsWith]=Bulk Kept')).body.meta.totalRecords).to.equal(0);
      expect(await app.deps.events.readAfter(mark)).to.deep.equal([]);
      const single = await app.http.post('/api/fee-type', { feeType: 'Refuse 422' });
      expect(single.status).to.equal(422);
      expect(single.body.error).to.include({ message: 'refused with 422' });
      expect(single.body.error.details).to.deep.equal({ fields: { feeType: ['is refused'] }, hint: 'x' });
    });

    it('bulk delete and bulk recover refused by a hook name the item by its place in the id list', async () => {
      const ids: number[] = [];
      for (const name of ['Bulk Del 1', 'Bulk Del 2', 'Bulk Del 3']) ids.push((await app.http.post('/api/fee-type', { feeType: name })).body.data.id);
      protectedId = ids[2];
      const refused = await app.http.del('/api/fee-type/bulk', ids);
      expectItemRefusal(refused, 409, 2, `fee type ${ids[2]} is protected`);
      for (const id of ids) expect((await app.http.get(`/api/fee-type/${id}`)).status).to.equal(200);
      protectedId = -1;
      expect((await app.http.del('/api/fee-type/bulk', ids)).status).to.equal(200);
      unrecoverableId = ids[1];
      try {
        const notBack = await app.http.post('/api/fee-type/recover/bulk', ids);
        expectItemRefusal(notBack, 403, 1, `fee type ${ids[1]} stays archived`);
        for (const id of ids) expect((await app.http.get(`/api/fee-type/${id}`)).status).to.equal(404);
        // a single recover keeps the hook's own answer
        const single = await app.http.post(`/api/fee-type/recover/${ids[1]}`);
        expect(single.status).to.equal(403);
        expect(single.body.error.message).to.equal(`fee type ${ids[1]} stays archived`);
        expect(single.body.error.details).to.deep.equal({});
      } finally {
        unrecoverableId = -1;
      }
    });

    it('a bulk create of webhooks with one private destination (the webhooks plugin\'s hook): 422 naming the item and its url', async () => {
      const res = await app.http.post('/api/webhook/bulk', [
        { name: 'bulk-ok', url: 'https://hooks.example.com/ok', events: ['record.*'] },
        { name: 'bulk-private', url: 'http://10.0.0.7/hook', events: ['record.*'] },
      ]);
      expect(res.status, res.text).to.equal(422);
      expect(res.body.error.name).to.equal('HookError');
      expect(res.body.error.message).to.match(/^item 1: invalid webhook: url /);
      const errors = res.body.error.details.errors as { index: number; fields: Record<string, string[]> }[];
      expect(errors.map((e) => [e.index, Object.keys(e.fields)])).to.deep.equal([[1, ['url']]]);
      expect(res.body.error.details.fields).to.deep.equal({ url: errors[0].fields.url.map((m) => `item 1: ${m}`) });
      expect((await app.http.get('/api/webhook?filters[name][$startsWith]=bulk-')).body.meta.totalRecords).to.equal(0);
    });
  });

  describe(`lifecycle hooks: bulk publish and unpublish refused by a hook [${dialect}]`, () => {
    let app: TestApp;
    let refusedId = -1;
    const guard: Plugin = {
      name: 'publish-guard',
      hooks: () => ({
        models: ['article'],
        beforePublish(ctx) {
          if (ctx.id === refusedId) throw new HookError(409, `article ${ctx.id} is embargoed`, { until: 'tomorrow' });
        },
        beforeUnpublish(ctx) {
          if (ctx.id === refusedId) throw new HookError(403, `article ${ctx.id} must stay published`);
        },
      }),
    };

    before(async () => {
      app = await startTestApp(dialect, { contentTypesDir: DRAFT_MODELS, plugins: [...enabledPlugins(), guard] });
    });
    after(async () => app?.close());

    it('names the refused item of /publish/bulk and /unpublish/bulk; nothing changes', async () => {
      const ids = [await created(app.http, 'article', { title: 'Hooked A' }), await created(app.http, 'article', { title: 'Hooked B' })];
      refusedId = ids[1];
      const published = await app.http.post('/api/article/publish/bulk', ids);
      expect(published.status, published.text).to.equal(409);
      expect(published.body.error).to.include({ status: 409, name: 'HookError', message: `item 1: article ${ids[1]} is embargoed` });
      expect(published.body.error.details).to.deep.equal({ until: 'tomorrow', errors: [{ index: 1, fields: {} }] });
      expect((await app.http.get(`/api/article/${ids[0]}`)).status, 'still unpublished').to.equal(404);
      refusedId = -1;
      expect((await app.http.post('/api/article/publish/bulk', ids)).status).to.equal(200);
      refusedId = ids[0];
      const unpublished = await app.http.post('/api/article/unpublish/bulk', ids);
      expect(unpublished.status, unpublished.text).to.equal(403);
      expect(unpublished.body.error).to.include({ status: 403, name: 'HookError', message: `item 0: article ${ids[0]} must stay published` });
      expect(unpublished.body.error.details).to.deep.equal({ errors: [{ index: 0, fields: {} }] });
      expect((await app.http.get(`/api/article/${ids[1]}`)).status, 'still published').to.equal(200);
    });
  });
}
