/**
 * ListQuery × ContentType → CheckedQuery. Resolves names through the registry (relations become
 * subquery hops planned here, as data), coerces values by attribute type, and refuses unknown or
 * private fields and operators a type does not allow → BadRequestError naming the parameter.
 */
import { clip } from '../errors/client-text';
import { BadRequestError } from '../errors/errors';
import { ATTRIBUTE_KINDS } from '../registry/attribute-kinds';
import { foldColumnName, foldText, isFolded } from '../registry/fold';
import { type ContentType, NOT_DELETED, type Registry, type RelationAttribute, type ScalarType, SYSTEM_FIELDS } from '../registry/types';
import type { FilterNode, ListQuery, PopulateNode, RawValue, SortKey } from './ast';
import {
  BASE_ALIAS,
  type BoundValue,
  type CheckedFilter,
  type CheckedPopulate,
  type CheckedQuery,
  type CheckedSort,
  type ColumnRef,
  type RelationHop,
  type SelectedField,
  type SortJoin,
  proveColumn,
  proveTable,
} from './checked';
import { type CostBounds, CostMeter, DEFAULT_COST_BOUNDS, type RelationPath, pathFrom } from './cost';
import { DEFAULT_LIMIT, DEFAULT_POPULATE_LIMIT, MAX_POPULATE_DEPTH, MAX_POPULATE_LIMIT } from './limits';
import { FOLDED_AS, OPERATORS, operatorAllows, positiveForm } from './operators';

/** A 400 naming the parameter (its path cut to 100 characters: it is built from the client's keys). */
const bad = (at: string, problem: string): never => {
  const parameter = clip(at);
  throw new BadRequestError(`${parameter}: ${problem}`, { parameter });
};

/** A name resolved in one model: a column (system, scalar, relation id) or a relation. */
export type ResolvedName =
  | { readonly kind: 'column'; readonly name: string; readonly column: string; readonly type: ScalarType; readonly fold?: string }
  | { readonly kind: 'relation'; readonly attr: RelationAttribute };

/** Resolves a public field name; private, media and unknown names resolve to null alike (no leak). */
export function resolveName(model: ContentType, name: string): ResolvedName | null {
  const sys = SYSTEM_FIELDS.find((f) => f.name === name);
  if (sys) return { kind: 'column', name: sys.name, column: sys.column, type: sys.type };
  const a = model.byName.get(name);
  if (a) {
    if (a.private) return null;
    if (a.kind === 'scalar') return { kind: 'column', name: a.name, column: a.column, type: a.type, ...(isFolded(model, a) && { fold: foldColumnName(a.column) }) };
    if (a.kind === 'relation') return { kind: 'relation', attr: a };
    return null;
  }
  for (const r of model.attributes) {
    if (r.kind === 'relation' && !r.private && r.idField === name && r.column) return { kind: 'column', name, column: r.column, type: 'integer' };
  }
  return null;
}

/** Every field a record of `model` shows by default: system, public scalars, relation ids. */
export function defaultSelect(model: ContentType): SelectedField[] {
  const out: SelectedField[] = SYSTEM_FIELDS.map((f) => ({ name: f.name, column: f.column, type: f.type }));
  for (const a of model.attributes) {
    if (a.private) continue;
    if (a.kind === 'scalar') out.push({ name: a.name, column: a.column, type: a.type });
    else if (a.kind === 'relation' && a.idField && a.column) out.push({ name: a.idField, column: a.column, type: 'integer' });
  }
  return out;
}

export interface CheckOptions {
  readonly registry: Registry;
  readonly maxLimit: number;
  /** Children per parent of a to-many populate: default and clamp (POPULATE_DEFAULT_LIMIT, POPULATE_MAX_LIMIT). */
  readonly populateDefaultLimit?: number;
  readonly populateMaxLimit?: number;
  /** Query cost bounds (QUERY_MAX_RELATION_HOPS, QUERY_MAX_RELATION_SCOPES); the defaults of limits.ts when absent. */
  readonly cost?: CostBounds;
  /** The caller's row-level rules (row-scope.ts); absent: every row. */
  readonly scope?: RowScope;
}

