/**
 * qs object → ListQuery AST. Knows shapes only (arrays, objects, `$and`/`$or`/`$not`, lists, pairs);
 * every problem is a BadRequestError naming the offending parameter path.
 */
import { clip } from '../errors/client-text';
import { BadRequestError } from '../errors/errors';
import type { FilterNode, GroupSpecRaw, ListQuery, PageSpec, PopulateNode, RawValue, SoftDeleteScope, SortKey } from './ast';
import { MAX_FILTER_DEPTH, MAX_FILTER_NODES, MAX_IN_LIST, MAX_LIST_PARAM, MAX_POPULATE_DEPTH, MAX_SORT_KEYS, MAX_VALUE_LENGTH } from './limits';
import { isOperator, LOGICAL, OPERATORS } from './operators';

export const FIND_PARAMS = [
  'limit', 'offset', 'page', 'fields', 'sort', 'populate', 'populateMedia', 'filters', 'showSoftDeleted',
  'groupBy', 'aggregates', 'populateGroup', 'groupFilter', 'timezone',
] as const;
export const FIND_ONE_PARAMS = ['fields', 'populate', 'populateMedia', 'showSoftDeleted'] as const;

type Obj = { readonly [k: string]: unknown };

/** A 400 naming the parameter (its path cut to 100 characters: it is built from the client's keys). */
const bad = (at: string, problem: string): never => {
  const parameter = clip(at);
  throw new BadRequestError(`${parameter}: ${problem}`, { parameter });
};

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** qs turns long or sparse arrays into objects with numeric keys; both count as lists. */
function asList(v: unknown, at: string, max: number): unknown[] {
  let list: unknown[];
  if (Array.isArray(v)) list = v;
  else if (isObj(v) && Object.keys(v).every((k) => /^\d+$/.test(k))) {
    list = Object.keys(v).sort((a, b) => Number(a) - Number(b)).map((k) => v[k]);
  } else if (typeof v === 'string') list = [v];
  else return bad(at, 'must be a list');
  if (list.length > max) bad(at, `at most ${max} entries`);
  return list;
}

function asText(v: unknown, at: string): string {
  if (typeof v !== 'string') return bad(at, 'must be a single value');
  if (v.length > MAX_VALUE_LENGTH) bad(at, `value longer than ${MAX_VALUE_LENGTH} characters`);
  // PostgreSQL cannot hold a NUL character in text; refusing it here keeps both databases alike.
  if (v.includes('\u0000')) bad(at, 'contains a NUL character');
  return v;
}

/**
 * The comma-separated names of list entry `at` (`a,b`), trimmed. An empty one (`fields[0]=`, `a,,b`, a
 * trailing comma) is malformed, not skipped: it would silently drop what the client meant to ask for.
 */
function namesOf(v: unknown, at: string, what: string): string[] {
  return asText(v, at)
    .split(',')
    .map((s) => s.trim() || bad(at, `names no ${what}`));
}

/** `fields=a,b`, `fields[0]=a`: a list of names (`what` names them in the message of an empty one). */
function nameList(v: unknown, at: string, what = 'field'): string[] {
  const out = asList(v, at, MAX_LIST_PARAM).flatMap((x, i) => namesOf(x, `${at}[${i}]`, what));
  if (out.length > MAX_LIST_PARAM) bad(at, `at most ${MAX_LIST_PARAM} entries`);
  return out;
}

function nonNegativeInt(v: unknown, at: string, min = 0): number {
  const s = asText(v, at).trim();
  if (/^\d{10,}$/.test(s)) bad(at, 'at most 999999999');
  if (!/^\d{1,9}$/.test(s) || Number(s) < min) bad(at, `must be a whole number${min > 0 ? ` ≥ ${min}` : ' ≥ 0'}`);
  return Number(s);
}

function parseBoolean(v: unknown, at: string): boolean {
  if (v === true || v === false) return v;
  const s = asText(v, at);
  if (s === 'true' || s === '1') return true;
  if (s === 'false' || s === '0') return false;
  return bad(at, 'must be true or false');
}

