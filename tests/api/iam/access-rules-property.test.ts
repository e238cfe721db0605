/**
 * Property (issue 16): for a random row-level rule on `book.find` and a random Find query (filters with
 * relation walks that reach books from author, tag and profile; sorts through relations; totals; group
 * counts), the answer a user of the ruled role gets equals the in-memory oracle's answer over the
 * dataset with every book the rule does not match removed (tests/fixtures/query-oracle.ts): a book
 * the caller may not read behaves as if it did not exist, wherever the query meets it.
 * ACCESS_RULES_PROPERTY_RUNS (default 300) runs per database; ACCESS_RULES_PROPERTY_SEED replays.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import qs from 'qs';
import { DIALECTS } from '../../helpers/dialects';
import { startTestApp, type TestApp, type TestUser } from '../../helpers/test-app';
import { type Dataset, type Rec, seedDataset, TEXT_SAMPLES } from '../../fixtures/query-dataset';
import { FIXTURE_DIR, Oracle, type SortKeyGetter, sorted } from '../../fixtures/query-oracle';

const RUNS = Number(process.env.ACCESS_RULES_PROPERTY_RUNS ?? 300);
const SEED = process.env.ACCESS_RULES_PROPERTY_SEED === undefined ? undefined : Number(process.env.ACCESS_RULES_PROPERTY_SEED);

type Kind = 'text' | 'int' | 'dec' | 'bool' | 'date';
const FIELDS: Record<string, Record<string, Kind>> = {
  book: { id: 'int', title: 'text', pages: 'int', price: 'dec', available: 'bool', published: 'date', authorId: 'int' },
  author: { name: 'text', age: 'int', rating: 'dec', active: 'bool' },
  tag: { label: 'text' },
  profile: { handle: 'text', favoriteId: 'int' },
};
/** relation → [target, owning to-one?, inverse] */
const RELATIONS: Record<string, Record<string, readonly [string, boolean, string | null]>> = {
  book: { author: ['author', true, 'books'], tags: ['tag', false, 'books'] },
  author: { books: ['book', false, 'author'], profile: ['profile', false, 'author'] },
  tag: { books: ['book', false, 'tags'] },
  profile: { author: ['author', true, 'profile'], favorite: ['book', true, null] },
};
const OPS: Record<Kind, readonly string[]> = {
  text: ['$eq', '$ne', '$lt', '$gte', '$in', '$notIn', '$contains', '$containsi', '$startsWith', '$null', '$notNull'],
  int: ['$eq', '$ne', '$lt', '$lte', '$gt', '$gte', '$in', '$between', '$null', '$notNull'],
  dec: ['$eq', '$ne', '$lt', '$gte', '$between', '$null'],
  bool: ['$eq', '$ne', '$null', '$notNull'],
  date: ['$lt', '$gte', '$between', '$null'],
};
const VALUE: Record<Kind, fc.Arbitrary<string>> = {
  text: fc.constantFrom(...TEXT_SAMPLES, 'a', 'A', 'e', 'Ada', 'Red', 'Blue', '%', '_', 'Z'),
  int: fc.constantFrom('-5', '0', '1', '2', '3', '5', '7', '13', '42', '100', '250', '300', '1000'),
  dec: fc.constantFrom('0', '1.5', '4.5', '9.99', '19.5', '30', '100'),
  bool: fc.constantFrom('true', 'false'),
  date: fc.constantFrom('1999-12-31', '2020-01-01', '2021-06-15', '2025-02-28', '2018-08-08'),
};

function operand(op: string, v: fc.Arbitrary<string>): fc.Arbitrary<unknown> {
  if (op === '$null' || op === '$notNull') return fc.constantFrom('true', 'false');
  if (op === '$in' || op === '$notIn') return fc.array(v, { minLength: 1, maxLength: 3 });
  if (op === '$between') return fc.tuple(v, v);
  return v;
}
const ops = (kind: Kind): fc.Arbitrary<Record<string, unknown>> =>
  fc.constantFrom(...OPS[kind]).chain((op) => operand(op, VALUE[kind]).map((v) => ({ [op]: v }))).chain((o) => fc.oneof({ weight: 4, arbitrary: fc.constant(o) }, { weight: 1, arbitrary: fc.constant({ $not: o }) }));