/**
 * Row-level rules (issue 16), as Find filters with their variables already substituted: `root` guards
 * the queried model for the request's action, `related(model)` is the `find` rule of every model the
 * query reaches through a relation (filters, sort, populate, grouping). Rules are checked against
 * `registry` (every field, whatever the caller may read) and compiled into the same SQL as the query,
 * never applied afterwards. A rule that no longer checks (a field dropped since it was saved) matches nothing.
 */
export interface RowScope {
  readonly root: FilterNode | null;
  readonly related: (model: string) => FilterNode | null;
  readonly registry: Registry;
}

/** A filter that matches no row (`id IS NULL`). */
export const NOTHING = (alias: string): CheckedFilter => ({ kind: 'compare', column: proveColumn(alias, 'id'), op: '$null', negated: false, value: true, valueClass: 'number' });

/** `a AND b`, either side possibly absent. */
export function andFilters(a: CheckedFilter | null, b: CheckedFilter | null): CheckedFilter | null {
  if (!a) return b;
  if (!b) return a;
  return { kind: 'and', items: [a, b] };
}

const isToMany = (a: RelationAttribute): boolean => a.relation === 'oneToMany' || a.relation === 'manyToMany';

class Checker {
  readonly reads = new Set<string>();
  /** The models the caller's rules walk through (CheckedQuery.ruleReads). */
  readonly ruleReads = new Set<string>();

  constructor(
    private readonly opts: CheckOptions,
    readonly meter: CostMeter,
    /** Shared with the checkers of the rules, so every alias of one statement is unique. */
    private readonly aliases: { count: number } = { count: 0 },
  ) {}

  nextAlias(prefix: string): string {
    this.aliases.count += 1;
    return `${prefix}${this.aliases.count}`;
  }

  /**
   * The caller's rule for `model` at `alias` (root: the queried model's own rule), or null. Checked with
   * the full registry, its own cost meter and no rules inside it (a rule is the admin's, not the caller's).
   */
  rule(model: ContentType, alias: string, root = false): CheckedFilter | null {
    const scope = this.opts.scope;
    if (!scope) return null;
    const node = root ? scope.root : scope.related(model.name);
    if (!node) return null;
    const full = scope.registry.get(model.name) ?? model;
    const sub = new Checker({ ...this.opts, registry: scope.registry, scope: undefined }, new CostMeter(this.opts.cost ?? DEFAULT_COST_BOUNDS), this.aliases);
    try {
      const checked = sub.filter(node, full, alias, null, pathFrom(full));
      for (const m of sub.reads) this.ruleReads.add(m);
      return checked;
    } catch {
      return NOTHING(alias);
    }
  }

  target(attr: RelationAttribute): ContentType {
    const t = this.opts.registry.get(attr.target);
    if (!t) throw new Error(`registry: relation target ${attr.target} missing`);
    this.reads.add(t.name);
    return t;
  }

  unknown(model: ContentType, name: string, at: string): never {
    return bad(at, `unknown field "${clip(name)}" of ${model.name}`);
  }

  hop(model: ContentType, attr: RelationAttribute, alias: string): RelationHop {
    const target = this.target(attr);
    const next = this.nextAlias('r');
    // issue 14: a link to an i18n model's record names its entry (the default-locale row's id), from every locale row
    const parentId = proveColumn(alias, model.i18n ? 'default_entity_locale_id' : 'id');
    if (attr.owner && attr.column) {
      return { via: 'column', from: proveColumn(alias, attr.column), table: proveTable(target.table), alias: next, softDelete: target.softDelete };
    }
    if (attr.joinTable) {
      const j = this.nextAlias('j');
      return {
        via: 'join',
        joinTable: proveTable(attr.joinTable.table),
        joinAlias: j,
        ownerColumn: proveColumn(j, attr.joinTable.ownerColumn),
        targetColumn: proveColumn(j, attr.joinTable.targetColumn),
        parentId,
        table: proveTable(target.table),
        alias: next,
        softDelete: target.softDelete,
      };
    }
    const mirror = attr.inverse ? target.byName.get(attr.inverse) : undefined;
    if (!mirror || mirror.kind !== 'relation' || !mirror.column) throw new Error(`registry: ${model.name}.${attr.name} has no owning side`);
    return { via: 'back', fk: proveColumn(next, mirror.column), parentId, table: proveTable(target.table), alias: next, softDelete: target.softDelete, ...(target.i18n && { entryRows: true }) };
  }

