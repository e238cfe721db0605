/**
 * The list-query AST as parse.ts produces it: plain readonly data keyed by `kind`, knowing nothing of
 * the registry. check.ts turns it into a CheckedQuery (checked.ts).
 */
import type { Operator } from './operators';

/**
 * A filter tree. `field` scopes its item to one attribute (or, for a relation, to the related model);
 * a `compare` applies to the field it stands under (at model scope: the record's id).
 */
export type FilterNode =
  | { readonly kind: 'and' | 'or'; readonly items: readonly FilterNode[] }
  | { readonly kind: 'not'; readonly item: FilterNode }
  | { readonly kind: 'field'; readonly name: string; readonly item: FilterNode; readonly at: string }
  | { readonly kind: 'compare'; readonly op: Operator; readonly value: RawValue; readonly at: string };

/** Values as they come from the query string: text, lists of text, or booleans for flags. */
export type RawValue = string | boolean | readonly string[];

export interface SortKey {
  /** The key without its direction: `name`, `institute.name`, `dueDate:month` (grouped queries). */
  readonly key: string;
  readonly direction: 'asc' | 'desc';
  readonly at: string;
}

export interface PopulateNode {
  readonly name: string;
  readonly fields: readonly string[] | null;
  readonly filters: FilterNode | null;
  readonly sort: readonly SortKey[];
  readonly populate: readonly PopulateNode[];
  /** `populate[rel][limit]` / `[offset]`: children per parent of a to-many relation (absent: the defaults). */
  readonly limit?: number | null;
  readonly offset?: number | null;
  readonly at: string;
}

export interface PageSpec {
  readonly limit: number | null;
  readonly offset: number | null;
  readonly page: number | null;
}

export type SoftDeleteScope = 'active' | 'inclusive' | 'exclusive';

export interface GroupSpecRaw {
  readonly groupBy: readonly string[];
  readonly aggregates: readonly string[];
  readonly populateGroup: boolean;
  readonly groupFilter: { readonly limit: number | null; readonly offset: number | null; readonly sort: readonly SortKey[] };
  readonly timezone: string | null;
}

export interface ListQuery {
  readonly filters: FilterNode | null;
  readonly sort: readonly SortKey[];
  readonly fields: readonly string[] | null;
  readonly populate: readonly PopulateNode[];
  readonly populateMedia: readonly string[];
  readonly page: PageSpec;
  readonly softDelete: SoftDeleteScope;
  readonly group: GroupSpecRaw | null;
}

/** A query without parameters over the records of `softDelete` (FindOne's shape; a rule or stream filter goes in `filters`). */
export function emptyListQuery(softDelete: SoftDeleteScope, filters: FilterNode | null = null): ListQuery {
  return { filters, sort: [], fields: null, populate: [], populateMedia: [], page: { limit: null, offset: null, page: null }, softDelete, group: null };
}