function level(model: string, budget: number, back: string | null): fc.Arbitrary<Record<string, unknown>> {
  const fields = FIELDS[model];
  const entries: fc.Arbitrary<[string, unknown]>[] = [fc.constantFrom(...Object.keys(fields)).chain((f) => ops(fields[f]).map((o) => [f, o] as [string, unknown]))];
  if (budget > 0) {
    const sub = level(model, budget - 1, back);
    entries.push(fc.tuple(fc.constantFrom('$and', '$or'), fc.array(sub, { minLength: 1, maxLength: 2 })));
    entries.push(sub.map((s) => ['$not', s] as [string, unknown]));
    for (const [rel, [target, toOne, inverse]] of Object.entries(RELATIONS[model])) {
      if (rel === back) continue;
      const inner = level(target, budget - 1, inverse);
      const scoped = toOne ? inner : fc.oneof({ weight: 3, arbitrary: inner }, { weight: 1, arbitrary: fc.constantFrom('$null', '$notNull').chain((op) => fc.constantFrom('true', 'false').map((v) => ({ [op]: v }))) });
      entries.push(scoped.map((s) => [rel, s] as [string, unknown]));
    }
  }
  return fc.array(fc.oneof(...entries.map((arbitrary, i) => ({ weight: i === 0 ? 5 : 1, arbitrary }))), { minLength: 1, maxLength: 2 }).map((l) => Object.fromEntries(l));
}

const SORTS: Record<string, readonly string[]> = {
  book: ['title', 'pages', 'price', 'published', 'author.name', 'author.age'],
  author: ['name', 'age', 'rating'],
  tag: ['label'],
  profile: ['handle', 'favorite.title', 'favorite.pages', 'author.name'],
};
const sortArb = (model: string): fc.Arbitrary<string[]> => fc.array(fc.tuple(fc.constantFrom(...SORTS[model]), fc.constantFrom(':asc', ':desc')).map(([k, d]) => `${k}${d}`), { maxLength: 2 });

const CASE = fc.record({
  rule: level('book', 2, null),
  model: fc.constantFrom('book', 'book', 'author', 'tag', 'profile'),
}).chain(({ rule, model }) => fc.record({ rule: fc.constant(rule), model: fc.constant(model), filters: fc.option(level(model, 2, null), { nil: undefined }), sort: sortArb(model) }));

const TO_ONE_TARGET: Record<string, string> = { 'book.author': 'author', 'profile.favorite': 'book', 'profile.author': 'author' };
function getters(oracle: Oracle, model: string, sort: readonly string[]): SortKeyGetter[] {
  return sort.map((raw) => {
    const [path, dir] = raw.split(':');
    const parts = path.split('.');
    const get = (r: Rec): unknown => {
      if (parts.length === 1) return r[parts[0]] ?? null;
      const target = TO_ONE_TARGET[`${model}.${parts[0]}`];
      const linked = oracle.rows(target).find((x) => x.id === r[`${parts[0]}Id`] && (x.deletedTracker ?? 'not-deleted') === 'not-deleted');
      return linked ? (linked[parts[1]] ?? null) : null;
    };
    return [get, dir === 'desc' ? 'desc' : 'asc'] as const;
  });
}

/** The dataset as a caller who may read only `readable` books sees it: the other active books are gone. */
function without(data: Dataset, readable: ReadonlySet<number>): Dataset {
  const records = new Map(data.records);
  records.set('book', (data.records.get('book') ?? []).filter((b) => readable.has(b.id) || (b.deletedTracker ?? 'not-deleted') !== 'not-deleted'));
  return { ...data, records };
}