  coerce(type: ScalarType, raw: string, at: string): string | number | boolean {
    try {
      return ATTRIBUTE_KINDS[type].coerce(raw) as string | number | boolean;
    } catch (e) {
      return bad(at, (e as Error).message);
    }
  }

  /**
   * `deletedTracker` shows `not-deleted` or `deleted` (spec 3.1) while the column of an archived record
   * holds a unique stamp (service.ts), so its filters compare the state, not the stored text.
   */
  trackerCompare(node: Extract<FilterNode, { kind: 'compare' }>, alias: string): CheckedFilter {
    const TRACKER_OPS = ['$eq', '$ne', '$in', '$notIn', '$null', '$notNull'];
    if (!TRACKER_OPS.includes(node.op)) bad(node.at, `operator ${node.op} does not apply to deletedTracker (known: ${TRACKER_OPS.join(', ')})`);
    const active: CheckedFilter = { kind: 'compare', column: proveColumn(alias, 'deleted_tracker'), op: '$eq', negated: false, value: NOT_DELETED, valueClass: 'text' };
    const { negated } = positiveForm(node.op);
    if (OPERATORS[node.op].arity === 'flag') {
      // never NULL: `$null=true` matches nothing, `$notNull=true` everything
      const always = negated === (node.value === true);
      return always ? { kind: 'or', items: [active, { kind: 'not', item: active }] } : { kind: 'and', items: [active, { kind: 'not', item: active }] };
    }
    const values = Array.isArray(node.value) ? node.value : [String(node.value)];
    values.forEach((v, i) => {
      if (v !== NOT_DELETED && v !== 'deleted') bad(Array.isArray(node.value) ? `${node.at}[${i}]` : node.at, `"${clip(v)}" is not a deletedTracker state (${NOT_DELETED} or deleted)`);
    });
    const states = new Set(values);
    const items: CheckedFilter[] = [];
    if (states.has(NOT_DELETED)) items.push(active);
    if (states.has('deleted')) items.push({ kind: 'not', item: active });
    const positive: CheckedFilter = { kind: 'or', items };
    return negated ? { kind: 'not', item: positive } : positive;
  }

  compare(node: Extract<FilterNode, { kind: 'compare' }>, field: { name: string; column: string; type: ScalarType; fold?: string }, alias: string): CheckedFilter {
    if (field.column === 'deleted_tracker') return this.trackerCompare(node, alias);
    const kind = ATTRIBUTE_KINDS[field.type];
    if (!operatorAllows(node.op, kind.valueClass)) bad(node.at, `operator ${node.op} does not apply to ${field.name} (${field.type})`);
    const column = proveColumn(alias, field.column);
    const { op, negated } = positiveForm(node.op);
    let value: BoundValue;
    if (OPERATORS[node.op].arity === 'flag') {
      // `$null=false` means IS NOT NULL; `$notNull=false` means IS NULL.
      return { kind: 'compare', column, op: '$null', negated: negated === (node.value === true), value: true, valueClass: kind.valueClass };
    }
    const raw: RawValue = node.value;
    if (Array.isArray(raw)) value = raw.map((r, i) => this.coerce(field.type, r, `${node.at}[${i}]`));
    else value = this.coerce(field.type, String(raw), node.at);
    // `…i` on a text attribute: its hidden fold column, case-sensitively, with the needle folded alike (registry/fold.ts).
    const folded = FOLDED_AS[op];
    if (folded && field.fold) return { kind: 'compare', column: proveColumn(alias, field.fold), op: folded, negated, value: foldText(String(value)), valueClass: kind.valueClass };
    return { kind: 'compare', column, op, negated, value, valueClass: kind.valueClass };
  }

