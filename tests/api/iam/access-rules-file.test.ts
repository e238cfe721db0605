/**
 * Issue 16 + issue 15: the access-rules file (IAM_ACCESS_RULES_FILE) applied at every start as a diff, in one
 * transaction, each change announced as the record API's write would be (actor null, the system):
 * - the first start creates the roles it names and its rules: a `record.create` each (roles first);
 * - a restart with the same file (or the same rules written differently) writes and announces nothing, and
 *   the rules keep their ids;
 * - a changed file deletes, updates and inserts only what changed (`record.delete` with the record as it was,
 *   `record.update` / `record.create` with the record after); rules made through the API are never touched;
 *   a file rule changed through the API is put back at the next start (its `record.update`);
 * - two nodes applying at once write (and announce) each change once.
 */
import { expect } from 'chai';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import qs from 'qs';
import type { StoredEvent } from '../../../core/events/types';
import { applyAccessRulesFile } from '../../../core/plugins/users-permissions/access-rules-file';
import { AccessRuleStore } from '../../../core/plugins/users-permissions/access-rules';
import { IdentityStore } from '../../../core/plugins/users-permissions/store';
import { DIALECTS } from '../../helpers/dialects';
import { startTestApp, type TestApp } from '../../helpers/test-app';
import { createTestDatabase, type TestDatabase } from '../../helpers/test-db';

const q = (o: Record<string, unknown>): string => qs.stringify(o, { encodeValuesOnly: true });

const V1 = `
editor:
  institute.find:
    - where: { city: { $eq: Springfield }, name: { $startsWith: S } }
      fields: [name, city]
      description: Springfield, S only
  institute.findOne:
    - where: { city: { $eq: Springfield } }
  fee-type.find: [{}]
reviewer:
  fee-type.findOne:
    - fields: [feeType]
`;

// V1 written differently: keys in another order, comments, flow style. The same rules.
const V1_AGAIN = `
# the same rules as before
reviewer:
  fee-type.findOne: [{ fields: [feeType] }]
editor:
  fee-type.find:
    - {}
  institute.find:
    - description: Springfield, S only
      fields: [name, city]
      where: { name: { $startsWith: S }, city: { $eq: Springfield } }
  institute.findOne: [{ where: { city: { $eq: Springfield } } }]
`;

const V2 = `
editor:
  institute.find:
    - where: { city: { $eq: Springfield }, name: { $startsWith: S } }
      fields: [name, city]
      description: Springfield and S   # changed: updated
  # institute.findOne dropped: deleted
  fee-type.find: [{}]                  # unchanged: kept
  fee-type.findOne:                    # new: created
    - where: { createdById: { $eq: $actor.id } }
reviewer:
  fee-type.findOne:
    - fields: [feeType, dueDate]       # changed: updated
author:                                # a new role
  fee-type.find: [{}]
`;

const V3 = `${V2}auditor:
  institute.find: [{ fields: [name] }, { where: { city: { $eq: Shelbyville } } }]
  fee-type.find: [{}]
`;

