/** Named limits of the query language; exceeding one answers 400 at once (issue 3, Safety). */

/** Nesting of `$and` / `$or` / `$not` / relation scopes in `filters`. */
export const MAX_FILTER_DEPTH = 12;
/** Conditions (leaves and branches) in one `filters` tree. */
export const MAX_FILTER_NODES = 200;
/** Items in one `$in` / `$notIn` list. */
export const MAX_IN_LIST = 500;
/** Keys in `sort`. */
export const MAX_SORT_KEYS = 10;
/** Relation hops in one populate path. */
export const MAX_POPULATE_DEPTH = 5;
/**
 * Defaults of the query cost bounds (core/query/cost.ts); the settings QUERY_MAX_RELATION_HOPS and
 * QUERY_MAX_RELATION_SCOPES (config/schema.ts) override them. Hops: relations one filter, sort,
 * populate-filter or group path walks. Scopes: EXISTS subqueries and joins of one whole query.
 */
export const DEFAULT_MAX_RELATION_HOPS = 3;
export const DEFAULT_MAX_RELATION_SCOPES = 16;
/** Entries in `fields`, `populate`, `populateMedia`, `groupBy`, `aggregates`. */
export const MAX_LIST_PARAM = 100;
/** Length of one filter value. */
export const MAX_VALUE_LENGTH = 10_000;
/** Length of the raw query string. */
export const MAX_QUERY_STRING = 32_768;
/** Default page size (spec 8). */
export const DEFAULT_LIMIT = 10;
/**
 * Children per parent of a to-many populate, when no setting is given (POPULATE_DEFAULT_LIMIT and
 * POPULATE_MAX_LIMIT in config/ override them for the service).
 */
export const DEFAULT_POPULATE_LIMIT = 10;
export const MAX_POPULATE_LIMIT = 100;
/**
 * Parameters in one query string, and the largest array index qs accepts. Above MAX_IN_LIST so that an
 * over-long `$in` list reaches the parser, which names its path.
 */
export const MAX_PARAMETERS = 1000;
