/**
 * GroupSpecRaw × ContentType → CheckedGroup (spec 4.5). Group keys and aggregate fields are resolved
 * through the registry like every other name (private, media and unknown names are all "unknown");
 * dotted paths become LEFT JOINs through owning to-one relations, planned here as data; the sort of
 * the groups may name only group keys and aggregate aliases. Only this stage (and check.ts) makes a
 * ColumnRef.
 */
import { clip } from '../errors/client-text';
import { BadRequestError } from '../errors/errors';
import { ATTRIBUTE_KINDS } from '../registry/attribute-kinds';
import type { ContentType, Registry, ScalarType } from '../registry/types';
import type { GroupSpecRaw, ListQuery, PageSpec, SoftDeleteScope, SortKey } from './ast';
import { BASE_ALIAS, type CheckedFilter, type CheckedQuery, type ColumnRef, type SortJoin, proveColumn, proveTable } from './checked';
import { type RowScope, checkListQuery, relatedRule, resolveName } from './check';
import {
  AGGREGATE_FUNCTIONS,
  type AggregateFunction,
  DEFAULT_GROUP_RECORDS_LIMIT,
  type BucketFormat,
  type BucketZone,
  BUCKET_FORMATS,
  GRANULARITIES,
  type Granularity,
  MAX_AGGREGATES,
  MAX_GROUP_KEYS,
  MAX_OFFSET_MINUTES,
  ROW_COUNT_ALIAS,
  UTC_ZONE,
  type ZoneNames,
  aggregateAllows,
  isAggregateFunction,
  isBucketFormat,
  isGranularity,
  labelIsInjective,
} from './group-vocabulary';
import { type CostBounds, CostMeter, DEFAULT_COST_BOUNDS, pathFrom } from './cost';
import { DEFAULT_LIMIT } from './limits';

/** A 400 naming the parameter (its path cut to 100 characters: it is built from the client's keys). */
const bad = (at: string, problem: string): never => {
  const parameter = clip(at);
  throw new BadRequestError(`${parameter}: ${problem}`, { parameter });
};

/** A field reached from the model, maybe through to-one relations. */
export interface GroupField {
  readonly name: string;
  readonly column: ColumnRef;
  readonly type: ScalarType;
  /** Reached through a relation (`institute.name`). */
  readonly dotted: boolean;
}

export type GroupKey =
  /** The field's own value. `name` is the groupBy entry as given (`institute.name`). */
  | { readonly kind: 'field'; readonly name: string; readonly field: GroupField }
  /** A date bucket; `name` is the entry as given (`dueDate:month`, `dueDate:month:MMM`). */
  | {
      readonly kind: 'bucket';
      readonly name: string;
      readonly field: GroupField;
      readonly source: 'date' | 'datetime';
      readonly unit: Granularity;
      /** The label format; the raw label of the granularity when none was given. */
      readonly format: BucketFormat;
      /** The label tells every bucket apart: group by the bucket start, format per group. */
      readonly injective: boolean;
    };

export interface GroupAggregate {
  /** `<field>_<function>`, or `count` for the default row count (field null). */
  readonly alias: string;
  readonly fn: AggregateFunction;
  readonly field: GroupField | null;
}

export interface GroupSort {
  readonly target: { readonly kind: 'key' | 'aggregate'; readonly index: number };
  readonly direction: 'asc' | 'desc';
}

export interface CheckedGroup {
  readonly keys: readonly GroupKey[];
  readonly aggregates: readonly GroupAggregate[];
  /** LEFT JOINs the dotted keys and aggregates need. */
  readonly joins: readonly SortJoin[];
  /** The order of the groups: the sort given, then every key ascending (stable paging). */
  readonly sort: readonly GroupSort[];
  readonly limit: number;
  readonly offset: number;
  readonly zone: BucketZone;
  readonly populateGroup: boolean;
  /** Models read through the joins: the caller needs `find` on each. */
  readonly reads: readonly string[];
  /** Models the rules of those joins walk through (CheckedQuery.ruleReads). */
  readonly ruleReads: readonly string[];
}

