/**
 * Issue 15 with the identity plugin's own deletes, every database: DELETE /api/iam/api-tokens/{id} removes
 * the token's access rules through the database's foreign keys (access-rule.yaml: `apiToken`, onDelete
 * cascade); each removed rule is a record with events, so the delete announces a `record.delete` for it
 * (its record as FindOne answered it just before), in the token delete's transaction, by the caller.
 */
import { expect } from 'chai';
import type { StoredEvent } from '../../../core/events/types';
import { DIALECTS } from '../../helpers/dialects';
import { startTestApp, type TestApp } from '../../helpers/test-app';

for (const dialect of DIALECTS) {
  describe(`events of the access rules an API token's delete removes [${dialect}]`, function () {
    this.timeout(60_000);
    let app: TestApp;
    let mark = 0;
    let n = 0;
    /** When set, the outbox step of the next access-rule event throws (inside the delete's transaction). */
    let failOnRuleEvent = false;

    /** Record events committed since the last call. */
    const fresh = async (): Promise<StoredEvent[]> => {
      const list = await app.deps.events.readAfter(mark, 10_000);
      if (list.length > 0) mark = list[list.length - 1].id;
      return list.filter((e) => e.type.startsWith('record.'));
    };
    const token = async (kind = 'custom'): Promise<{ id: number; secret: string }> => {
      const res = await app.http.post('/api/iam/api-tokens', { name: `events-${++n}`, kind, ...(kind === 'custom' && { permissions: ['fee-type.find', 'institute.find'] }) });
      expect(res.status, res.text).to.equal(200);
      return res.body.data as { id: number; secret: string };
    };
    const rule = async (body: Record<string, unknown>): Promise<number> => {
      const res = await app.http.post('/api/access-rule', body);
      expect(res.status, res.text).to.equal(200);
      return res.body.data.id as number;
    };
    const findOne = async (id: number): Promise<Record<string, unknown>> => {
      const res = await app.http.get(`/api/access-rule/${id}`);
      expect(res.status, res.text).to.equal(200);
      return res.body as Record<string, unknown>;
    };
    const roleId = async (name: string): Promise<number> => {
      const res = await app.http.get(`/api/role?filters[name][$eq]=${name}`);
      expect(res.status, res.text).to.equal(200);
      return res.body.records[0].id as number;
    };

    before(async () => {
      app = await startTestApp(dialect);
      app.deps.events.onAppend(async (_trx, appended) => {
        if (failOnRuleEvent && appended.some((e) => e.model === 'access-rule')) throw new Error('test: the outbox step fails');
      });
      mark = await app.deps.events.latestId();
    });
    after(async () => {
      await app?.close();
    });

    it('DELETE /api/iam/api-tokens/{id}: a record.delete per access rule of the token (as FindOne answered it), by the caller; other rules untouched', async () => {
      const t = await token();
      const other = await token();
      const first = await rule({ apiTokenId: t.id, action: 'fee-type.find', where: { feeType: { $startsWith: 'A' } }, fields: ['feeType'], description: 'first' });
      const second = await rule({ apiTokenId: t.id, action: 'institute.find', where: null });
      const kept = await rule({ apiTokenId: other.id, action: 'fee-type.find', where: null });
      const ofRole = await rule({ roleId: await roleId('authenticated'), action: 'fee-type.find', where: { feeType: { $eq: 'x' } } });
      const before = [await findOne(first), await findOne(second)];
      expect(before[0]).to.include({ id: first, action: 'fee-type.find', description: 'first' });
      await fresh();

      const res = await app.http.del(`/api/iam/api-tokens/${t.id}`);
      expect(res.status, res.text).to.equal(200);
      const events = await fresh();
      expect(events.map((e) => [e.type, e.model, e.recordId])).to.deep.equal([
        ['record.delete', 'access-rule', first],
        ['record.delete', 'access-rule', second],
      ]);
      expect(events.map((e) => e.record)).to.deep.equal(before);
      for (const e of events) expect(e.actor).to.deep.equal({ userId: app.admin!.id, apiTokenId: null });
      expect((await app.http.get(`/api/access-rule/${first}`)).status).to.equal(404);
      expect((await app.http.get(`/api/access-rule/${second}`)).status).to.equal(404);
      await findOne(kept);
      await findOne(ofRole);
    });

    it('a token without access rules: its delete announces nothing (the token itself has no record API)', async () => {
      const t = await token('read-only');
      await fresh();
      expect((await app.http.del(`/api/iam/api-tokens/${t.id}`)).status).to.equal(200);
      expect(await fresh()).to.deep.equal([]);
    });

    it('the events are in the delete\'s transaction: an outbox step that fails rolls the token and its rules back', async () => {
      const t = await token();
      const r = await rule({ apiTokenId: t.id, action: 'fee-type.find', where: null });
      await fresh();
      failOnRuleEvent = true;
      try {
        expect((await app.http.del(`/api/iam/api-tokens/${t.id}`)).status).to.equal(500);
      } finally {
        failOnRuleEvent = false;
      }
      expect(await fresh()).to.deep.equal([]);
      expect(((await app.http.get('/api/iam/api-tokens')).body.data as { id: number }[]).map((x) => x.id)).to.include(t.id);
      await findOne(r);
      // …and the token still works until a delete commits.
      expect((await app.anon.withToken(t.secret).get('/api/fee-type')).status).to.equal(200);
      expect((await app.http.del(`/api/iam/api-tokens/${t.id}`)).status).to.equal(200);
      expect((await fresh()).map((e) => [e.type, e.recordId])).to.deep.equal([['record.delete', r]]);
    });
  });
}