for (const dialect of DIALECTS) {
  describe(`identity: the access-rules file, applied as a diff and announced [${dialect}]`, function () {
    this.timeout(60_000);
    let database: TestDatabase;
    let app: TestApp;
    let file: string;

    const start = async (text: string): Promise<void> => {
      writeFileSync(file, text);
      await app?.close();
      app = await startTestApp(dialect, { database, env: { IAM_ACCESS_RULES_FILE: file } });
    };
    /** Events of access rules and of the roles the file names, after `mark`. */
    const ruleEvents = async (mark: number): Promise<StoredEvent[]> =>
      (await app.deps.events.readAfter(mark, 10_000)).filter((e) => e.model === 'access-rule' || (e.model === 'role' && ['editor', 'reviewer', 'author', 'auditor'].includes(String((e.record as { name?: unknown } | null)?.name))));
    const rules = async (source?: 'file' | 'api'): Promise<Record<string, unknown>[]> => {
      const res = await app.http.get(`/api/access-rule?${q({ filters: source ? { source: { $eq: source } } : {}, sort: ['id'], limit: 100 })}`);
      expect(res.status, res.text).to.equal(200);
      return res.body.records as Record<string, unknown>[];
    };
    const read = async (model: string, id: unknown): Promise<Record<string, unknown>> => {
      const res = await app.http.get(`/api/${model}/${id}`);
      expect(res.status, res.text).to.equal(200);
      return res.body as Record<string, unknown>;
    };
    const roleId = async (name: string): Promise<number> => {
      const res = await app.http.get(`/api/role?${q({ filters: { name: { $eq: name } } })}`);
      expect(res.body.records, name).to.have.length(1);
      return res.body.records[0].id as number;
    };
    const find = (list: Record<string, unknown>[], role: number, action: string): Record<string, unknown> => {
      const found = list.filter((r) => r.roleId === role && r.action === action);
      expect(found, `${role} ${action}`).to.have.length(1);
      return found[0];
    };

    before(async () => {
      database = await createTestDatabase(dialect);
      file = join(mkdtempSync(join(tmpdir(), 'rules-file-')), 'access-rules.yaml');
    });
    after(async () => {
      await app?.close();
      await database?.drop();
    });

    it('the first start creates the roles and rules: record.create each (roles first), by the system, the FindOne answer', async () => {
      await start(V1);
      const events = await ruleEvents(0);
      const stored = await rules('file');
      expect(stored).to.have.length(4);
      const editor = await roleId('editor');
      const reviewer = await roleId('reviewer');
      expect(events.map((e) => [e.type, e.model, e.recordId, e.actor])).to.deep.equal([
        ['record.create', 'role', editor, null],
        ['record.create', 'role', reviewer, null],
        ...stored.map((r) => ['record.create', 'access-rule', r.id, null]),
      ]);
      for (const e of events) expect(e.record, `${e.model} ${e.recordId}`).to.deep.equal(await read(e.model as string, e.recordId));
      expect(find(stored, editor, 'institute.find')).to.include({ description: 'Springfield, S only', source: 'file' });
      // the rows carry their case-fold columns like the API's: the …i operators find them
      const folded = await app.http.get(`/api/access-rule?${q({ filters: { source: { $eqi: 'FILE' }, action: { $containsi: 'INSTITUTE' } } })}`);
      expect(folded.body.meta?.totalRecords ?? folded.body.records.length, folded.text).to.equal(2);
    });

    it('a restart with the same file (or the same rules written differently) writes and announces nothing; ids and rows stay', async () => {
      const before = await rules();
      for (const text of [V1, V1_AGAIN]) {
        const mark = await app.deps.events.latestId();
        await start(text);
        expect(await ruleEvents(mark), text === V1 ? 'same file' : 'same rules').to.deep.equal([]);
        expect(await rules(), 'same ids, same updatedAt').to.deep.equal(before);
      }
    });

    it('a changed file deletes, updates and creates only what changed, each announced; rules made through the API stay as they were', async () => {
      const editor = await roleId('editor');
      const reviewer = await roleId('reviewer');
      // API rules, one saying exactly what a file rule says (the file's going must not take it), one for another permission
      const twin = await app.http.post('/api/access-rule', { roleId: editor, action: 'institute.findOne', where: { city: { $eq: 'Springfield' } } });
      expect(twin.status, twin.text).to.equal(200);
      const other = await app.http.post('/api/access-rule', { roleId: reviewer, action: 'fee-type.findOne', fields: ['feeType'], description: 'made by hand' });
      expect(other.status, other.text).to.equal(200);
      const api = await rules('api');
      expect(api).to.have.length(2);
      const old = await rules('file');
      const gone = find(old, editor, 'institute.findOne');
      const goneRecord = await read('access-rule', gone.id);
      const kept = find(old, editor, 'fee-type.find');
      const edited = find(old, editor, 'institute.find');
      const refielded = find(old, reviewer, 'fee-type.findOne');

      const mark = await app.deps.events.latestId();
      await start(V2);
      const now = await rules('file');
      const author = await roleId('author');
      expect(now).to.have.length(5);
      expect(find(now, editor, 'fee-type.find'), 'unchanged: kept as it was').to.deep.equal(kept);
      expect(find(now, editor, 'institute.find')).to.include({ id: edited.id, description: 'Springfield and S' });
      expect(find(now, reviewer, 'fee-type.findOne')).to.include({ id: refielded.id }).and.to.have.deep.property('fields', ['feeType', 'dueDate']);
      const created = [find(now, editor, 'fee-type.findOne'), find(now, author, 'fee-type.find')];
      for (const c of created) expect(c.id).to.be.above(Math.max(...[...old, ...api].map((r) => r.id as number)));
      expect(now.map((r) => r.id)).to.not.include(gone.id);
      expect(await rules('api'), 'API rules untouched').to.deep.equal(api);

      const events = await ruleEvents(mark);
      expect(events.map((e) => [e.type, e.model, e.recordId, e.actor])).to.deep.equal([
        ['record.create', 'role', author, null],
        ['record.delete', 'access-rule', gone.id, null],
        ['record.update', 'access-rule', edited.id, null],
        ['record.update', 'access-rule', refielded.id, null],
        ['record.create', 'access-rule', created[0].id, null],
        ['record.create', 'access-rule', created[1].id, null],
      ]);
      expect(events[1].record, 'the deleted rule as it was').to.deep.equal(goneRecord);
      for (const e of [events[0], ...events.slice(2)]) expect(e.record, `${e.type} ${e.recordId}`).to.deep.equal(await read(e.model as string, e.recordId));
      expect((await app.http.get(`/api/access-rule/${gone.id}`)).status).to.equal(404);
    });

    it('a file rule changed or deleted through the API is put back at the next start (record.update / record.create); the rest stays', async () => {
      const editor = await roleId('editor');
      const before = await rules('file');
      const patched = find(before, editor, 'institute.find');
      const deleted = find(before, editor, 'fee-type.find');
      expect((await app.http.patch(`/api/access-rule/${patched.id}`, { where: { city: { $eq: 'Shelbyville' } } })).status).to.equal(200);
      expect((await app.http.del(`/api/access-rule/${deleted.id}`)).status).to.equal(200);
      const mark = await app.deps.events.latestId();
      await start(V2);
      const after = await rules('file');
      const back = find(after, editor, 'fee-type.find');
      const events = await ruleEvents(mark);
      expect(events.map((e) => [e.type, e.recordId])).to.deep.equal([
        ['record.update', patched.id],
        ['record.create', back.id],
      ]);
      expect(find(after, editor, 'institute.find')).to.include({ id: patched.id }).and.to.have.deep.property('where', { city: { $eq: 'Springfield' }, name: { $startsWith: 'S' } });
      const untouched = (list: Record<string, unknown>[]) => list.filter((r) => r.id !== patched.id && r.id !== deleted.id && r.id !== back.id);
      expect(untouched(after)).to.deep.equal(untouched(before));
    });

    it('two nodes applying a changed file at once write and announce each change once', async () => {
      // a second node on the same database (its start applied V2: nothing to do)
      const second = await startTestApp(dialect, { database, env: { IAM_ACCESS_RULES_FILE: file } });
      try {
        const nodes = [app, second].map((a) => ({ store: new IdentityStore(a.deps), rules: new AccessRuleStore(a.deps) }));
        const v2 = await rules('file');
        // both apply V3 at once, twice each
        writeFileSync(file, V3);
        const mark = await app.deps.events.latestId();
        const settled = await Promise.allSettled([0, 1, 0, 1].map((i) => applyAccessRulesFile(nodes[i].store, nodes[i].rules, file)));
        expect(settled.filter((r) => r.status === 'rejected').map((r) => String((r as PromiseRejectedResult).reason)), 'none fails').to.deep.equal([]);
        const v3 = await rules('file');
        expect(v3, 'each new rule stored once').to.have.length(v2.length + 3);
        expect(v3.slice(0, v2.length)).to.deep.equal(v2);
        const auditor = await roleId('auditor');
        const events = await ruleEvents(mark);
        expect(events.map((e) => [e.type, e.model, e.recordId])).to.deep.equal([['record.create', 'role', auditor], ...v3.slice(v2.length).map((r) => ['record.create', 'access-rule', r.id])]);
        // one applier did the work, the three others found it done
        const results = settled.map((r) => (r as PromiseFulfilledResult<Awaited<ReturnType<typeof applyAccessRulesFile>>>).value);
        expect(results.map((r) => [r.roles, r.created, r.updated, r.deleted].join()).sort()).to.deep.equal(['0,0,0,0', '0,0,0,0', '0,0,0,0', '1,3,0,0']);
      } finally {
        await second.close();
      }
    });
  });
}