export interface CheckGroupOptions {
  readonly registry: Registry;
  readonly maxLimit: number;
  /** The IANA zones the database buckets in (Dialect.timeZones); null: fixed offsets only. */
  readonly timeZones: ZoneNames | null;
  /** Children per parent of a to-many populate in groupRecords (see CheckOptions). */
  readonly populateDefaultLimit?: number;
  readonly populateMaxLimit?: number;
  /** Query cost bounds (QUERY_MAX_RELATION_HOPS, QUERY_MAX_RELATION_SCOPES); the defaults of limits.ts when absent. */
  readonly cost?: CostBounds;
  /** The caller's row-level rules (check.ts RowScope): a group key through a relation joins readable rows only. */
  readonly scope?: RowScope;
}

const FIXED_OFFSET = /^([+-])(\d{2}):?(\d{2})$/;
const UTC_NAMES = new Set(['z', 'utc', 'gmt', 'etc/utc', 'etc/gmt', 'etc/zulu', 'zulu', 'universal', 'etc/universal']);
const ZONE_NAME = /^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+){0,2}$/;

/**
 * `+05:30`, `-08:00`, `Z`/`UTC` or an IANA name (spec 4.3 `timezone`; CONTRACT: fixed offsets on both
 * databases). A name must be one the database knows (`zones`), not merely one Node knows.
 */
export function checkTimeZone(raw: string | null, zones: ZoneNames | null): BucketZone {
  if (raw === null) return UTC_ZONE;
  // An unencoded `+` in a query string arrives as a space: ` 05:30` is read as `+05:30`.
  const text = raw.replace(/^ (?=\d{2}:?\d{2}$)/, '+').trim();
  if (UTC_NAMES.has(text.toLowerCase())) return UTC_ZONE;
  const m = FIXED_OFFSET.exec(text);
  if (m) {
    const hours = Number(m[2]);
    const minutes = Number(m[3]);
    const total = hours * 60 + minutes;
    if (minutes > 59 || total > MAX_OFFSET_MINUTES) bad('timezone', `"${clip(raw)}" is not a UTC offset between -14:00 and +14:00`);
    return { kind: 'offset', minutes: m[1] === '-' ? -total : total };
  }
  const unknown = (): never => bad('timezone', `"${clip(raw)}" is neither a UTC offset (+05:30) nor a time zone name the database knows (Europe/Berlin)`);
  if (!ZONE_NAME.test(text)) unknown();
  if (zones === null) {
    if (!knownZone(text)) unknown();
    return bad('timezone', `IANA time zone names such as "${clip(raw)}" need PostgreSQL, or MariaDB/MySQL with its time zone tables loaded; this database buckets only in fixed offsets such as +05:30`);
  }
  return { kind: 'name', name: zones.get(text.toLowerCase()) ?? unknown() };
}

function knownZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

class GroupChecker {
  readonly joins: SortJoin[] = [];
  readonly reads = new Set<string>();
  readonly ruleReads = new Set<string>();

  constructor(
    private readonly model: ContentType,
    private readonly registry: Registry,
    private readonly meter: CostMeter,
    private readonly opts?: CheckGroupOptions,
  ) {}

  /** `a.b.c` → the field `c`, joining through the owning to-one relations `a` and `a.b`. */
  field(path: string, at: string, use: string): GroupField {
    const parts = path.split('.');
    if (parts.some((p) => p === '')) bad(at, `"${clip(path)}" is not a field path`);
    let current = this.model;
    let alias = BASE_ALIAS;
    let walked = pathFrom(this.model);
    for (const part of parts.slice(0, -1)) {
      const r = resolveName(current, part);
      if (!r) return bad(at, `unknown field "${clip(part)}" of ${current.name}`);
      if (r.kind !== 'relation' || !r.attr.owner || !r.attr.column) return bad(at, `can ${use} only through many-to-one relations; "${clip(part)}" is not one`);
      walked = this.meter.walk(walked, current, r.attr, at);
      const target = this.registry.get(r.attr.target);
      if (!target) throw new Error(`registry: relation target ${r.attr.target} missing`);
      this.reads.add(target.name);
      const from = proveColumn(alias, r.attr.column);
      let join = this.joins.find((j) => j.from === from);
      if (!join) {
        this.meter.addScope(at);
        const { filter: rule, reads } = this.opts ? relatedRule(target, BASE_ALIAS, this.opts) : { filter: null, reads: [] };
        for (const m of reads) this.ruleReads.add(m);
        join = { alias: `g${this.joins.length + 1}`, table: proveTable(target.table), from, softDelete: target.softDelete, ...(rule && { rule }) };
        this.joins.push(join);
      }
      current = target;
      alias = join.alias;
    }
    const last = parts[parts.length - 1];
    const r = resolveName(current, last);
    if (!r) return bad(at, `unknown field "${clip(last)}" of ${current.name}`);
    if (r.kind === 'relation') {
      const hint = r.attr.idField ? `${r.attr.idField} or ${last}.<field>` : `${last}.<field> (many-to-one only)`;
      return bad(at, `"${clip(last)}" is a relation; ${use} by ${hint}`);
    }
    return { name: path, column: proveColumn(alias, r.column), type: r.type, dotted: parts.length > 1 };
  }

