/**
 * The parser without a database: query strings as clients write them (qs.stringify, encodeValuesOnly),
 * parsed with the app's own parseQueryString, then parseListQuery (and check for the cases that need
 * the model). Every 400 names the offending parameter path.
 */
import { expect } from 'chai';
import qs from 'qs';
import { parseQueryString } from '../../../core/http/app';
import { AppError } from '../../../core/errors/app-error';
import type { ListQuery } from '../../../core/query/ast';
import { MAX_FILTER_DEPTH, MAX_FILTER_NODES, MAX_IN_LIST, MAX_POPULATE_DEPTH, MAX_QUERY_STRING, MAX_SORT_KEYS } from '../../../core/query/limits';
import { FIND_ONE_PARAMS, parseListQuery } from '../../../core/query/parse';
import { checkedFrom } from './compile-case';

const qstr = (o: Record<string, unknown>): string => qs.stringify(o, { encodeValuesOnly: true });
const parse = (raw: string, allowed?: readonly string[]): ListQuery => parseListQuery(parseQueryString(raw), allowed);

/** The AST without the `at` bookkeeping, for compact expectations. */
function plain(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(plain);
  if (typeof v === 'object' && v !== null) return Object.fromEntries(Object.entries(v).filter(([k]) => k !== 'at').map(([k, x]) => [k, plain(x)]));
  return v;
}

function badRequest(fn: () => unknown): AppError {
  try {
    fn();
  } catch (e) {
    expect(e).to.be.instanceOf(AppError);
    expect((e as AppError).status).to.equal(400);
    return e as AppError;
  }
  throw new Error('expected a 400');
}

const cmp = (op: string, value: unknown) => ({ kind: 'compare', op, value });
const field = (name: string, item: unknown) => ({ kind: 'field', name, item });

describe('parse: value forms of the CONTRACT', () => {
  const cases: { name: string; raw: string; filters: unknown }[] = [
    { name: '$in list: filters[id][$in][0]=1&…[1]=2', raw: qstr({ filters: { id: { $in: ['1', '2'] } } }), filters: field('id', cmp('$in', ['1', '2'])) },
    { name: '$in with one item', raw: 'filters[id][$in][0]=7', filters: field('id', cmp('$in', ['7'])) },
    { name: '$in written without indices (filters[id][$in]=7)', raw: 'filters[id][$in]=7', filters: field('id', cmp('$in', ['7'])) },
    { name: '$notIn list', raw: qstr({ filters: { id: { $notIn: ['3', '4', '5'] } } }), filters: field('id', cmp('$notIn', ['3', '4', '5'])) },
    { name: '$between pair', raw: qstr({ filters: { pages: { $between: ['1', '9'] } } }), filters: field('pages', cmp('$between', ['1', '9'])) },
    { name: '$null=true', raw: qstr({ filters: { title: { $null: 'true' } } }), filters: field('title', cmp('$null', true)) },
    { name: '$null=false', raw: qstr({ filters: { title: { $null: 'false' } } }), filters: field('title', cmp('$null', false)) },
    { name: '$notNull=true', raw: qstr({ filters: { title: { $notNull: 'true' } } }), filters: field('title', cmp('$notNull', true)) },
    { name: 'shorthand filters[x]=v is $eq', raw: 'filters[title]=Alpha', filters: field('title', cmp('$eq', 'Alpha')) },
    { name: 'values keep %, _, \\ and case', raw: qstr({ filters: { title: { $contains: 'A%_\\b' } } }), filters: field('title', cmp('$contains', 'A%_\\b')) },
    { name: 'empty value is the empty string', raw: 'filters[title][$eq]=', filters: field('title', cmp('$eq', '')) },
    { name: 'several keys at one level: and', raw: qstr({ filters: { title: { $eq: 'a' }, pages: { $gt: '1' } } }), filters: { kind: 'and', items: [field('title', cmp('$eq', 'a')), field('pages', cmp('$gt', '1'))] } },
    { name: '$or list', raw: qstr({ filters: { $or: [{ title: { $eq: 'a' } }, { pages: { $lt: '2' } }] } }), filters: { kind: 'or', items: [field('title', cmp('$eq', 'a')), field('pages', cmp('$lt', '2'))] } },
    { name: '$not', raw: qstr({ filters: { $not: { title: { $eq: 'a' } } } }), filters: { kind: 'not', item: field('title', cmp('$eq', 'a')) } },
    { name: '$not indexed list of one: the same as the object form', raw: 'filters[$not][0][title][$eq]=a', filters: { kind: 'not', item: field('title', cmp('$eq', 'a')) } },
    { name: '$not indexed list: NOT (item0 AND item1)', raw: qstr({ filters: { $not: [{ title: { $eq: 'a' } }, { pages: { $lt: '2' } }] } }), filters: { kind: 'not', item: { kind: 'and', items: [field('title', cmp('$eq', 'a')), field('pages', cmp('$lt', '2'))] } } },
    { name: '$not indexed list around $or', raw: qstr({ filters: { $not: [{ $or: [{ title: { $eq: 'a' } }, { pages: { $lt: '2' } }] }] } }), filters: { kind: 'not', item: { kind: 'or', items: [field('title', cmp('$eq', 'a')), field('pages', cmp('$lt', '2'))] } } },
    { name: '$not indexed list under a field', raw: 'filters[title][$not][0][$eq]=a&filters[title][$not][1][$eq]=b', filters: field('title', { kind: 'not', item: { kind: 'and', items: [cmp('$eq', 'a'), cmp('$eq', 'b')] } }) },
    { name: 'relation path', raw: qstr({ filters: { author: { profile: { handle: { $eqi: 'X' } } } } }), filters: field('author', field('profile', field('handle', cmp('$eqi', 'X')))) },
  ];
  for (const c of cases) {
    it(c.name, () => {
      expect(plain(parse(c.raw).filters)).to.deep.equal(c.filters);
    });
  }

  it('names the path of every node (at)', () => {
    const f = parse(qstr({ filters: { $or: [{ author: { name: { $in: ['a'] } } }] } })).filters as unknown as { items: { at: string; item: { at: string; item: { at: string } } }[] };
    expect(f.items[0].at).to.equal('filters[$or][0][author]');
    expect(f.items[0].item.at).to.equal('filters[$or][0][author][name]');
    expect(f.items[0].item.item.at).to.equal('filters[$or][0][author][name][$in]');
  });
});

