/**
 * Property: for random filter trees and sorts (every operator, `$and` / `$or` / `$not` nesting, relation filters
 * through to-one and to-many relations, NULLs, `%` `_` `\`, mixed case), GET /api/{model} answers exactly
 * the in-memory oracle's ids in the oracle's order (NULL smallest, text by bytes, id tie-breaker)
 * (tests/fixtures/query-oracle.ts), on every database. The query string is
 * written as clients write it: qs.stringify(…, {encodeValuesOnly: true}).
 * QUERY_PROPERTY_RUNS (default 1000) runs per database; QUERY_PROPERTY_SEED replays a failure.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import qs from 'qs';
import { DIALECTS } from '../../helpers/dialects';
import { startTestApp, type TestApp } from '../../helpers/test-app';
import { type Rec, seedDataset, TEXT_SAMPLES, UNICODE_SAMPLES } from '../../fixtures/query-dataset';
import { FIXTURE_DIR, Oracle, type SortKeyGetter, sorted } from '../../fixtures/query-oracle';

const RUNS = Number(process.env.QUERY_PROPERTY_RUNS ?? 1000);
const SEED = process.env.QUERY_PROPERTY_SEED === undefined ? undefined : Number(process.env.QUERY_PROPERTY_SEED);

type Kind = 'text' | 'int' | 'dec' | 'bool' | 'date' | 'datetime' | 'json';
interface ModelSpec {
  readonly fields: Readonly<Record<string, Kind>>;
  /** relation → [target model, to-one owner?, its inverse on the target (null: none)] */
  readonly relations: Readonly<Record<string, readonly [string, boolean, (string | null)?]>>;
}

const MODELS: Readonly<Record<string, ModelSpec>> = {
  book: {
    fields: { id: 'int', title: 'text', pages: 'int', price: 'dec', available: 'bool', published: 'date', releasedAt: 'datetime', authorId: 'int' },
    relations: { author: ['author', true, 'books'], tags: ['tag', false, 'books'] },
  },
  author: {
    fields: { name: 'text', bio: 'text', email: 'text', age: 'int', rating: 'dec', score: 'dec', active: 'bool', born: 'date', lastSeen: 'datetime', genre: 'text', meta: 'json' },
    relations: { books: ['book', false, 'author'], profile: ['profile', false, 'author'] },
  },
  tag: { fields: { label: 'text' }, relations: { books: ['book', false, 'tags'] } },
  profile: { fields: { handle: 'text', authorId: 'int', favoriteId: 'int' }, relations: { author: ['author', true, 'profile'], favorite: ['book', true, null] } },
};

const TEXT_OPS = ['$eq', '$eqi', '$ne', '$nei', '$lt', '$lte', '$gt', '$gte', '$in', '$notIn', '$contains', '$notContains', '$containsi', '$notContainsi', '$startsWith', '$startsWithi', '$endsWith', '$endsWithi', '$between', '$null', '$notNull'];
const ORDERED_OPS = ['$eq', '$ne', '$lt', '$lte', '$gt', '$gte', '$in', '$notIn', '$between', '$null', '$notNull'];
const OPS: Record<Kind, readonly string[]> = {
  text: TEXT_OPS,
  int: ORDERED_OPS,
  dec: ORDERED_OPS,
  date: ORDERED_OPS,
  datetime: ORDERED_OPS,
  bool: ['$eq', '$ne', '$in', '$notIn', '$null', '$notNull'],
  json: ['$null', '$notNull'],
};

