/**
 * Issue 14, property: for random sequences of edits, publishes, unpublishes, soft deletes and recovers
 * over a few entries, readers (no token, default status) always see exactly the last published state of
 * each entry: FindOne, Find (values, count, order) and a populate from a model without drafts, and the
 * editors' status=draft view always shows the working copies. DRAFT_PROPERTY_RUNS (default 25) runs per
 * database; DRAFT_PROPERTY_SEED replays a failure.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import qs from 'qs';
import { DIALECTS } from '../../helpers/dialects';
import { DRAFT_MODELS, created } from '../../helpers/drafts';
import { startTestApp, type TestApp } from '../../helpers/test-app';

const RUNS = Number(process.env.DRAFT_PROPERTY_RUNS ?? 25);
const SEED = process.env.DRAFT_PROPERTY_SEED === undefined ? undefined : Number(process.env.DRAFT_PROPERTY_SEED);
const ENTRIES = 3;

type Op =
  | { readonly kind: 'edit'; readonly entry: number; readonly views: number; readonly body: string; readonly tagged: boolean }
  | { readonly kind: 'publish' | 'unpublish' | 'delete' | 'recover'; readonly entry: number };

interface Content {
  readonly title: string;
  readonly views: number | null;
  readonly body: string | null;
  readonly tagged: boolean;
}
interface Entry {
  id: number;
  draft: Content;
  published: Content | null;
  archived: boolean;
}

const entry = fc.integer({ min: 0, max: ENTRIES - 1 });
const OP: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('edit' as const), entry, views: fc.integer({ min: -5, max: 1000 }), body: fc.string({ maxLength: 12 }), tagged: fc.boolean() }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('publish' as const), entry }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('unpublish' as const), entry }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('delete' as const), entry }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('recover' as const), entry }) },
);

for (const dialect of DIALECTS) {
  describe(`draft & publish: readers see exactly the last published state (property) [${dialect}]`, () => {
    let app: TestApp;
    let tag: number;
    let run = 0;

    before(async () => {
      app = await startTestApp(dialect, { contentTypesDir: DRAFT_MODELS });
      tag = await created(app.http, 'tag', { name: 'watch' });
    });
    after(async () => app?.close());

    /** What readers must see vs what they see. */
    async function check(entries: readonly Entry[]): Promise<void> {
      const visible = entries.filter((e) => e.published !== null && !e.archived).sort((a, b) => a.id - b.id);
      const query = qs.stringify({ filters: { id: { $in: entries.map((e) => e.id) } }, sort: ['id'], fields: ['title', 'views', 'body'], populate: ['tags'] }, { encodeValuesOnly: true });
      const list = await app.anon.get(`/api/article?${query}`);
      expect(list.status, list.text).to.equal(200);
      expect(list.body.meta.totalRecords).to.equal(visible.length);
      const shown = list.body.records.map((r: Record<string, any>) => ({ id: r.id, title: r.title, views: r.views, body: r.body, tagged: r.tags.length > 0 }));
      expect(shown).to.deep.equal(visible.map((e) => ({ id: e.id, ...e.published })));
      for (const e of entries) {
        const one = await app.anon.get(`/api/article/${e.id}?fields[0]=views&fields[1]=body`);
        if (e.published === null || e.archived) expect(one.status, one.text).to.equal(404);
        else {
          expect(one.status, one.text).to.equal(200);
          expect({ views: one.body.views, body: one.body.body }).to.deep.equal({ views: e.published.views, body: e.published.body });
          const changed = JSON.stringify(e.draft) !== JSON.stringify(e.published);
          if (changed) expect(one.body._hasUnpublishedChanges).to.equal(true);
        }
      }
      // from the model without drafts: the tag lists the published, tagged, active entries
      const t = await app.anon.get(`/api/tag/${tag}?${qs.stringify({ populate: { articles: { fields: ['id'], filters: { id: { $in: entries.map((e) => e.id) } } } } }, { encodeValuesOnly: true })}`);
      expect(t.body.articles.map((a: { id: number }) => a.id)).to.deep.equal(visible.filter((e) => e.published?.tagged).map((e) => e.id));
      // editors see the working copies
      const drafts = await app.http.get(`/api/article?${qs.stringify({ status: 'draft', filters: { id: { $in: entries.map((e) => e.id) } }, sort: ['id'], fields: ['views', 'body'] }, { encodeValuesOnly: true })}`);
      expect(drafts.body.records.map((r: Record<string, any>) => ({ views: r.views, body: r.body }))).to.deep.equal(
        entries.filter((e) => !e.archived).sort((a, b) => a.id - b.id).map((e) => ({ views: e.draft.views, body: e.draft.body })),
      );
    }

    it('after every step of a random edit / publish / unpublish / delete / recover sequence', async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(OP, { minLength: 1, maxLength: 12 }), async (ops) => {
          run++;
          const entries: Entry[] = [];
          for (let i = 0; i < ENTRIES; i++) {
            const draft: Content = { title: `P${run}-${i}`, views: null, body: null, tagged: false };
            entries.push({ id: await created(app.http, 'article', { title: draft.title }), draft, published: null, archived: false });
          }
          for (const op of ops) {
            const e = entries[op.entry];
            if (op.kind === 'edit') {
              const res = await app.http.patch(`/api/article/${e.id}`, { views: op.views, body: op.body, tags: op.tagged ? [tag] : [] });
              if (e.archived) expect(res.status).to.equal(404);
              else {
                expect(res.status, res.text).to.equal(200);
                e.draft = { ...e.draft, views: op.views, body: op.body, tagged: op.tagged };
              }
            } else if (op.kind === 'publish' || op.kind === 'unpublish') {
              const res = await app.http.post(`/api/article/${e.id}/${op.kind}`);
              if (e.archived) expect(res.status).to.equal(404);
              else {
                expect(res.status, res.text).to.equal(200);
                e.published = op.kind === 'publish' ? { ...e.draft } : null;
              }
            } else if (op.kind === 'delete') {
              expect((await app.http.del(`/api/article/${e.id}`)).status).to.equal(e.archived ? 404 : 200);
              e.archived = true;
            } else {
              expect((await app.http.post(`/api/article/recover/${e.id}`)).status).to.equal(e.archived ? 200 : 404);
              e.archived = false;
            }
            await check(entries);
          }
        }),
        { numRuns: RUNS, ...(SEED !== undefined && { seed: SEED }) },
      );
    });
  });
}