describe('parse: sort, fields, populate, paging', () => {
  const sortCases: { raw: string; want: { key: string; direction: string }[] }[] = [
    { raw: qstr({ sort: ['-title'] }), want: [{ key: 'title', direction: 'desc' }] },
    { raw: qstr({ sort: ['title:DESC'] }), want: [{ key: 'title', direction: 'desc' }] },
    { raw: qstr({ sort: ['title:asc'] }), want: [{ key: 'title', direction: 'asc' }] },
    { raw: 'sort=title', want: [{ key: 'title', direction: 'asc' }] },
    { raw: 'sort=title,-pages', want: [{ key: 'title', direction: 'asc' }, { key: 'pages', direction: 'desc' }] },
    { raw: qstr({ sort: ['-pages', 'author.name:ASC'] }), want: [{ key: 'pages', direction: 'desc' }, { key: 'author.name', direction: 'asc' }] },
  ];
  for (const c of sortCases) {
    it(`sort: ${decodeURIComponent(c.raw)}`, () => {
      expect(plain(parse(c.raw).sort)).to.deep.equal(c.want);
    });
  }

  it('fields: indexed list and comma list', () => {
    expect(parse(qstr({ fields: ['title', 'pages'] })).fields).to.deep.equal(['title', 'pages']);
    expect(parse('fields=title,pages').fields).to.deep.equal(['title', 'pages']);
    expect(parse('fields[0]=title,pages&fields[1]=price').fields).to.deep.equal(['title', 'pages', 'price']);
  });

  it('populate: dotted paths merge into one tree; comma lists', () => {
    const p = plain(parse(qstr({ populate: ['author.profile', 'tags', 'author.books'] })).populate);
    const leaf = (name: string, populate: unknown[] = []) => ({ name, fields: null, filters: null, sort: [], populate });
    expect(p).to.deep.equal([leaf('author', [leaf('profile'), leaf('books')]), leaf('tags')]);
    expect(plain(parse('populate=author,tags').populate)).to.deep.equal([leaf('author'), leaf('tags')]);
  });

  it('populate: object form with fields, filters, sort and nested populate', () => {
    const raw = qstr({ populate: { author: { fields: ['name'], filters: { name: { $startsWith: 'A' } }, sort: ['-name'], populate: { profile: true, books: { fields: ['title'] } } } } });
    expect(plain(parse(raw).populate)).to.deep.equal([
      {
        name: 'author',
        fields: ['name'],
        filters: field('name', cmp('$startsWith', 'A')),
        sort: [{ key: 'name', direction: 'desc' }],
        populate: [
          { name: 'profile', fields: null, filters: null, sort: [], populate: [] },
          { name: 'books', fields: ['title'], filters: null, sort: [], populate: [] },
        ],
      },
    ]);
  });

  it('page + limit, or offset + limit', () => {
    expect(parse('page=3&limit=5').page).to.deep.equal({ limit: 5, offset: null, page: 3 });
    expect(parse('offset=10&limit=5').page).to.deep.equal({ limit: 5, offset: 10, page: null });
    const q = checkedFrom('book', { page: '3', limit: '5' });
    expect([q.limit, q.offset]).to.deep.equal([5, 10]);
    expect([checkedFrom('book', {}).limit, checkedFrom('book', {}).offset]).to.deep.equal([10, 0]);
    expect(checkedFrom('book', { limit: '5000' }, 100).limit).to.equal(100);
  });

  it('showSoftDeleted: inclusive, exclusive, or omitted', () => {
    expect(parse('showSoftDeleted=inclusive').softDelete).to.equal('inclusive');
    expect(parse('showSoftDeleted=exclusive').softDelete).to.equal('exclusive');
    expect(parse('').softDelete).to.equal('active');
  });
});

