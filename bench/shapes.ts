/**
 * The list requests of the benchmark (issue 17: list shapes the first list did not cover). The service
 * answers them through its generic machinery; bench/floor.ts answers each with SQL written for it.
 * Values fit bench/seed.ts: fee i has partPaymentAllowed = (i % 3 == 0), latePaymentFees = (i % 500) / 10
 * (0–49.9), institute 1 + i % 100, and institute k lies in `City ${(k - 1) % 7}`.
 */

/** The first list: two filters, sort by the indexed dueDate, one populate. */
export const LIST_PATH = '/api/fee-type?filters[latePaymentFeesType][$eq]=fixed&filters[latePaymentFees][$gte]=10&sort[0]=-dueDate&limit=10&populate[0]=institute';

/**
 * Sort by a non-indexed column over thousands of matches (the request; its threshold 50 is
 * past the seed's largest fee, 49.9, so 20 here: about a fifth of the rows match, as in the issue).
 */
export const SORT_PATH = '/api/fee-type?filters[partPaymentAllowed][$eq]=true&filters[latePaymentFees][$gt]=20&sort[0]=-latePaymentFees&limit=10&populate[0]=institute';

/** A filter through a to-one relation: the fee types of the institutes in one city (about a seventh). */
export const RELATION_PATH = '/api/fee-type?filters[institute][city][$eq]=City%203&sort[0]=-dueDate&limit=10';

/** `$containsi` on a text column (the hidden fold column, needle folded): every `Fee 0000…` row matches. */
export const CONTAINSI_PATH = '/api/fee-type?filters[feeType][$containsi]=FEE%200000&sort[0]=-dueDate&limit=10';

/** Two levels of populate: fee types, their institute, and that institute's first three fee types. */
export const DEEP_PATH = '/api/fee-type?sort[0]=id&limit=10&populate[institute][populate][feeTypes][limit]=3';

/** A many-to-many populate: the roles with their permissions (join table), identity plugin models. */
export const M2M_PATH = '/api/role?sort[0]=id&limit=10&populate[0]=permissions';

/** Page 1,000 of ten (offset 9,990). */
export const DEEP_PAGE_PATH = '/api/fee-type?sort[0]=id&limit=10&page=1000';

/** A grouped list with each group's first records (populateGroup; default 10 per group, by id). */
export const GROUP_RECORDS_PATH = '/api/fee-type?groupBy[0]=latePaymentFeesType&aggregates[0]=latePaymentFees:sum&populateGroup=true';

/** A request header the floor reads (the service ignores it): write the create with its outbox row, in one transaction. */
export const OUTBOX_HEADER = 'x-bench-floor-outbox';