  filter(node: FilterNode, model: ContentType, alias: string, field: { name: string; column: string; type: ScalarType; fold?: string } | null, path: RelationPath): CheckedFilter {
    switch (node.kind) {
      case 'and':
      case 'or':
        return { kind: node.kind, items: node.items.map((i) => this.filter(i, model, alias, field, path)) };
      case 'not':
        return { kind: 'not', item: this.filter(node.item, model, alias, field, path) };
      case 'compare':
        // A compare at model scope (directly under a relation) applies to the related record's id.
        return this.compare(node, field ?? { name: 'id', column: 'id', type: 'integer' }, alias);
      case 'field': {
        if (field) bad(node.at, `"${clip(field.name)}" is not a relation; put an operator under it`);
        const resolved = resolveName(model, node.name);
        if (!resolved) return this.unknown(model, node.name, node.at);
        if (resolved.kind === 'column') return this.filter(node.item, model, alias, resolved, path);
        return this.relationFilter(node, model, resolved.attr, alias, path);
      }
    }
  }

  relationFilter(node: Extract<FilterNode, { kind: 'field' }>, model: ContentType, attr: RelationAttribute, alias: string, path: RelationPath): CheckedFilter {
    // Refused even where no subquery follows (`filters[institute][feeTypes][$notNull]`): the rule is about the path.
    this.meter.checkWalkBack(path, model, attr, node.at);
    const item = node.item;
    if (attr.owner && attr.column) return this.toOneScope(item, model, attr, attr.column, alias, path, node.at);
    const inner = this.meter.walk(path, model, attr, node.at);
    this.meter.addScope(node.at);
    const hop = this.hop(model, attr, alias);
    const target = this.target(attr);
    // Only related records the caller may read count (a relation filter must not reveal the others).
    const rule = this.rule(target, hop.alias);
    if (item.kind === 'compare' && OPERATORS[item.op].arity === 'flag') {
      // `$null` on a to-many relation: no related record; `$notNull`: at least one.
      const some = (item.op === '$notNull') === (item.value === true);
      const exists: CheckedFilter = { kind: 'exists', hop, item: rule };
      return some ? exists : { kind: 'not', item: exists };
    }
    return { kind: 'exists', hop, item: andFilters(rule, this.filter(item, target, hop.alias, null, inner)) };
  }

  /**
   * Under an owning to-one relation, operators compare the stored link (`filters[author][$ne]=3` is
   * `authorId` ≠ 3, NULL included; `[$null]=true`: no record linked) and every field condition asks
   * for the linked (active) record. Each field condition gets its own EXISTS: with at most one linked
   * record that is the same as one EXISTS around all of them, and `$not` stays an exact complement.
   */
  toOneScope(node: FilterNode, model: ContentType, attr: RelationAttribute, column: string, alias: string, path: RelationPath, at: string): CheckedFilter {
    switch (node.kind) {
      case 'and':
      case 'or':
        return { kind: node.kind, items: node.items.map((i) => this.toOneScope(i, model, attr, column, alias, path, at)) };
      case 'not':
        return { kind: 'not', item: this.toOneScope(node.item, model, attr, column, alias, path, at) };
      case 'compare':
        this.target(attr);
        return this.compare(node, { name: attr.name, column, type: 'integer' }, alias);
      case 'field': {
        // Each field condition is an EXISTS of its own, so each counts as a scope.
        const inner = this.meter.walk(path, model, attr, at);
        this.meter.addScope(node.at);
        const hop = this.hop(model, attr, alias);
        const target = this.target(attr);
        return { kind: 'exists', hop, item: andFilters(this.rule(target, hop.alias), this.filter(node, target, hop.alias, null, inner)) };
      }
    }
  }

