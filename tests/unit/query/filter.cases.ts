/**
 * ONE case table for `filters`, shared by two layers (DESIGN "Where the filter parser and compiler live"):
 * - tests/unit/query/compile-filter.test.ts compiles each case without a connection and compares the
 *   WHERE clause (SQL + bindings) per dialect where `sql` is given;
 * - tests/db/query-agreement.test.ts runs every case on live SQLite and PostgreSQL over the seeded
 *   dataset (tests/fixtures/query-dataset.ts): both must return the oracle's ids.
 * `filters` is the qs object form a client writes (qs.stringify(…, {encodeValuesOnly: true})).
 */
import { COMPILED } from './filter.sql';

export interface FilterCase {
  readonly name: string;
  /** Root model (default book). */
  readonly model?: string;
  readonly filters: Record<string, unknown>;
}

export interface CompiledCase {
  readonly sqlite: { readonly sql: string; readonly bindings: readonly unknown[] };
  readonly postgres: { readonly sql: string; readonly bindings: readonly unknown[] };
}

const C = (name: string, filters: Record<string, unknown>, model?: string): FilterCase => ({ name, filters, ...(model ? { model } : {}) });

export const FILTER_CASES: readonly FilterCase[] = [
  // every operator, on text
  C('$eq text', { title: { $eq: 'Alpha' } }),
  C('shorthand filters[x]=v is $eq', { title: 'BETA' }),
  C('$eqi text folds case', { title: { $eqi: 'ALPHA' } }),
  C('$ne text includes NULL', { title: { $ne: 'Alpha' } }),
  C('$nei text includes NULL', { title: { $nei: 'zeta' } }),
  C('$lt text in byte order (B < a)', { title: { $lt: 'a' } }),
  C('$lte text', { title: { $lte: 'Gamma' } }),
  C('$gt text', { title: { $gt: 'Zeta' } }),
  C('$gte text', { title: { $gte: 'gamma' } }),
  C('$in text', { title: { $in: ['Alpha', 'zeta', 'nope'] } }),
  C('$notIn text includes NULL', { title: { $notIn: ['Alpha', 'zeta'] } }),
  C('$contains is case-sensitive', { title: { $contains: 'eta' } }),
  C('$notContains includes NULL', { title: { $notContains: 'a' } }),
  C('$containsi folds case', { title: { $containsi: 'ETA' } }),
  C('$notContainsi', { title: { $notContainsi: 'ALPHA' } }),
  C('$startsWith is case-sensitive', { title: { $startsWith: 'g' } }),
  C('$startsWithi', { title: { $startsWithi: 'G' } }),
  C('$endsWith', { title: { $endsWith: 'ta' } }),
  C('$endsWithi', { title: { $endsWithi: 'TA' } }),
  C('$between text', { title: { $between: ['B', 'Z'] } }),
  C('$null=true', { title: { $null: 'true' } }),
  C('$null=false is IS NOT NULL', { title: { $null: 'false' } }),
  C('$notNull=true', { published: { $notNull: 'true' } }),
  C('$notNull=false is IS NULL', { releasedAt: { $notNull: 'false' } }),
  // case folding beyond ASCII (issue 13 item 15): both databases compare the hidden fold column
  C('$eqi folds umlauts', { title: { $eqi: 'äRGER' } }),
  C('$containsi folds umlauts', { title: { $containsi: 'ÄRGER' } }),
  C('$eqi folds accents, NFC and NFD alike', { title: { $eqi: 'École' } }),
  C('$startsWithi with an accent', { title: { $startsWithi: 'ÉC' } }),
  C('$eqi: ß is ss', { title: { $eqi: 'strasse' } }),
  C('$containsi: SS finds ß', { title: { $containsi: 'SS' } }),
  C('$endsWithi: final sigma is sigma', { title: { $endsWithi: 'σ' } }),
  C('$containsi: Σ finds every sigma', { title: { $containsi: 'Σ' } }),
  C('$eqi Cyrillic', { title: { $eqi: 'ДоМ' } }),
  C('$nei Cyrillic includes NULL', { title: { $nei: 'дом' } }),
  C('$notContainsi umlaut includes NULL', { title: { $notContainsi: 'ä' } }),
  C('$containsi non-ASCII with % and _', { title: { $containsi: 'ä%_ü' } }),
  C('$containsi non-ASCII % matches itself only', { title: { $containsi: 'Ä%Ü' } }),
  C('$not of $startsWithi non-ASCII', { $not: { title: { $startsWithi: 'ä' } } }),
  C('manyToMany owner: $containsi through a relation', { tags: { label: { $containsi: 'ÖL' } } }),
  C('oneToMany: $endsWithi on a related record', { books: { title: { $endsWithi: 'ΟΣ' } } }, 'author'),
  C('oneToMany: $not $containsi on a related record', { $not: { books: { title: { $containsi: 'ÉCOLE' } } } }, 'author'),
  // LIKE escaping: % _ \ match themselves
  C('$contains % matches itself', { title: { $contains: '%' } }),
  C('$contains _ matches itself', { title: { $contains: '_' } }),
  C('$contains \\ matches itself', { title: { $contains: '\\' } }),
  C('$containsi with % and _', { title: { $containsi: 'B%C' } }),
  C('$startsWith with %', { title: { $startsWith: '100%' } }),
  C('$endsWithi with _', { title: { $endsWithi: '_CASE' } }),
  C('$contains empty string matches every non-NULL', { title: { $contains: '' } }),
  C('$startsWith empty string', { title: { $startsWith: '' } }),
  C('$eq empty string', { title: { $eq: '' } }),
  // numbers, booleans, dates
  C('$eq integer', { pages: { $eq: '250' } }),
  C('$lt integer (negative)', { pages: { $lt: '1' } }),
  C('$between integer', { pages: { $between: ['7', '100'] } }),
  C('$in integer', { pages: { $in: ['0', '7', '13'] } }),
  C('$ne integer includes NULL', { pages: { $ne: '250' } }),
  C('$gte decimal', { price: { $gte: '19.5' } }),
  C('$lt decimal', { price: { $lt: '4.25' } }),
  C('$eq decimal', { price: { $eq: '30.01' } }),
  C('$eq boolean true', { available: { $eq: 'true' } }),
  C('$ne boolean includes NULL', { available: { $ne: 'true' } }),
  C('$in boolean', { available: { $in: ['false'] } }),
  C('$eq date', { published: { $eq: '2020-01-01' } }),
  C('$between date', { published: { $between: ['2019-01-01', '2021-12-31'] } }),
  C('$gt datetime', { releasedAt: { $gt: '2020-01-01T08:00:00.000Z' } }),
  C('$lte datetime with an offset', { releasedAt: { $lte: '2020-01-01T09:00:00+01:00' } }),
  C('$eq datetime to the millisecond', { releasedAt: { $eq: '2018-08-08T08:08:08.500Z' } }),
  C('$lt createdAt (system field)', { createdAt: { $lt: '2999-01-01T00:00:00Z' } }),
  C('$in id', { id: { $in: ['1', '2', '3'] } }),
  C('$eq relation id field', { authorId: { $eq: '1' } }),
  C('$null relation id field', { authorId: { $null: 'true' } }),
  // logic
  C('several keys at one level are AND-ed', { title: { $startsWithi: 'a' }, pages: { $gt: '100' } }),
  C('two operators on one field are AND-ed', { pages: { $gt: '10', $lt: '300' } }),
  C('$or', { $or: [{ title: { $eq: 'Alpha' } }, { pages: { $lt: '10' } }] }),
  C('$and', { $and: [{ pages: { $gte: '10' } }, { available: { $eq: 'true' } }] }),
  C('keys beside $or are AND-ed with it', { available: { $eq: 'true' }, $or: [{ pages: { $lt: '50' } }, { price: { $gt: '50' } }] }),
  C('$not of a comparison includes NULL', { $not: { pages: { $gt: '100' } } }),
  C('$not of $and (De Morgan)', { $not: { $and: [{ pages: { $gt: '10' } }, { available: { $eq: 'true' } }] } }),
  C('$not of $or (De Morgan)', { $not: { $or: [{ title: { $contains: 'a' } }, { price: { $null: 'true' } }] } }),
  C('$not under a field', { title: { $not: { $startsWith: 'a' } } }),
  C('double $not', { $not: { $not: { title: { $eq: 'Alpha' } } } }),
  C('$not of a negated operator', { $not: { title: { $ne: 'Alpha' } } }),
  C('$not list form: one item', { $not: [{ available: { $eq: 'true' } }] }),
  C('$not list form: NOT (item0 AND item1)', { $not: [{ pages: { $gt: '10' } }, { available: { $eq: 'true' } }] }),
  C('$not list form around $or', { $not: [{ $or: [{ title: { $contains: 'a' } }, { price: { $null: 'true' } }] }] }),
  C('$not list form under a field', { title: { $not: [{ $startsWith: 'a' }, { $endsWith: 'a' }] } }),
  C('$or nested in $and nested in $not', { $not: { $and: [{ $or: [{ pages: { $null: 'true' } }, { pages: { $lt: '50' } }] }, { title: { $notNull: 'true' } }] } }),
  // relations: every kind
  C('manyToOne: field of the related record', { author: { name: { $eq: 'Ada' } } }),
  C('manyToOne: operator on the stored id', { author: { $eq: '1' } }),
  C('manyToOne: $ne on the stored id includes no author', { author: { $ne: '1' } }),
  C('manyToOne: $null', { author: { $null: 'true' } }),
  C('manyToOne: $not of a related field includes no author', { $not: { author: { name: { $startsWith: 'A' } } } }),
  C('manyToOne: related NULL field', { author: { age: { $null: 'true' } } }),
  C('manyToOne: two levels (author.profile, inverse oneToOne)', { author: { profile: { handle: { $containsi: 'BOB' } } } }),
  C('manyToMany owner: some tag matches', { tags: { label: { $eq: 'red' } } }),
  C('manyToMany owner: some tag has the id', { tags: { $in: ['1', '2'] } }),
  C('manyToMany owner: $null (no tag)', { tags: { $null: 'true' } }),
  C('manyToMany owner: $notNull (some tag)', { tags: { $notNull: 'true' } }),
  C('manyToMany owner: $not (no tag matches)', { $not: { tags: { label: { $eqi: 'RED' } } } }),
  C('manyToMany: some tag matches both conditions (same tag)', { tags: { label: { $startsWith: 'R' }, id: { $gt: '0' } } }),
  C('manyToMany inverse: tag whose books include an archived-only title', { books: { title: { $eq: 'Gamma' } } }, 'tag'),
  C('manyToMany inverse: tags with some active book', { books: { $notNull: 'true' } }, 'tag'),
  C('oneToMany: authors with some active book over 200 pages', { books: { pages: { $gt: '200' } } }, 'author'),
  C('oneToMany: authors with no active book', { books: { $null: 'true' } }, 'author'),
  C('oneToMany: archived books never match', { books: { title: { $eq: 'Zeta' } } }, 'author'),
  C('oneToMany: $not some book', { $not: { books: { available: { $eq: 'true' } } } }, 'author'),
  C('oneToOne inverse: author with a profile handle', { profile: { handle: { $startsWith: '@' } } }, 'author'),
  C('oneToOne inverse: $null', { profile: { $null: 'true' } }, 'author'),
  C('oneToOne owner: profile of an author', { author: { name: { $eqi: 'ADA' } } }, 'profile'),
  C('oneToOne owner: $null', { author: { $null: 'true' } }, 'profile'),
  C('manyToOne into a soft-delete model: the stored id matches an archived book', { favorite: { $notNull: 'true' } }, 'profile'),
  C('manyToOne into a soft-delete model: fields ask for an active book', { favorite: { title: { $notNull: 'true' } } }, 'profile'),
  C('manyToOne into a soft-delete model: $not of a field includes archived and none', { $not: { favorite: { pages: { $gt: '0' } } } }, 'profile'),
  C('three hops: tag → books → author → profile', { books: { author: { profile: { handle: { $eq: '@ada' } } } } }, 'tag'),
  C('relation inside $or', { $or: [{ tags: { label: { $eq: '50%' } } }, { author: { name: { $eq: 'Eve' } } }] }),
  // every attribute type (author)
  C('text $containsi', { bio: { $containsi: 'poems' } }, 'author'),
  C('email $endsWithi', { email: { $endsWithi: 'EXAMPLE.COM' } }, 'author'),
  C('uid $eq', { slug: { $eq: 'dan' } }, 'author'),
  C('biginteger $gt', { followers: { $gt: '4294967296' } }, 'author'),
  C('float $between', { score: { $between: ['-1', '0.5'] } }, 'author'),
  C('float $lt', { score: { $lt: '0.001' } }, 'author'),
  C('decimal $eq', { rating: { $eq: '4.5' } }, 'author'),
  C('boolean $eq false', { active: { $eq: 'false' } }, 'author'),
  C('date $lt', { born: { $lt: '1900-01-01' } }, 'author'),
  C('datetime $gte', { lastSeen: { $gte: '2026-01-01T09:59:59Z' } }, 'author'),
  C('time $eq', { wakeUp: { $eq: '06:30:00' } }, 'author'),
  C('time $gt', { wakeUp: { $gt: '12:00:00' } }, 'author'),
  C('enumeration $in', { genre: { $in: ['fiction', 'poetry'] } }, 'author'),
  C('enumeration $notIn includes NULL', { genre: { $notIn: ['fiction'] } }, 'author'),
  C('json $null', { meta: { $null: 'true' } }, 'author'),
  C('json $notNull', { meta: { $notNull: 'true' } }, 'author'),
  C('name with % matches itself', { name: { $contains: '%' } }, 'author'),
];

/** The cases whose WHERE clause is pinned per dialect (filter.sql.ts, by case name). */
export const COMPILED_CASES: ReadonlyMap<string, CompiledCase> = new Map(Object.entries(COMPILED as Record<string, CompiledCase>));