const pad = (n: number): string => String(n).padStart(2, '0');
const VALUE: Record<Kind, fc.Arbitrary<string>> = {
  text: fc.oneof(
    fc.constantFrom(...TEXT_SAMPLES, ...UNICODE_SAMPLES, 'ärger', 'ÄRGER', 'ä', 'Ü', 'école', 'É', 'e\u0301', 'strasse', 'ß', 'SS', 'σ', 'Σ', 'ς', 'οδος', 'д', 'Дом', 'alpha', 'ALPHA', 'a', 'A', '%', '_', '\\', 'a_b', 'b%c', 'eta', 'ETA', 'red', 'Red', 'R', '@ada', 'Ada', 'ada', 'bob', 'C%rl', 'dan_x', 'e', 'E', 'poems', '@', '50%', 'B_lue'),
    fc.string({ unit: fc.constantFrom('a', 'A', 'b', 'B', 'z', 'Z', '%', '_', '\\', ' ', 'e', 't', 'ä', 'Ä', 'ß', 's', 'Σ', 'ς', 'д'), maxLength: 3 }),
  ),
  int: fc.oneof(fc.constantFrom('-5', '0', '1', '7', '13', '20', '36', '42', '99', '100', '250', '300', '301', '1000'), fc.integer({ min: -10, max: 1100 }).map(String)),
  dec: fc.oneof(fc.constantFrom('0', '1.5', '2', '4.25', '4.5', '9.99', '19.5', '30', '30.01', '100', '-1', '-1.5', '13.13', '0.001', '0.25'), fc.integer({ min: -200, max: 12000 }).map((n) => String(n / 100))),
  bool: fc.constantFrom('true', 'false', '1', '0'),
  date: fc.oneof(
    fc.constantFrom('2020-01-01', '2021-06-15', '1999-12-31', '2025-02-28', '2018-08-08', '1815-12-10', '2000-02-29'),
    fc.record({ y: fc.integer({ min: 1990, max: 2030 }), m: fc.integer({ min: 1, max: 12 }), d: fc.integer({ min: 1, max: 28 }) }).map(({ y, m, d }) => `${y}-${pad(m)}-${pad(d)}`),
  ),
  datetime: fc.oneof(
    fc.constantFrom('2020-01-01T08:00:00.000Z', '2020-01-01T08:00:00.001Z', '2018-08-08T08:08:08.500Z', '2026-01-01T10:00:00Z', '2026-01-01T11:00:00+01:00', '2025-06-30T23:59:59.999Z'),
    fc.integer({ min: Date.UTC(1995, 0, 1), max: Date.UTC(2030, 0, 1) }).map((t) => new Date(t).toISOString()),
  ),
  json: fc.constant('x'),
};
const ID = fc.integer({ min: 0, max: 16 }).map(String);

function operand(op: string, value: fc.Arbitrary<string>): fc.Arbitrary<unknown> {
  if (op === '$null' || op === '$notNull') return fc.constantFrom('true', 'false');
  if (op === '$in' || op === '$notIn') return fc.array(value, { minLength: 1, maxLength: 3 });
  if (op === '$between') return fc.tuple(value, value);
  return value;
}

/** `{ $op: value, … }`, sometimes wrapped in `$not`. */
function ops(kind: Kind, value: fc.Arbitrary<string> = VALUE[kind]): fc.Arbitrary<Record<string, unknown>> {
  const one = fc.constantFrom(...OPS[kind]).chain((op) => operand(op, value).map((v) => ({ [op]: v })));
  const some = fc.array(one, { minLength: 1, maxLength: 2 }).map((list) => Object.assign({}, ...list) as Record<string, unknown>);
  return fc.oneof({ weight: 5, arbitrary: some }, { weight: 1, arbitrary: some.map((o) => ({ $not: o })) });
}

/**
 * One level of a filter over `model`. `idOps`: operators may stand at this level (a relation scope),
 * comparing the related id (or, under an owning to-one, the stored id). `back`: the inverse of the
 * relation just walked, which the service refuses (a walk straight back; query-cost.test.ts).
 */