describe('parse + check: every 400 names the offending path', () => {
  const many = (n: number) => Array.from({ length: n }, (_, i) => String(i));
  const deepNot = (n: number): Record<string, unknown> => (n === 0 ? { title: { $eq: 'x' } } : { $not: deepNot(n - 1) });
  const cases: { name: string; raw: string; path: string; model?: boolean }[] = [
    { name: 'unknown parameter', raw: 'bogus=1', path: 'bogus' },
    { name: 'unknown operator', raw: 'filters[title][$like]=a', path: 'filters[title][$like]' },
    { name: 'operator at the root', raw: 'filters[$eq]=a', path: 'filters[$eq]' },
    { name: 'filters is text', raw: 'filters=a', path: 'filters' },
    { name: 'an operator value that is a list', raw: 'filters[title][$eq][0]=a', path: 'filters[title][$eq]' },
    { name: '$between with one value', raw: qstr({ filters: { pages: { $between: ['1'] } } }), path: 'filters[pages][$between]' },
    { name: '$between with three values', raw: qstr({ filters: { pages: { $between: ['1', '2', '3'] } } }), path: 'filters[pages][$between]' },
    { name: '$null neither true nor false', raw: 'filters[title][$null]=maybe', path: 'filters[title][$null]' },
    { name: 'empty $or', raw: 'filters[$or]=', path: 'filters[$or][0]' },
    { name: '$not list item that is text', raw: 'filters[$not][0]=a', path: 'filters[$not][0]' },
    { name: `$in longer than ${MAX_IN_LIST}`, raw: qstr({ filters: { id: { $in: many(MAX_IN_LIST + 1) } } }), path: 'filters[id][$in]' },
    { name: `filters deeper than ${MAX_FILTER_DEPTH}`, raw: qstr({ filters: deepNot(MAX_FILTER_DEPTH + 1) }), path: `filters${'[$not]'.repeat(MAX_FILTER_DEPTH + 1)}` },
    { name: `more than ${MAX_FILTER_NODES} conditions`, raw: qstr({ filters: { $or: many(MAX_FILTER_NODES / 2).map((i) => ({ title: { $eq: i }, pages: { $eq: '1' } })) } }), path: 'filters' },
    { name: `more than ${MAX_SORT_KEYS} sort keys`, raw: qstr({ sort: many(MAX_SORT_KEYS + 1).map(() => 'title') }), path: 'sort' },
    { name: 'sort naming no field', raw: 'sort[0]=:desc', path: 'sort[0]' },
    { name: 'an empty sort entry', raw: 'sort[0]=', path: 'sort[0]' },
    { name: 'an empty name among sort keys', raw: 'sort[0]=title&sort[1]=pages,,id', path: 'sort[1]' },
    { name: 'an empty fields entry', raw: 'fields[0]=', path: 'fields[0]' },
    { name: 'a trailing comma in fields', raw: 'fields=title,', path: 'fields[0]' },
    { name: 'an empty populate entry', raw: 'populate[0]=', path: 'populate[0]' },
    { name: 'an empty populateMedia entry', raw: 'populateMedia[0]=%20', path: 'populateMedia[0]' },
    { name: 'an empty field of a populate', raw: 'populate[author][fields][1]=&populate[author][fields][0]=name', path: 'populate[author][fields][1]' },
    { name: 'an empty groupBy entry', raw: 'groupBy[0]=', path: 'groupBy[0]' },
    { name: 'an empty aggregates entry', raw: 'groupBy[0]=title&aggregates[0]=', path: 'aggregates[0]' },
    { name: `populate deeper than ${MAX_POPULATE_DEPTH}`, raw: qstr({ populate: [Array(MAX_POPULATE_DEPTH + 1).fill('author').join('.')] }), path: 'populate' },
    { name: 'unknown populate option', raw: 'populate[author][bogus]=1', path: 'populate[author][bogus]' },
    { name: 'page 0', raw: 'page=0', path: 'page' },
    { name: 'negative limit', raw: 'limit=-1', path: 'limit' },
    { name: 'limit that is not a number', raw: 'limit=ten', path: 'limit' },
    { name: 'page and offset', raw: 'page=2&offset=3', path: 'page' },
    { name: 'showSoftDeleted=all', raw: 'showSoftDeleted=all', path: 'showSoftDeleted' },
    { name: 'a field entry that is an object', raw: 'fields[0][x]=1', path: 'fields[0]' },
    { name: 'NUL in a value', raw: 'filters[title][$eq]=a%00b', path: 'filters[title][$eq]' },
    // check.ts: needs the model
    { name: 'unknown field', raw: 'filters[nope][$eq]=1', path: 'filters[nope]', model: true },
    { name: 'unknown relation field', raw: 'filters[author][nope][$eq]=1', path: 'filters[author][nope]', model: true },
    { name: '$eqi on an integer', raw: 'filters[pages][$eqi]=1', path: 'filters[pages][$eqi]', model: true },
    { name: '$contains on a date', raw: 'filters[published][$contains]=2', path: 'filters[published][$contains]', model: true },
    { name: '$lt on a boolean', raw: 'filters[available][$lt]=true', path: 'filters[available][$lt]', model: true },
    { name: '$in coercion names the index', raw: qstr({ filters: { pages: { $in: ['1', '2', 'x'] } } }), path: 'filters[pages][$in][2]', model: true },
    { name: '$between coercion names the index', raw: qstr({ filters: { published: { $between: ['2020-01-01', '2020-13-01'] } } }), path: 'filters[published][$between][1]', model: true },
    { name: 'not a boolean', raw: 'filters[available][$eq]=yes', path: 'filters[available][$eq]', model: true },
    { name: 'not a date', raw: 'filters[published][$eq]=2026-02-30', path: 'filters[published][$eq]', model: true },
    { name: 'not a date-time', raw: 'filters[releasedAt][$gt]=soon', path: 'filters[releasedAt][$gt]', model: true },
    { name: 'integer out of range', raw: 'filters[pages][$gt]=3000000000', path: 'filters[pages][$gt]', model: true },
    { name: 'hex is not a number', raw: 'filters[pages][$gt]=0x10', path: 'filters[pages][$gt]', model: true },
    { name: 'an operator under a field is needed', raw: 'filters[title][pages][$eq]=1', path: 'filters[title][pages]', model: true },
    { name: 'unknown sort field', raw: 'sort[0]=nope', path: 'sort[0]', model: true },
    { name: 'sort through a to-many relation', raw: 'sort[0]=tags.label', path: 'sort[0]', model: true },
    { name: 'unknown field in fields', raw: 'fields[0]=nope', path: 'fields', model: true },
    { name: 'a relation in fields', raw: 'fields[0]=author', path: 'fields', model: true },
    { name: 'unknown populate', raw: 'populate[0]=nope', path: 'populate', model: true },
    { name: 'populate of a field that is no relation', raw: 'populate[0]=title', path: 'populate', model: true },
    { name: 'unknown field inside a populate filter', raw: 'populate[author][filters][nope][$eq]=1', path: 'populate[author][filters][nope]', model: true },
  ];
  for (const c of cases) {
    it(`${c.name} → 400 at ${c.path}`, () => {
      const e = badRequest(() => (c.model ? checkedFrom('book', qs.parse(c.raw, { depth: 30, arrayLimit: 1000 }) as Record<string, unknown>) : parse(c.raw)));
      expect(e.details.parameter, e.message).to.equal(c.path);
      expect(e.message).to.contain(c.path);
    });
  }

  it('findOne takes only fields, populate, populateMedia, showSoftDeleted', () => {
    expect(badRequest(() => parse('filters[id][$eq]=1', FIND_ONE_PARAMS)).details.parameter).to.equal('filters');
  });

  it(`a query string longer than ${MAX_QUERY_STRING} characters`, () => {
    expect(badRequest(() => parseQueryString(`filters[title][$eq]=${'a'.repeat(MAX_QUERY_STRING)}`)).message).to.match(/longer than/);
  });

  it('qs limits: nesting past the qs depth, more than 1000 parameters, huge array indices', () => {
    badRequest(() => parseQueryString(`filters${'[$not]'.repeat(40)}[title][$eq]=a`));
    badRequest(() => parseQueryString(Array.from({ length: 1001 }, (_, i) => `filters[$or][${i}][id][$eq]=1`).join('&')));
    badRequest(() => parseQueryString('filters[id][$in][99999]=1'));
  });
});