/** `-name`, `name`, `name:asc`, `name:DESC`, `dueDate:month:DESC` (spec 4.5 rule 9: the last segment is the order). */
export function parseSort(v: unknown, at: string): SortKey[] {
  const keys: SortKey[] = [];
  asList(v, at, MAX_SORT_KEYS).forEach((item, i) => {
    for (const part of namesOf(item, `${at}[${i}]`, 'field')) {
      let key = part;
      let direction: 'asc' | 'desc' = 'asc';
      if (key.startsWith('-')) {
        direction = 'desc';
        key = key.slice(1);
      }
      const m = /^(.*):(asc|desc)$/i.exec(key);
      if (m) {
        key = m[1];
        direction = m[2].toLowerCase() as 'asc' | 'desc';
      }
      if (key === '') bad(`${at}[${i}]`, 'names no field');
      keys.push({ key, direction, at: `${at}[${i}]` });
    }
  });
  if (keys.length > MAX_SORT_KEYS) bad(at, `at most ${MAX_SORT_KEYS} keys`);
  return keys;
}

interface FilterBudget {
  nodes: number;
}

function operatorValue(op: keyof typeof OPERATORS, v: unknown, at: string): RawValue {
  switch (OPERATORS[op].arity) {
    case 'one':
      return asText(v, at);
    case 'flag':
      return parseBoolean(v, at);
    case 'list':
      return asList(v, at, MAX_IN_LIST).map((x, i) => asText(x, `${at}[${i}]`));
    case 'pair': {
      const pair = asList(v, at, 2).map((x, i) => asText(x, `${at}[${i}]`));
      if (pair.length !== 2) bad(at, 'needs two values: [0] and [1]');
      return pair;
    }
  }
}

function filterLevel(v: unknown, at: string, depth: number, budget: FilterBudget, inField: boolean): FilterNode {
  if (depth > MAX_FILTER_DEPTH) bad(at, `filters nest deeper than ${MAX_FILTER_DEPTH} levels`);
  if (typeof v === 'string') {
    // `filters[name]=x` is shorthand for `filters[name][$eq]=x`.
    if (!inField) bad(at, 'must name a field or an operator');
    budget.nodes++;
    return { kind: 'compare', op: '$eq', value: asText(v, at), at };
  }
  if (!isObj(v)) return bad(at, 'must be an object of fields and operators');
  const items: FilterNode[] = [];
  for (const [key, value] of Object.entries(v)) {
    const here = `${at}[${key}]`;
    if (++budget.nodes > MAX_FILTER_NODES) bad('filters', `more than ${MAX_FILTER_NODES} conditions`);
    if (key === '$and' || key === '$or') {
      const list = asList(value, here, MAX_FILTER_NODES);
      if (list.length === 0) bad(here, 'needs at least one condition');
      items.push({ kind: key === '$and' ? 'and' : 'or', items: list.map((x, i) => filterLevel(x, `${here}[${i}]`, depth + 1, budget, inField)) });
    } else if (key === '$not') {
      items.push({ kind: 'not', item: notOperand(value, here, depth, budget, inField) });
    } else if (isOperator(key)) {
      if (!inField) bad(here, `operator ${key} must stand under a field`);
      items.push({ kind: 'compare', op: key, value: operatorValue(key, value, here), at: here });
    } else if (key.startsWith('$')) {
      bad(here, `unknown operator "${clip(key)}" (known: ${[...Object.keys(OPERATORS), ...LOGICAL].join(', ')})`);
    } else {
      items.push({ kind: 'field', name: key, item: filterLevel(value, here, depth + 1, budget, true), at: here });
    }
  }
  if (items.length === 0) bad(at, 'is empty');
  return items.length === 1 ? items[0] : { kind: 'and', items };
}

/** A list or an object whose keys are all indices: the indexed-list form of a logical operator. */
function isIndexedList(v: unknown): boolean {
  if (Array.isArray(v)) return true;
  return isObj(v) && Object.keys(v).length > 0 && Object.keys(v).every((k) => /^\d+$/.test(k));
}