for (const dialect of DIALECTS) {
  describe(`access rules property: a ruled caller's answer is the oracle's over the readable rows [${dialect}]`, function () {
    this.timeout(600_000);
    let app: TestApp;
    let data: Dataset;
    let full: Oracle;
    let user: TestUser;
    let ruleId: number;

    before(async () => {
      // the rules, not the cost bounds, are under test: random trees may hold more than the default 16 relation scopes
      app = await startTestApp(dialect, { contentTypesDir: FIXTURE_DIR, env: { QUERY_MAX_RELATION_SCOPES: '200' } });
      data = await seedDataset(app.http);
      full = new Oracle(data);
      const role = await app.http.post('/api/role', { name: 'ruled' });
      expect(role.status, role.text).to.equal(200);
      const perms = await app.http.get(`/api/permission?${qs.stringify({ filters: { action: { $in: ['author.find', 'tag.find', 'profile.find'] } } }, { encodeValuesOnly: true })}`);
      expect((await app.http.patch(`/api/role/${role.body.data.id}`, { permissions: (perms.body.records as Rec[]).map((p) => p.id) })).status).to.equal(200);
      const r = await app.http.post('/api/access-rule', { roleId: role.body.data.id, action: 'book.find', where: { id: { $notNull: true } } });
      expect(r.status, r.text).to.equal(200);
      ruleId = r.body.data.id;
      user = await app.createUser({ roles: ['ruled'] });
    });
    after(async () => app?.close());

    it(`${RUNS} random rules × random Find queries: records, order, totals and group counts`, async () => {
      let restricting = 0;
      await fc.assert(
        fc.asyncProperty(CASE, async ({ rule, model, filters, sort }) => {
          const saved = await app.http.patch(`/api/access-rule/${ruleId}`, { where: rule });
          expect(saved.status, saved.text).to.equal(200);
          const readable = new Set(full.ids('book', rule));
          if (readable.size < full.ids('book', undefined).length) restricting++;
          const oracle = new Oracle(without(data, readable));
          const query = qs.stringify({ filters, sort, fields: ['id'], limit: 100 }, { encodeValuesOnly: true });
          const res = await user.http.get(`/api/${model}?${query}`);
          expect(res.status, `${query}\n${res.text}`).to.equal(200);
          const parsed = qs.parse(query, { depth: 20 }).filters;
          const matching = new Set(oracle.ids(model, parsed));
          const want = sorted(oracle.rows(model).filter((r) => matching.has(r.id)), getters(oracle, model, sort));
          const ctx = `rule ${JSON.stringify(rule)}\n${decodeURIComponent(query)}`;
          expect((res.body.records as Rec[]).map((r) => r.id), ctx).to.deep.equal(want);
          expect(res.body.meta.totalRecords, ctx).to.equal(want.length);
          if (model === 'book') {
            const g = await user.http.get(`/api/book?${qs.stringify({ filters, groupBy: ['available'], limit: 10 }, { encodeValuesOnly: true })}`);
            expect(g.status, g.text).to.equal(200);
            const got = Object.fromEntries((g.body.records as { available: boolean | null; count: number }[]).map((x) => [String(x.available), x.count]));
            const expected: Record<string, number> = {};
            for (const r of oracle.rows('book').filter((x) => matching.has(x.id))) expected[String(r.available ?? null)] = (expected[String(r.available ?? null)] ?? 0) + 1;
            expect(got, `group counts: ${ctx}`).to.deep.equal(expected);
            expect(g.body.meta.totalRecords).to.equal(Object.keys(expected).length);
          }
        }),
        { numRuns: RUNS, ...(SEED !== undefined && { seed: SEED }) },
      );
      // The rules must not be vacuous: a good share hides some books.
      expect(restricting).to.be.greaterThan(RUNS / 4);
    });
  });
}