  key(entry: string, at: string): GroupKey {
    const [path, unit, format, ...rest] = entry.split(':');
    if (rest.length > 0) bad(at, `"${clip(entry)}": give <field>, <field>:<granularity> or <field>:<granularity>:<format>`);
    const field = this.field(path, at, 'group');
    const cls = ATTRIBUTE_KINDS[field.type].valueClass;
    if (unit === undefined) {
      if (cls === 'json') bad(at, `"${clip(path)}" (json) cannot be grouped`);
      return { kind: 'field', name: entry, field };
    }
    if (field.type !== 'date' && field.type !== 'datetime') return bad(at, `"${clip(path)}" (${field.type}) is not a date or datetime field; only those take a granularity`);
    if (!isGranularity(unit)) return bad(at, `unknown granularity "${clip(unit)}" (known: ${Object.keys(GRANULARITIES).join(', ')})`);
    if (format !== undefined && !isBucketFormat(format)) return bad(at, `unknown format "${clip(format)}" (known: ${Object.keys(BUCKET_FORMATS).join(', ')})`);
    const f: BucketFormat = format ?? GRANULARITIES[unit].rawLabel;
    return { kind: 'bucket', name: entry, field, source: field.type, unit, format: f, injective: labelIsInjective(f, unit) };
  }

  aggregate(entry: string, at: string): GroupAggregate {
    const cut = entry.lastIndexOf(':');
    if (cut <= 0) return bad(at, `"${clip(entry)}": give <field>:<function> (functions: ${Object.keys(AGGREGATE_FUNCTIONS).join(', ')})`);
    const path = entry.slice(0, cut);
    const fn = entry.slice(cut + 1);
    if (!isAggregateFunction(fn)) return bad(at, `unknown aggregate function "${clip(fn)}" (known: ${Object.keys(AGGREGATE_FUNCTIONS).join(', ')})`);
    const field = this.field(path, at, 'aggregate');
    const cls = ATTRIBUTE_KINDS[field.type].valueClass;
    if (!aggregateAllows(fn, cls)) bad(at, `${fn} does not apply to "${clip(path)}" (${field.type}); it takes ${AGGREGATE_FUNCTIONS[fn].classes.join(', ')} fields`);
    return { alias: `${path}_${fn}`, fn, field };
  }
}

function sortTarget(k: SortKey, keys: readonly GroupKey[], aggregates: readonly GroupAggregate[]): GroupSort['target'] {
  const key = keys.findIndex((g) => g.name === k.key);
  if (key >= 0) return { kind: 'key', index: key };
  const agg = aggregates.findIndex((a) => a.alias === k.key);
  if (agg >= 0) return { kind: 'aggregate', index: agg };
  const names = [...keys.map((g) => g.name), ...aggregates.map((a) => a.alias)];
  return bad(k.at, `"${clip(k.key)}" is neither a group key nor an aggregate alias; grouped results sort by ${names.join(', ')}`);
}

export interface GroupCheckInput {
  readonly group: GroupSpecRaw;
  /** The query's `sort`: in a grouped query it orders the groups (spec 4.5 rule 4). */
  readonly sort: readonly SortKey[];
  /** The query's paging: in a grouped query it pages the groups. */
  readonly page: PageSpec;
}