function level(model: string, budget: number, idOps: boolean, back: string | null = null): fc.Arbitrary<Record<string, unknown>> {
  const spec = MODELS[model];
  const entries: fc.Arbitrary<[string, unknown]>[] = [
    fc.constantFrom(...Object.keys(spec.fields)).chain((f) => ops(spec.fields[f]).map((v) => [f, v] as [string, unknown])),
  ];
  if (idOps) entries.push(ops('int', ID).map((o) => Object.entries(o)[0] as [string, unknown]));
  if (budget > 0) {
    const sub = level(model, budget - 1, idOps, back);
    entries.push(fc.tuple(fc.constantFrom('$and', '$or'), fc.array(sub, { minLength: 1, maxLength: 3 })));
    entries.push(sub.map((s) => ['$not', s] as [string, unknown]));
    for (const [rel, [target, toOne, inverse]] of Object.entries(spec.relations)) {
      if (rel === back) continue;
      const inner = level(target, budget - 1, true, inverse ?? null);
      const scoped = toOne ? inner : fc.oneof({ weight: 4, arbitrary: inner }, { weight: 1, arbitrary: fc.constantFrom('$null', '$notNull').chain((op) => fc.constantFrom('true', 'false').map((v) => ({ [op]: v }))) });
      entries.push(scoped.map((s) => [rel, s] as [string, unknown]));
    }
  }
  const weighted = entries.map((arbitrary, i) => ({ weight: i === 0 ? 6 : 1, arbitrary }));
  return fc.array(fc.oneof(...weighted), { minLength: 1, maxLength: 3 }).map((list) => Object.fromEntries(list));
}

/** Sort keys: every sortable field of the root, and dotted paths through its owning to-one relation. */
function sortKeys(model: string): string[] {
  const spec = MODELS[model];
  const own = Object.keys(spec.fields).filter((f) => spec.fields[f] !== 'json');
  const dotted = Object.entries(spec.relations).filter(([, [, toOne]]) => toOne).flatMap(([rel, [target]]) => Object.keys(MODELS[target].fields).filter((f) => MODELS[target].fields[f] !== 'json').map((f) => `${rel}.${f}`));
  return [...own, ...dotted];
}
const sortArb = (model: string): fc.Arbitrary<string[]> =>
  fc.array(
    fc.tuple(fc.constantFrom(...sortKeys(model)), fc.constantFrom('', '-', ':desc', ':ASC', ':asc', ':DESC')).map(([k, form]) => (form === '-' ? `-${k}` : `${k}${form}`)),
    { maxLength: 2 },
  );

const ROOTS = ['book', 'book', 'book', 'author', 'tag', 'profile'] as const;
export const CASE = fc
  .constantFrom(...ROOTS)
  .chain((model) => fc.record({ model: fc.constant(model), filters: level(model, 3, false), sort: sortArb(model) }));

/** Key getters for `sorted` (query-oracle.ts): a field, or `relation.field` through the linked active record. */
function sortGetters(oracle: Oracle, model: string, sort: readonly string[]): SortKeyGetter[] {
  return sort.map((raw) => {
    const desc = raw.startsWith('-') || /:desc$/i.test(raw);
    const path = raw.replace(/^-/, '').replace(/:(asc|desc)$/i, '').split('.');
    const get = (r: Rec): unknown => {
      if (path.length === 1) return r[path[0]] ?? null;
      const [rel] = MODELS[model].relations[path[0]];
      // the sort join leaves archived related records out, as every read does
      const linked = oracle.rows(rel).find((x) => x.id === r[`${path[0]}Id`] && (x.deletedTracker ?? 'not-deleted') === 'not-deleted');
      return linked ? (linked[path[1]] ?? null) : null;
    };
    return [get, desc ? 'desc' : 'asc'] as const;
  });
}

/** A populate of one relation of the root, with random filters and sort inside it. */
export const POPULATE_CASE = fc
  .constantFrom(...ROOTS)
  .chain((model) =>
    fc.constantFrom(...Object.keys(MODELS[model].relations)).chain((rel) => {
      const [target] = MODELS[model].relations[rel];
      return fc.record({ model: fc.constant(model), rel: fc.constant(rel), filters: fc.option(level(target, 2, false), { nil: undefined }), sort: sortArb(target) });
    }),
  );