  select(model: ContentType, fields: readonly string[] | null, at: string): SelectedField[] {
    const all = defaultSelect(model);
    if (fields === null) return all;
    const out: SelectedField[] = [all[0]]; // id is always returned
    for (const name of fields) {
      const f = all.find((x) => x.name === name);
      if (!f) {
        const r = resolveName(model, name);
        if (r?.kind === 'relation') bad(at, `"${clip(name)}" is a relation; use populate`);
        this.unknown(model, name, at);
      } else if (!out.includes(f)) out.push(f);
    }
    return out;
  }

  sort(model: ContentType, keys: readonly SortKey[], alias: string, joins: SortJoin[]): CheckedSort[] {
    const out: CheckedSort[] = keys.map((k) => {
      const path = k.key.split('.');
      let current = model;
      let currentAlias = alias;
      let walked = pathFrom(model);
      for (let i = 0; i < path.length - 1; i++) {
        const r = resolveName(current, path[i]);
        if (!r) return this.unknown(current, path[i], k.at);
        if (r.kind !== 'relation' || !r.attr.owner || !r.attr.column) return bad(k.at, `can sort only through to-one relations; "${clip(path[i])}" is not one`);
        walked = this.meter.walk(walked, current, r.attr, k.at);
        const target = this.target(r.attr);
        const from = proveColumn(currentAlias, r.attr.column);
        const existing = joins.find((j) => j.from === from);
        const join = existing ?? this.join(this.nextAlias('s'), target, from);
        if (!existing) {
          this.meter.addScope(k.at);
          joins.push(join);
        }
        current = target;
        currentAlias = join.alias;
      }
      const last = path[path.length - 1];
      const r = resolveName(current, last);
      if (!r) return this.unknown(current, last, k.at);
      if (r.kind === 'relation') return bad(k.at, `"${clip(last)}" is a relation; sort by one of its fields (${last}.<field>)`);
      if (ATTRIBUTE_KINDS[r.type].valueClass === 'json') return bad(k.at, `"${clip(last)}" (json) cannot be sorted`);
      const column = proveColumn(currentAlias, r.column);
      return { column, direction: k.direction, text: ATTRIBUTE_KINDS[r.type].valueClass === 'text', ...(column === proveColumn(alias, 'id') && { notNull: true }) };
    });
    // A primary-key tie-breaker makes every page stable.
    const id = proveColumn(alias, 'id');
    if (!out.some((s) => s.column === id)) out.push({ column: id, direction: out[0]?.direction ?? 'asc', notNull: true });
    return out;
  }

  /** A LEFT JOIN to `target`; with a rule, to its readable rows only (a sort must not reveal the others' values). */
  join(alias: string, target: ContentType, from: ColumnRef): SortJoin {
    const rule = this.rule(target, BASE_ALIAS);
    return { alias, table: proveTable(target.table), from, softDelete: target.softDelete, ...(rule && { rule }) };
  }

  /**
   * Children per parent: to-many relations take `[limit]` (clamped to the maximum, as API_MAX_LIMIT
   * clamps Find) and `[offset]`; an inverse to-one shows its first child; an owning to-one needs no page.
   */
  populatePage(attr: RelationAttribute, n: PopulateNode): CheckedPopulate['page'] {
    const max = this.opts.populateMaxLimit ?? MAX_POPULATE_LIMIT;
    if (!isToMany(attr)) {
      for (const key of ['limit', 'offset'] as const) {
        if (n[key] !== null && n[key] !== undefined) bad(`${n.at}[${key}]`, `applies only to to-many relations; ${attr.name} is ${attr.relation}`);
      }
      return attr.owner && attr.column ? null : { limit: 1, offset: 0 };
    }
    const limit = Math.min(n.limit ?? Math.min(this.opts.populateDefaultLimit ?? DEFAULT_POPULATE_LIMIT, max), max);
    return { limit, offset: n.offset ?? 0 };
  }

