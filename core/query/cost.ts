/**
 * The cost bounds of one query, checked before any SQL runs (issue 13 item 1). Each relation a
 * filter, sort, populate filter or group path walks becomes a correlated EXISTS subquery or a JOIN
 * (a "relation scope"); nested scopes multiply the rows the database visits, so a path of to-one /
 * to-many hops back and forth grows exponentially with its length. Three rules bound that:
 * - at most `maxHops` relations in one path (QUERY_MAX_RELATION_HOPS);
 * - no hop straight back along the relation just walked (fee-type → institute → feeTypes): it only
 *   multiplies work, and the same records are reached by a filter on the model's own fields;
 * - at most `maxScopes` relation scopes in the whole query (QUERY_MAX_RELATION_SCOPES), summed over
 *   filters, sort, populate filters and grouping.
 * Every refusal is a 400 naming the parameter, the limit and its setting.
 */
import { BadRequestError } from '../errors/errors';
import type { ContentType, RelationAttribute } from '../registry/types';
import { DEFAULT_MAX_RELATION_HOPS, DEFAULT_MAX_RELATION_SCOPES } from './limits';

export interface CostBounds {
  /** Relations one path may walk (QUERY_MAX_RELATION_HOPS). */
  readonly maxRelationHops: number;
  /** Relation scopes (EXISTS subqueries and joins) one query may hold (QUERY_MAX_RELATION_SCOPES). */
  readonly maxRelationScopes: number;
}

export const DEFAULT_COST_BOUNDS: CostBounds = { maxRelationHops: DEFAULT_MAX_RELATION_HOPS, maxRelationScopes: DEFAULT_MAX_RELATION_SCOPES };

export const HOPS_SETTING = 'QUERY_MAX_RELATION_HOPS';
export const SCOPES_SETTING = 'QUERY_MAX_RELATION_SCOPES';

/** Where a path stands: the relations walked so far from the query's model. */
export interface RelationPath {
  /** The model the path started at. */
  readonly start: string;
  /** The relations walked, in order, each with the model it left. */
  readonly steps: readonly { readonly from: ContentType; readonly attr: RelationAttribute }[];
}

export const pathFrom = (model: ContentType): RelationPath => ({ start: model.name, steps: [] });

const describe = (path: RelationPath, extra: RelationAttribute): string => [path.start, ...path.steps.map((s) => s.attr.name), extra.name].join('.');

/** `attr` of `model` is the inverse of the relation the path walked last, leading back to where it came from. */
export function walksBack(path: RelationPath, model: ContentType, attr: RelationAttribute): boolean {
  const last = path.steps[path.steps.length - 1];
  if (!last || attr.target !== last.from.name || last.attr.target !== model.name) return false;
  return last.attr.inverse === attr.name || attr.inverse === last.attr.name;
}

/** Counts the relation scopes of one query and checks each path against the bounds. */
export class CostMeter {
  private scopes = 0;

  constructor(readonly bounds: CostBounds = DEFAULT_COST_BOUNDS) {}

  /** Refuses a hop straight back along the relation just walked (any relation named, scope or not). */
  checkWalkBack(path: RelationPath, model: ContentType, attr: RelationAttribute, at: string): void {
    if (!walksBack(path, model, attr)) return;
    const last = path.steps[path.steps.length - 1];
    throw new BadRequestError(
      `${at}: walks straight back along the relation just walked (${describe(path, attr)}: ${model.name}.${attr.name} returns to ${last.from.name} ` +
        `through the inverse of ${last.from.name}.${last.attr.name}); filter on ${last.from.name}'s own fields instead`,
      { parameter: at, limit: 'relationWalkBack', path: describe(path, attr) },
    );
  }

  /** The path walks `attr` of `model`: checks the hop bound and the walk-back rule; answers the longer path. */
  walk(path: RelationPath, model: ContentType, attr: RelationAttribute, at: string): RelationPath {
    this.checkWalkBack(path, model, attr, at);
    const hops = path.steps.length + 1;
    const max = this.bounds.maxRelationHops;
    if (hops > max) {
      throw new BadRequestError(
        `${at}: the path ${describe(path, attr)} goes through ${hops} relations; at most ${max} are allowed in one path (setting ${HOPS_SETTING})`,
        { parameter: at, limit: 'relationHops', setting: HOPS_SETTING, max, path: describe(path, attr) },
      );
    }
    return { start: path.start, steps: [...path.steps, { from: model, attr }] };
  }

  /** One more relation scope (an EXISTS subquery or a join) in the query. */
  addScope(at: string): void {
    this.scopes += 1;
    const max = this.bounds.maxRelationScopes;
    if (this.scopes > max) {
      throw new BadRequestError(
        `${at}: the query needs more than ${max} relation scopes (each relation condition, dotted sort or group path is a subquery or join; ` +
          `filters, sort, populate filters and groupBy together); at most ${max} are allowed (setting ${SCOPES_SETTING})`,
        { parameter: at, limit: 'relationScopes', setting: SCOPES_SETTING, max },
      );
    }
  }

  get used(): number {
    return this.scopes;
  }
}