/** Checks the grouping part of a Find query against its model. */
export function checkGroup(input: GroupCheckInput, model: ContentType, opts: CheckGroupOptions, meter: CostMeter = new CostMeter(opts.cost ?? DEFAULT_COST_BOUNDS)): CheckedGroup {
  const { group } = input;
  const c = new GroupChecker(model, opts.registry, meter, opts);
  if (group.groupBy.length === 0) bad('groupBy', 'names no field');
  if (group.groupBy.length > MAX_GROUP_KEYS) bad('groupBy', `at most ${MAX_GROUP_KEYS} keys`);
  if (group.aggregates.length > MAX_AGGREGATES) bad('aggregates', `at most ${MAX_AGGREGATES} entries`);
  const keys = group.groupBy.map((entry, i) => c.key(entry, `groupBy[${i}]`));
  keys.forEach((k, i) => {
    if (keys.findIndex((o) => o.name === k.name) !== i) bad(`groupBy[${i}]`, `"${clip(k.name)}" is named twice`);
  });
  const aggregates: GroupAggregate[] =
    group.aggregates.length === 0 ? [{ alias: ROW_COUNT_ALIAS, fn: 'count', field: null }] : group.aggregates.map((entry, i) => c.aggregate(entry, `aggregates[${i}]`));
  aggregates.forEach((a, i) => {
    if (aggregates.findIndex((o) => o.alias === a.alias) !== i) bad(`aggregates[${i}]`, `"${clip(a.alias)}" is named twice`);
    if (keys.some((k) => k.name === a.alias)) bad(`aggregates[${i}]`, `"${clip(a.alias)}" is also a group key`);
  });
  // spec 4.5 rule 7: populateGroup is not supported when a group field is a relation field.
  if (group.populateGroup) {
    const dotted = keys.find((k) => k.field.dotted);
    if (dotted) bad('populateGroup', `is not supported when a group field is a relation field ("${clip(dotted.name)}"; spec 4.5 rule 7)`);
  }
  const sort: GroupSort[] = input.sort.map((k) => ({ target: sortTarget(k, keys, aggregates), direction: k.direction }));
  keys.forEach((_, index) => {
    if (!sort.some((s) => s.target.kind === 'key' && s.target.index === index)) sort.push({ target: { kind: 'key', index }, direction: 'asc' });
  });
  const limit = Math.min(input.page.limit ?? DEFAULT_LIMIT, opts.maxLimit);
  const offset = input.page.page !== null ? (input.page.page - 1) * limit : (input.page.offset ?? 0);
  const zone = checkTimeZone(group.timezone, opts.timeZones);
  c.reads.delete(model.name);
  c.ruleReads.delete(model.name);
  return { keys, aggregates, joins: c.joins, sort, limit, offset, zone, populateGroup: group.populateGroup, reads: [...c.reads], ruleReads: [...c.ruleReads] };
}

/** A grouped Find, checked: the groups, and what `groupRecords` shows inside each of them. */
export interface CheckedGroupQuery {
  readonly model: ContentType;
  readonly filter: CheckedFilter | null;
  readonly softDelete: SoftDeleteScope;
  readonly group: CheckedGroup;
  /**
   * The records inside each group (populateGroup): `fields`, `populate` as in a plain Find; sort,
   * limit and offset from `groupFilter` (default limit DEFAULT_GROUP_RECORDS_LIMIT).
   */
  readonly records: CheckedQuery;
  /** Every model the query reads besides its own: the caller needs `find` on each. */
  readonly reads: readonly string[];
  /** Every model besides its own that the caller's rules walk through (CheckedQuery.ruleReads). */
  readonly ruleReads: readonly string[];
}

/** Checks a Find query that has grouping parameters (`q.group` set). */
export function checkGroupedQuery(q: ListQuery, model: ContentType, opts: CheckGroupOptions): CheckedGroupQuery {
  const group = q.group;
  if (!group) throw new Error('checkGroupedQuery: the query has no grouping');
  const gf = group.groupFilter;
  // One budget of relation scopes for the whole grouped query: records (filters, groupFilter sort, populate) and grouping.
  const meter = new CostMeter(opts.cost ?? DEFAULT_COST_BOUNDS);
  const records = checkListQuery(
    { ...q, sort: gf.sort, page: { limit: gf.limit ?? DEFAULT_GROUP_RECORDS_LIMIT, offset: gf.offset, page: null }, group: null },
    model,
    opts,
    meter,
  );
  const checked = checkGroup({ group, sort: q.sort, page: q.page }, model, opts, meter);
  return {
    model,
    filter: records.filter,
    softDelete: q.softDelete,
    group: checked,
    records,
    reads: [...new Set([...records.reads, ...checked.reads])],
    ruleReads: [...new Set([...records.ruleReads, ...checked.ruleReads])],
  };
}