  populate(model: ContentType, nodes: readonly PopulateNode[], depth: number): CheckedPopulate[] {
    const expanded = nodes.flatMap((n) =>
      n.name === '*'
        ? model.attributes
            .filter((a): a is RelationAttribute => a.kind === 'relation' && !a.private)
            // `populate[*][limit]` pages the to-many relations; the to-one ones have nothing to page.
            .map((a) => ({ ...n, name: a.name, ...(isToMany(a) ? {} : { limit: null, offset: null }) }))
        : [n],
    );
    return expanded.map((n) => {
      if (depth > MAX_POPULATE_DEPTH) bad(n.at, `populate deeper than ${MAX_POPULATE_DEPTH} levels`);
      const r = resolveName(model, n.name);
      if (!r) return this.unknown(model, n.name, n.at);
      if (r.kind !== 'relation') return bad(n.at, `"${clip(n.name)}" is not a relation of ${model.name}`);
      const target = this.target(r.attr);
      const alias = BASE_ALIAS;
      const joins: SortJoin[] = [];
      return {
        page: this.populatePage(r.attr, n),
        relation: r.attr,
        target,
        select: this.select(target, n.fields, `${n.at}[fields]`),
        // A populate level is a query of its own: its filter's paths start at the related model. A related
        // record the caller may not read is absent (the target's rule is part of the level's WHERE).
        filter: andFilters(this.rule(target, alias), n.filters ? this.filter(n.filters, target, alias, null, pathFrom(target)) : null),
        sort: n.sort.length ? this.sort(target, n.sort, alias, joins) : [],
        joins,
        populate: this.populate(target, n.populate, depth + 1),
      };
    });
  }
}

/**
 * The caller's `find` rule for `model` (a model reached through a relation) at `alias`, or null
 * (CheckOptions.scope), with the models it walks through (CheckedQuery.ruleReads).
 */
export function relatedRule(model: ContentType, alias: string, opts: CheckOptions): { readonly filter: CheckedFilter | null; readonly reads: readonly string[] } {
  const c = new Checker(opts, new CostMeter(opts.cost ?? DEFAULT_COST_BOUNDS));
  const filter = c.rule(model, alias);
  return { filter, reads: [...c.ruleReads] };
}

/** Checks a parsed Find / FindOne query against its model. */
export function checkListQuery(q: ListQuery, model: ContentType, opts: CheckOptions, meter: CostMeter = new CostMeter(opts.cost ?? DEFAULT_COST_BOUNDS)): CheckedQuery {
  const c = new Checker(opts, meter);
  const joins: SortJoin[] = [];
  const rule = c.rule(model, BASE_ALIAS, true);
  const limit = Math.min(q.page.limit ?? DEFAULT_LIMIT, opts.maxLimit);
  const offset = q.page.page !== null ? (q.page.page - 1) * limit : (q.page.offset ?? 0);
  const populateMedia = q.populateMedia.map((name) => {
    const a = model.byName.get(name);
    if (!a || a.kind !== 'media' || a.private) return bad('populateMedia', `"${clip(name)}" is not a media field of ${model.name}`);
    return a;
  });
  const checked: CheckedQuery = {
    model,
    filter: andFilters(rule, q.filters ? c.filter(q.filters, model, BASE_ALIAS, null, pathFrom(model)) : null),
    softDelete: q.softDelete,
    select: c.select(model, q.fields, 'fields'),
    sort: c.sort(model, q.sort, BASE_ALIAS, joins),
    joins,
    limit,
    offset,
    populate: c.populate(model, q.populate, 1),
    populateMedia,
    reads: [],
    ruleReads: [],
  };
  c.reads.delete(model.name);
  c.ruleReads.delete(model.name);
  return { ...checked, reads: [...c.reads], ruleReads: [...c.ruleReads] };
}