for (const dialect of DIALECTS) {
  describe(`query property: random filters answer the oracle's ids [${dialect}]`, function () {
    this.timeout(240_000);
    let app: TestApp;
    let oracle: Oracle;

    before(async () => {
      // the oracle, not the cost bounds, is under test: random trees may hold more than the default 16 relation scopes
      app = await startTestApp(dialect, { contentTypesDir: FIXTURE_DIR, env: { QUERY_MAX_RELATION_SCOPES: '200' } });
      oracle = new Oracle(await seedDataset(app.http));
    });
    after(async () => app?.close());

    it(`${RUNS} random filter trees and sorts over book, author, tag and profile`, async () => {
      let nonEmpty = 0;
      await fc.assert(
        fc.asyncProperty(CASE, async ({ model, filters, sort }) => {
          const query = qs.stringify({ filters, sort, fields: ['id'], limit: 100 }, { encodeValuesOnly: true });
          const res = await app.http.get(`/api/${model}?${query}`);
          expect(res.status, `${query}\n${res.text}`).to.equal(200);
          const got = (res.body.records as { id: number }[]).map((r) => r.id);
          const matching = new Set(oracle.ids(model, qs.parse(query, { depth: 20 }).filters));
          const want = sorted(oracle.rows(model).filter((r) => matching.has(r.id)), sortGetters(oracle, model, sort));
          if (want.length > 0) nonEmpty++;
          expect(got, `${decodeURIComponent(query)}`).to.deep.equal(want);
          expect(res.body.meta.totalRecords).to.equal(want.length);
        }),
        { numRuns: RUNS, ...(SEED !== undefined && { seed: SEED }) },
      );
      // The trees must not be vacuous: a good share selects something.
      expect(nonEmpty).to.be.greaterThan(RUNS / 5);
    });

    it(`${Math.ceil(RUNS / 5)} random populates with filters and sort inside them`, async () => {
      await fc.assert(
        fc.asyncProperty(POPULATE_CASE, async ({ model, rel, filters, sort }) => {
          const [target, toOne] = MODELS[model].relations[rel];
          const populate = { [rel]: { fields: ['id'], ...(filters && { filters }), ...(sort.length > 0 && { sort }) } };
          const query = qs.stringify({ populate, fields: ['id'], limit: 100 }, { encodeValuesOnly: true });
          const res = await app.http.get(`/api/${model}?${query}`);
          expect(res.status, `${query}\n${res.text}`).to.equal(200);
          const parsedFilters = (qs.parse(query, { depth: 20 }) as { populate: Record<string, { filters?: unknown }> }).populate[rel].filters;
          const roots = oracle.ids(model, undefined);
          expect((res.body.records as Rec[]).map((r) => r.id)).to.deep.equal(roots);
          for (const r of res.body.records as Rec[]) {
            const rec = oracle.rows(model).find((x) => x.id === r.id) as Rec;
            const related = oracle.relatedRecords(model, rec, rel).filter((x) => oracle.matches(target, x, parsedFilters));
            const want = sorted(related, sortGetters(oracle, target, sort));
            // the inverse oneToOne (author.profile) is a to-one too
            const single = toOne || (model === 'author' && rel === 'profile');
            const got = single ? (r[rel] === null ? [] : [(r[rel] as Rec).id]) : (r[rel] as Rec[]).map((x) => x.id);
            expect(got, `${decodeURIComponent(query)} (record ${r.id})`).to.deep.equal(single ? want.slice(0, 1) : want);
          }
        }),
        { numRuns: Math.ceil(RUNS / 5), ...(SEED !== undefined && { seed: SEED }) },
      );
    });
  });
}