/**
 * `$not` takes an object (`filters[$not][a][$eq]=1`) or, like `$and`/`$or` (spec 4.4), an indexed list
 * (`filters[$not][0][a][$eq]=1&filters[$not][1][b][$eq]=2`): NOT (item0 AND item1 AND …), the same
 * as the object form with those keys side by side. Field names never are digits (ATTRIBUTE_NAME).
 */
function notOperand(value: unknown, here: string, depth: number, budget: FilterBudget, inField: boolean): FilterNode {
  if (!isIndexedList(value)) return filterLevel(value, here, depth + 1, budget, inField);
  const list = asList(value, here, MAX_FILTER_NODES);
  const items = list.map((x, i) => filterLevel(x, `${here}[${i}]`, depth + 1, budget, inField));
  return items.length === 1 ? items[0] : { kind: 'and', items };
}

export function parseFilters(v: unknown, at = 'filters'): FilterNode {
  return filterLevel(v, at, 0, { nodes: 0 }, false);
}

const POPULATE_KEYS = new Set(['fields', 'filters', 'sort', 'populate', 'limit', 'offset']);

/** `populate[rel][limit|offset]`, present in the node only when given. */
function pageOf(limit: number | null | undefined, offset: number | null | undefined): { limit?: number; offset?: number } {
  return { ...(limit !== null && limit !== undefined && { limit }), ...(offset !== null && offset !== undefined && { offset }) };
}

function mergePopulate(into: Map<string, PopulateNode>, node: PopulateNode): void {
  const prior = into.get(node.name);
  if (!prior) {
    into.set(node.name, node);
    return;
  }
  const children = new Map(prior.populate.map((p) => [p.name, p] as const));
  for (const c of node.populate) mergePopulate(children, c);
  into.set(node.name, {
    ...prior,
    fields: node.fields ?? prior.fields,
    filters: node.filters ?? prior.filters,
    sort: node.sort.length ? node.sort : prior.sort,
    ...pageOf(node.limit ?? prior.limit, node.offset ?? prior.offset),
    populate: [...children.values()],
  });
}

function dottedPopulate(path: string, at: string): PopulateNode {
  const parts = path.split('.');
  if (parts.length > MAX_POPULATE_DEPTH) bad(at, `populate deeper than ${MAX_POPULATE_DEPTH} levels`);
  if (parts.some((p) => p === '')) bad(at, `"${clip(path)}" is not a relation path`);
  return parts.reduceRight<PopulateNode | null>(
    (child, name) => ({ name, fields: null, filters: null, sort: [], populate: child ? [child] : [], at }),
    null,
  ) as PopulateNode;
}

export function parsePopulate(v: unknown, at: string, depth = 1): PopulateNode[] {
  if (depth > MAX_POPULATE_DEPTH) bad(at, `populate deeper than ${MAX_POPULATE_DEPTH} levels`);
  const out = new Map<string, PopulateNode>();
  if (isObj(v) && !Object.keys(v).every((k) => /^\d+$/.test(k))) {
    for (const [name, spec] of Object.entries(v)) {
      const here = `${at}[${name}]`;
      if (spec === true || spec === 'true' || spec === '*') {
        mergePopulate(out, dottedPopulate(name, here));
        continue;
      }
      if (!isObj(spec)) bad(here, 'must be true or an object with fields, filters, sort, populate, limit, offset');
      const s = spec as Obj;
      for (const k of Object.keys(s)) if (!POPULATE_KEYS.has(k)) bad(`${here}[${k}]`, `unknown populate option (known: ${[...POPULATE_KEYS].join(', ')})`);
      mergePopulate(out, {
        name,
        fields: s.fields === undefined ? null : nameList(s.fields, `${here}[fields]`),
        filters: s.filters === undefined ? null : parseFilters(s.filters, `${here}[filters]`),
        sort: s.sort === undefined ? [] : parseSort(s.sort, `${here}[sort]`),
        populate: s.populate === undefined ? [] : parsePopulate(s.populate, `${here}[populate]`, depth + 1),
        ...pageOf(s.limit === undefined ? null : nonNegativeInt(s.limit, `${here}[limit]`), s.offset === undefined ? null : nonNegativeInt(s.offset, `${here}[offset]`)),
        at: here,
      });
    }
    return [...out.values()];
  }
  nameList(v, at, 'relation').forEach((path) => mergePopulate(out, dottedPopulate(path, at)));
  return [...out.values()];
}

function parseSoftDelete(v: unknown): SoftDeleteScope {
  if (v === undefined) return 'active';
  const s = asText(v, 'showSoftDeleted');
  if (s === 'inclusive' || s === 'exclusive') return s;
  return bad('showSoftDeleted', 'must be "inclusive" or "exclusive"');
}

function parseGroup(q: Obj): GroupSpecRaw | null {
  const grouped = q.groupBy !== undefined || q.aggregates !== undefined || q.populateGroup !== undefined || q.groupFilter !== undefined;
  if (!grouped) {
    if (q.timezone !== undefined) bad('timezone', 'applies only to grouped queries (groupBy)');
    return null;
  }
  if (q.groupBy === undefined) bad('groupBy', 'is required when aggregates, populateGroup or groupFilter is given');
  const gf = q.groupFilter === undefined ? {} : q.groupFilter;
  if (!isObj(gf)) bad('groupFilter', 'must be an object with limit, offset, sort');
  const g = gf as Obj;
  for (const k of Object.keys(g)) if (!['limit', 'offset', 'sort'].includes(k)) bad(`groupFilter[${k}]`, 'unknown option (known: limit, offset, sort)');
  return {
    groupBy: nameList(q.groupBy, 'groupBy'),
    aggregates: q.aggregates === undefined ? [] : nameList(q.aggregates, 'aggregates'),
    populateGroup: q.populateGroup === undefined ? false : parseBoolean(q.populateGroup, 'populateGroup'),
    groupFilter: {
      limit: g.limit === undefined ? null : nonNegativeInt(g.limit, 'groupFilter[limit]'),
      offset: g.offset === undefined ? null : nonNegativeInt(g.offset, 'groupFilter[offset]'),
      sort: g.sort === undefined ? [] : parseSort(g.sort, 'groupFilter[sort]'),
    },
    timezone: q.timezone === undefined ? null : asText(q.timezone, 'timezone'),
  };
}

/**
 * Parses a Find / FindOne query object; `allowed` lists the parameters the endpoint takes. `takenBefore`:
 * parameters the caller reads and removes before parsing (issue 14: `status`, `locale`); never parsed here,
 * they are named among the known ones when a parameter is unknown.
 */
export function parseListQuery(raw: unknown, allowed: readonly string[] = FIND_PARAMS, takenBefore: readonly string[] = []): ListQuery {
  const q: Obj = isObj(raw) ? raw : {};
  for (const key of Object.keys(q)) {
    if (!allowed.includes(key)) bad(key, `unknown query parameter (known: ${[...allowed, ...takenBefore].join(', ')})`);
  }
  const page: PageSpec = {
    limit: q.limit === undefined ? null : nonNegativeInt(q.limit, 'limit'),
    offset: q.offset === undefined ? null : nonNegativeInt(q.offset, 'offset'),
    page: q.page === undefined ? null : nonNegativeInt(q.page, 'page', 1),
  };
  if (page.offset !== null && page.page !== null) bad('page', 'give either page or offset, not both');
  return {
    filters: q.filters === undefined ? null : parseFilters(q.filters),
    sort: q.sort === undefined ? [] : parseSort(q.sort, 'sort'),
    fields: q.fields === undefined ? null : nameList(q.fields, 'fields'),
    populate: q.populate === undefined ? [] : parsePopulate(q.populate, 'populate'),
    populateMedia: q.populateMedia === undefined ? [] : nameList(q.populateMedia, 'populateMedia'),
    page,
    softDelete: parseSoftDelete(q.showSoftDeleted),
    group: parseGroup(q),
  };
}
