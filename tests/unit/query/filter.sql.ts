/**
 * The WHERE clause each case of filter.cases.ts compiles to (toSQL().toNative()), per dialect, after
 * `select t0.id from <table> as t0 where`. Generated from the compiler, then reviewed by hand: a change
 * here is a change of the SQL the service sends. Regenerate only together with a reviewed compiler change.
 */
export const COMPILED = {
  "$eq text": {
    sqlite: { sql: "`t0`.`title` = ?", bindings: ["Alpha"] },
    postgres: { sql: "\"t0\".\"title\" = $1", bindings: ["Alpha"] },
  },
  "shorthand filters[x]=v is $eq": {
    sqlite: { sql: "`t0`.`title` = ?", bindings: ["BETA"] },
    postgres: { sql: "\"t0\".\"title\" = $1", bindings: ["BETA"] },
  },
  "$eqi text folds case": {
    sqlite: { sql: "`t0`.`title__fold` = ?", bindings: ["alpha"] },
    postgres: { sql: "\"t0\".\"title__fold\" = $1", bindings: ["alpha"] },
  },
  "$ne text includes NULL": {
    sqlite: { sql: "(NOT (`t0`.`title` = ?) OR `t0`.`title` IS NULL)", bindings: ["Alpha"] },
    postgres: { sql: "(NOT (\"t0\".\"title\" = $1) OR \"t0\".\"title\" IS NULL)", bindings: ["Alpha"] },
  },
  "$nei text includes NULL": {
    sqlite: { sql: "(NOT (`t0`.`title__fold` = ?) OR `t0`.`title__fold` IS NULL)", bindings: ["zeta"] },
    postgres: { sql: "(NOT (\"t0\".\"title__fold\" = $1) OR \"t0\".\"title__fold\" IS NULL)", bindings: ["zeta"] },
  },
  "$lt text in byte order (B < a)": {
    sqlite: { sql: "`t0`.`title` < ?", bindings: ["a"] },
    postgres: { sql: "\"t0\".\"title\" COLLATE \"C\" < $1", bindings: ["a"] },
  },
  "$lte text": {
    sqlite: { sql: "`t0`.`title` <= ?", bindings: ["Gamma"] },
    postgres: { sql: "\"t0\".\"title\" COLLATE \"C\" <= $1", bindings: ["Gamma"] },
  },
  "$gt text": {
    sqlite: { sql: "`t0`.`title` > ?", bindings: ["Zeta"] },
    postgres: { sql: "\"t0\".\"title\" COLLATE \"C\" > $1", bindings: ["Zeta"] },
  },
  "$gte text": {
    sqlite: { sql: "`t0`.`title` >= ?", bindings: ["gamma"] },
    postgres: { sql: "\"t0\".\"title\" COLLATE \"C\" >= $1", bindings: ["gamma"] },
  },
  "$in text": {
    sqlite: { sql: "`t0`.`title` IN (?, ?, ?)", bindings: ["Alpha","zeta","nope"] },
    postgres: { sql: "\"t0\".\"title\" IN ($1, $2, $3)", bindings: ["Alpha","zeta","nope"] },
  },
  "$notIn text includes NULL": {
    sqlite: { sql: "(NOT (`t0`.`title` IN (?, ?)) OR `t0`.`title` IS NULL)", bindings: ["Alpha","zeta"] },
    postgres: { sql: "(NOT (\"t0\".\"title\" IN ($1, $2)) OR \"t0\".\"title\" IS NULL)", bindings: ["Alpha","zeta"] },
  },
  "$contains is case-sensitive": {
    sqlite: { sql: "instr(`t0`.`title`, ?) > 0", bindings: ["eta"] },
    postgres: { sql: "\"t0\".\"title\" LIKE $1 ESCAPE '\\'", bindings: ["%eta%"] },
  },
  "$notContains includes NULL": {
    sqlite: { sql: "(NOT (instr(`t0`.`title`, ?) > 0) OR `t0`.`title` IS NULL)", bindings: ["a"] },
    postgres: { sql: "(NOT (\"t0\".\"title\" LIKE $1 ESCAPE '\\') OR \"t0\".\"title\" IS NULL)", bindings: ["%a%"] },
  },
  "$containsi folds case": {
    sqlite: { sql: "instr(`t0`.`title__fold`, ?) > 0", bindings: ["eta"] },
    postgres: { sql: "\"t0\".\"title__fold\" LIKE $1 ESCAPE '\\'", bindings: ["%eta%"] },
  },
  "$notContainsi": {
    sqlite: { sql: "(NOT (instr(`t0`.`title__fold`, ?) > 0) OR `t0`.`title__fold` IS NULL)", bindings: ["alpha"] },
    postgres: { sql: "(NOT (\"t0\".\"title__fold\" LIKE $1 ESCAPE '\\') OR \"t0\".\"title__fold\" IS NULL)", bindings: ["%alpha%"] },
  },
  "$startsWith is case-sensitive": {
    sqlite: { sql: "substr(`t0`.`title`, 1, length(?)) = ?", bindings: ["g","g"] },
    postgres: { sql: "\"t0\".\"title\" LIKE $1 ESCAPE '\\'", bindings: ["g%"] },
  },
  "$startsWithi": {
    sqlite: { sql: "substr(`t0`.`title__fold`, 1, length(?)) = ?", bindings: ["g","g"] },
    postgres: { sql: "\"t0\".\"title__fold\" LIKE $1 ESCAPE '\\'", bindings: ["g%"] },
  },
  "$endsWith": {
    sqlite: { sql: "substr(`t0`.`title`, -length(?)) = ?", bindings: ["ta","ta"] },
    postgres: { sql: "\"t0\".\"title\" LIKE $1 ESCAPE '\\'", bindings: ["%ta"] },
  },
  "$endsWithi": {
    sqlite: { sql: "substr(`t0`.`title__fold`, -length(?)) = ?", bindings: ["ta","ta"] },
    postgres: { sql: "\"t0\".\"title__fold\" LIKE $1 ESCAPE '\\'", bindings: ["%ta"] },
  },
  "$between text": {
    sqlite: { sql: "`t0`.`title` BETWEEN ? AND ?", bindings: ["B","Z"] },
    postgres: { sql: "\"t0\".\"title\" COLLATE \"C\" BETWEEN $1 AND $2", bindings: ["B","Z"] },
  },
  "$null=true": {
    sqlite: { sql: "`t0`.`title` IS NULL", bindings: [] },
    postgres: { sql: "\"t0\".\"title\" IS NULL", bindings: [] },
  },
  "$null=false is IS NOT NULL": {
    sqlite: { sql: "`t0`.`title` IS NOT NULL", bindings: [] },
    postgres: { sql: "\"t0\".\"title\" IS NOT NULL", bindings: [] },
  },
  "$notNull=true": {
    sqlite: { sql: "`t0`.`published` IS NOT NULL", bindings: [] },
    postgres: { sql: "\"t0\".\"published\" IS NOT NULL", bindings: [] },
  },
  "$notNull=false is IS NULL": {
    sqlite: { sql: "`t0`.`released_at` IS NULL", bindings: [] },
    postgres: { sql: "\"t0\".\"released_at\" IS NULL", bindings: [] },
  },
  "$eqi folds umlauts": {
    sqlite: { sql: "`t0`.`title__fold` = ?", bindings: ["ärger"] },
    postgres: { sql: "\"t0\".\"title__fold\" = $1", bindings: ["ärger"] },
  },
  "$containsi folds umlauts": {
    sqlite: { sql: "instr(`t0`.`title__fold`, ?) > 0", bindings: ["ärger"] },
    postgres: { sql: "\"t0\".\"title__fold\" LIKE $1 ESCAPE '\\'", bindings: ["%ärger%"] },
  },
  "$eqi folds accents, NFC and NFD alike": {
    sqlite: { sql: "`t0`.`title__fold` = ?", bindings: ["école"] },
    postgres: { sql: "\"t0\".\"title__fold\" = $1", bindings: ["école"] },
  },
  "$startsWithi with an accent": {
    sqlite: { sql: "substr(`t0`.`title__fold`, 1, length(?)) = ?", bindings: ["éc","éc"] },
    postgres: { sql: "\"t0\".\"title__fold\" LIKE $1 ESCAPE '\\'", bindings: ["éc%"] },
  },
  "$eqi: ß is ss": {
    sqlite: { sql: "`t0`.`title__fold` = ?", bindings: ["strasse"] },
    postgres: { sql: "\"t0\".\"title__fold\" = $1", bindings: ["strasse"] },
  },
  "$containsi: SS finds ß": {
    sqlite: { sql: "instr(`t0`.`title__fold`, ?) > 0", bindings: ["ss"] },
    postgres: { sql: "\"t0\".\"title__fold\" LIKE $1 ESCAPE '\\'", bindings: ["%ss%"] },
  },
  "$endsWithi: final sigma is sigma": {
    sqlite: { sql: "substr(`t0`.`title__fold`, -length(?)) = ?", bindings: ["σ","σ"] },
    postgres: { sql: "\"t0\".\"title__fold\" LIKE $1 ESCAPE '\\'", bindings: ["%σ"] },
  },
  "$containsi: Σ finds every sigma": {
    sqlite: { sql: "instr(`t0`.`title__fold`, ?) > 0", bindings: ["σ"] },
    postgres: { sql: "\"t0\".\"title__fold\" LIKE $1 ESCAPE '\\'", bindings: ["%σ%"] },
  },
  "$eqi Cyrillic": {
    sqlite: { sql: "`t0`.`title__fold` = ?", bindings: ["дом"] },
    postgres: { sql: "\"t0\".\"title__fold\" = $1", bindings: ["дом"] },
  },
  "$nei Cyrillic includes NULL": {
    sqlite: { sql: "(NOT (`t0`.`title__fold` = ?) OR `t0`.`title__fold` IS NULL)", bindings: ["дом"] },
    postgres: { sql: "(NOT (\"t0\".\"title__fold\" = $1) OR \"t0\".\"title__fold\" IS NULL)", bindings: ["дом"] },
  },
  "$notContainsi umlaut includes NULL": {
    sqlite: { sql: "(NOT (instr(`t0`.`title__fold`, ?) > 0) OR `t0`.`title__fold` IS NULL)", bindings: ["ä"] },
    postgres: { sql: "(NOT (\"t0\".\"title__fold\" LIKE $1 ESCAPE '\\') OR \"t0\".\"title__fold\" IS NULL)", bindings: ["%ä%"] },
  },
  "$containsi non-ASCII with % and _": {
    sqlite: { sql: "instr(`t0`.`title__fold`, ?) > 0", bindings: ["ä%_ü"] },
    postgres: { sql: "\"t0\".\"title__fold\" LIKE $1 ESCAPE '\\'", bindings: ["%ä\\%\\_ü%"] },
  },
  "$containsi non-ASCII % matches itself only": {
    sqlite: { sql: "instr(`t0`.`title__fold`, ?) > 0", bindings: ["ä%ü"] },
    postgres: { sql: "\"t0\".\"title__fold\" LIKE $1 ESCAPE '\\'", bindings: ["%ä\\%ü%"] },
  },
  "$not of $startsWithi non-ASCII": {
    sqlite: { sql: "(NOT (substr(`t0`.`title__fold`, 1, length(?)) = ?) OR `t0`.`title__fold` IS NULL)", bindings: ["ä","ä"] },
    postgres: { sql: "(NOT (\"t0\".\"title__fold\" LIKE $1 ESCAPE '\\') OR \"t0\".\"title__fold\" IS NULL)", bindings: ["ä%"] },
  },
  "manyToMany owner: $containsi through a relation": {
    sqlite: { sql: "exists (select 1 from `book_tags_links` as `j2` inner join `tag` as `r1` on `r1`.`id` = `j2`.`tag_id` where `j2`.`book_id` = `t0`.`id` and (instr(`r1`.`label__fold`, ?) > 0))", bindings: ["öl"] },
    postgres: { sql: "exists (select 1 from \"book_tags_links\" as \"j2\" inner join \"tag\" as \"r1\" on \"r1\".\"id\" = \"j2\".\"tag_id\" where \"j2\".\"book_id\" = \"t0\".\"id\" and (\"r1\".\"label__fold\" LIKE $1 ESCAPE '\\'))", bindings: ["%öl%"] },
  },
  "oneToMany: $endsWithi on a related record": {
    sqlite: { sql: "exists (select 1 from `book` as `r1` where `r1`.`author_id` = `t0`.`id` and `r1`.`deleted_tracker` = ? and (substr(`r1`.`title__fold`, -length(?)) = ?))", bindings: ["not-deleted","οσ","οσ"] },
    postgres: { sql: "exists (select 1 from \"book\" as \"r1\" where \"r1\".\"author_id\" = \"t0\".\"id\" and \"r1\".\"deleted_tracker\" = $1 and (\"r1\".\"title__fold\" LIKE $2 ESCAPE '\\'))", bindings: ["not-deleted","%οσ"] },
  },
  "$contains % matches itself": {
    sqlite: { sql: "instr(`t0`.`title`, ?) > 0", bindings: ["%"] },
    postgres: { sql: "\"t0\".\"title\" LIKE $1 ESCAPE '\\'", bindings: ["%\\%%"] },
  },
  "$contains _ matches itself": {
    sqlite: { sql: "instr(`t0`.`title`, ?) > 0", bindings: ["_"] },
    postgres: { sql: "\"t0\".\"title\" LIKE $1 ESCAPE '\\'", bindings: ["%\\_%"] },
  },
  "$contains \\ matches itself": {
    sqlite: { sql: "instr(`t0`.`title`, ?) > 0", bindings: ["\\"] },
    postgres: { sql: "\"t0\".\"title\" LIKE $1 ESCAPE '\\'", bindings: ["%\\\\%"] },
  },
  "$containsi with % and _": {
    sqlite: { sql: "instr(`t0`.`title__fold`, ?) > 0", bindings: ["b%c"] },
    postgres: { sql: "\"t0\".\"title__fold\" LIKE $1 ESCAPE '\\'", bindings: ["%b\\%c%"] },
  },
  "$startsWith with %": {
    sqlite: { sql: "substr(`t0`.`title`, 1, length(?)) = ?", bindings: ["100%","100%"] },
    postgres: { sql: "\"t0\".\"title\" LIKE $1 ESCAPE '\\'", bindings: ["100\\%%"] },
  },
  "$endsWithi with _": {
    sqlite: { sql: "substr(`t0`.`title__fold`, -length(?)) = ?", bindings: ["_case","_case"] },
    postgres: { sql: "\"t0\".\"title__fold\" LIKE $1 ESCAPE '\\'", bindings: ["%\\_case"] },
  },
  "$contains empty string matches every non-NULL": {
    sqlite: { sql: "instr(`t0`.`title`, ?) > 0", bindings: [""] },
    postgres: { sql: "\"t0\".\"title\" LIKE $1 ESCAPE '\\'", bindings: ["%%"] },
  },
  "$startsWith empty string": {
    sqlite: { sql: "`t0`.`title` IS NOT NULL", bindings: [] },
    postgres: { sql: "\"t0\".\"title\" LIKE $1 ESCAPE '\\'", bindings: ["%"] },
  },
  "$eq empty string": {
    sqlite: { sql: "`t0`.`title` = ?", bindings: [""] },
    postgres: { sql: "\"t0\".\"title\" = $1", bindings: [""] },
  },
  "$eq integer": {
    sqlite: { sql: "`t0`.`pages` = ?", bindings: [250] },
    postgres: { sql: "\"t0\".\"pages\" = $1", bindings: [250] },
  },
  "$lt integer (negative)": {
    sqlite: { sql: "`t0`.`pages` < ?", bindings: [1] },
    postgres: { sql: "\"t0\".\"pages\" < $1", bindings: [1] },
  },
  "$between integer": {
    sqlite: { sql: "`t0`.`pages` BETWEEN ? AND ?", bindings: [7,100] },
    postgres: { sql: "\"t0\".\"pages\" BETWEEN $1 AND $2", bindings: [7,100] },
  },
  "$in integer": {
    sqlite: { sql: "`t0`.`pages` IN (?, ?, ?)", bindings: [0,7,13] },
    postgres: { sql: "\"t0\".\"pages\" IN ($1, $2, $3)", bindings: [0,7,13] },
  },
  "$ne integer includes NULL": {
    sqlite: { sql: "(NOT (`t0`.`pages` = ?) OR `t0`.`pages` IS NULL)", bindings: [250] },
    postgres: { sql: "(NOT (\"t0\".\"pages\" = $1) OR \"t0\".\"pages\" IS NULL)", bindings: [250] },
  },
  "$gte decimal": {
    sqlite: { sql: "`t0`.`price` >= ?", bindings: [19.5] },
    postgres: { sql: "\"t0\".\"price\" >= $1", bindings: [19.5] },
  },
  "$lt decimal": {
    sqlite: { sql: "`t0`.`price` < ?", bindings: [4.25] },
    postgres: { sql: "\"t0\".\"price\" < $1", bindings: [4.25] },
  },
  "$eq decimal": {
    sqlite: { sql: "`t0`.`price` = ?", bindings: [30.01] },
    postgres: { sql: "\"t0\".\"price\" = $1", bindings: [30.01] },
  },
  "$eq boolean true": {
    sqlite: { sql: "`t0`.`available` = ?", bindings: [true] },
    postgres: { sql: "\"t0\".\"available\" = $1", bindings: [true] },
  },
  "$ne boolean includes NULL": {
    sqlite: { sql: "(NOT (`t0`.`available` = ?) OR `t0`.`available` IS NULL)", bindings: [true] },
    postgres: { sql: "(NOT (\"t0\".\"available\" = $1) OR \"t0\".\"available\" IS NULL)", bindings: [true] },
  },
  "$in boolean": {
    sqlite: { sql: "`t0`.`available` IN (?)", bindings: [false] },
    postgres: { sql: "\"t0\".\"available\" IN ($1)", bindings: [false] },
  },
  "$eq date": {
    sqlite: { sql: "`t0`.`published` = ?", bindings: ["2020-01-01"] },
    postgres: { sql: "\"t0\".\"published\" = $1", bindings: ["2020-01-01"] },
  },
  "$between date": {
    sqlite: { sql: "`t0`.`published` BETWEEN ? AND ?", bindings: ["2019-01-01","2021-12-31"] },
    postgres: { sql: "\"t0\".\"published\" BETWEEN $1 AND $2", bindings: ["2019-01-01","2021-12-31"] },
  },
  "$gt datetime": {
    sqlite: { sql: "`t0`.`released_at` > ?", bindings: ["2020-01-01T08:00:00.000Z"] },
    postgres: { sql: "\"t0\".\"released_at\" > $1", bindings: ["2020-01-01T08:00:00.000Z"] },
  },
  "$lte datetime with an offset": {
    sqlite: { sql: "`t0`.`released_at` <= ?", bindings: ["2020-01-01T08:00:00.000Z"] },
    postgres: { sql: "\"t0\".\"released_at\" <= $1", bindings: ["2020-01-01T08:00:00.000Z"] },
  },
  "$eq datetime to the millisecond": {
    sqlite: { sql: "`t0`.`released_at` = ?", bindings: ["2018-08-08T08:08:08.500Z"] },
    postgres: { sql: "\"t0\".\"released_at\" = $1", bindings: ["2018-08-08T08:08:08.500Z"] },
  },
  "$lt createdAt (system field)": {
    sqlite: { sql: "`t0`.`created_at` < ?", bindings: ["2999-01-01T00:00:00.000Z"] },
    postgres: { sql: "\"t0\".\"created_at\" < $1", bindings: ["2999-01-01T00:00:00.000Z"] },
  },
  "$in id": {
    sqlite: { sql: "`t0`.`id` IN (?, ?, ?)", bindings: [1,2,3] },
    postgres: { sql: "\"t0\".\"id\" IN ($1, $2, $3)", bindings: [1,2,3] },
  },
  "$eq relation id field": {
    sqlite: { sql: "`t0`.`author_id` = ?", bindings: [1] },
    postgres: { sql: "\"t0\".\"author_id\" = $1", bindings: [1] },
  },
  "$null relation id field": {
    sqlite: { sql: "`t0`.`author_id` IS NULL", bindings: [] },
    postgres: { sql: "\"t0\".\"author_id\" IS NULL", bindings: [] },
  },
  "several keys at one level are AND-ed": {
    sqlite: { sql: "(substr(`t0`.`title__fold`, 1, length(?)) = ? and `t0`.`pages` > ?)", bindings: ["a","a",100] },
    postgres: { sql: "(\"t0\".\"title__fold\" LIKE $1 ESCAPE '\\' and \"t0\".\"pages\" > $2)", bindings: ["a%",100] },
  },
  "two operators on one field are AND-ed": {
    sqlite: { sql: "(`t0`.`pages` > ? and `t0`.`pages` < ?)", bindings: [10,300] },
    postgres: { sql: "(\"t0\".\"pages\" > $1 and \"t0\".\"pages\" < $2)", bindings: [10,300] },
  },
  "$or": {
    sqlite: { sql: "(`t0`.`title` = ? or `t0`.`pages` < ?)", bindings: ["Alpha",10] },
    postgres: { sql: "(\"t0\".\"title\" = $1 or \"t0\".\"pages\" < $2)", bindings: ["Alpha",10] },
  },
  "$and": {
    sqlite: { sql: "(`t0`.`pages` >= ? and `t0`.`available` = ?)", bindings: [10,true] },
    postgres: { sql: "(\"t0\".\"pages\" >= $1 and \"t0\".\"available\" = $2)", bindings: [10,true] },
  },
  "keys beside $or are AND-ed with it": {
    sqlite: { sql: "(`t0`.`available` = ? and (`t0`.`pages` < ? or `t0`.`price` > ?))", bindings: [true,50,50] },
    postgres: { sql: "(\"t0\".\"available\" = $1 and (\"t0\".\"pages\" < $2 or \"t0\".\"price\" > $3))", bindings: [true,50,50] },
  },
  "$not of a comparison includes NULL": {
    sqlite: { sql: "(NOT (`t0`.`pages` > ?) OR `t0`.`pages` IS NULL)", bindings: [100] },
    postgres: { sql: "(NOT (\"t0\".\"pages\" > $1) OR \"t0\".\"pages\" IS NULL)", bindings: [100] },
  },
  "$not of $and (De Morgan)": {
    sqlite: { sql: "((NOT (`t0`.`pages` > ?) OR `t0`.`pages` IS NULL) or (NOT (`t0`.`available` = ?) OR `t0`.`available` IS NULL))", bindings: [10,true] },
    postgres: { sql: "((NOT (\"t0\".\"pages\" > $1) OR \"t0\".\"pages\" IS NULL) or (NOT (\"t0\".\"available\" = $2) OR \"t0\".\"available\" IS NULL))", bindings: [10,true] },
  },
  "$not of $or (De Morgan)": {
    sqlite: { sql: "((NOT (instr(`t0`.`title`, ?) > 0) OR `t0`.`title` IS NULL) and `t0`.`price` IS NOT NULL)", bindings: ["a"] },
    postgres: { sql: "((NOT (\"t0\".\"title\" LIKE $1 ESCAPE '\\') OR \"t0\".\"title\" IS NULL) and \"t0\".\"price\" IS NOT NULL)", bindings: ["%a%"] },
  },
  "$not under a field": {
    sqlite: { sql: "(NOT (substr(`t0`.`title`, 1, length(?)) = ?) OR `t0`.`title` IS NULL)", bindings: ["a","a"] },
    postgres: { sql: "(NOT (\"t0\".\"title\" LIKE $1 ESCAPE '\\') OR \"t0\".\"title\" IS NULL)", bindings: ["a%"] },
  },
  "double $not": {
    sqlite: { sql: "`t0`.`title` = ?", bindings: ["Alpha"] },
    postgres: { sql: "\"t0\".\"title\" = $1", bindings: ["Alpha"] },
  },
  "$not of a negated operator": {
    sqlite: { sql: "`t0`.`title` = ?", bindings: ["Alpha"] },
    postgres: { sql: "\"t0\".\"title\" = $1", bindings: ["Alpha"] },
  },
  "$not list form: one item": {
    sqlite: { sql: "(NOT (`t0`.`available` = ?) OR `t0`.`available` IS NULL)", bindings: [true] },
    postgres: { sql: "(NOT (\"t0\".\"available\" = $1) OR \"t0\".\"available\" IS NULL)", bindings: [true] },
  },
  "$not list form: NOT (item0 AND item1)": {
    sqlite: { sql: "((NOT (`t0`.`pages` > ?) OR `t0`.`pages` IS NULL) or (NOT (`t0`.`available` = ?) OR `t0`.`available` IS NULL))", bindings: [10,true] },
    postgres: { sql: "((NOT (\"t0\".\"pages\" > $1) OR \"t0\".\"pages\" IS NULL) or (NOT (\"t0\".\"available\" = $2) OR \"t0\".\"available\" IS NULL))", bindings: [10,true] },
  },
  "$not list form around $or": {
    sqlite: { sql: "((NOT (instr(`t0`.`title`, ?) > 0) OR `t0`.`title` IS NULL) and `t0`.`price` IS NOT NULL)", bindings: ["a"] },
    postgres: { sql: "((NOT (\"t0\".\"title\" LIKE $1 ESCAPE '\\') OR \"t0\".\"title\" IS NULL) and \"t0\".\"price\" IS NOT NULL)", bindings: ["%a%"] },
  },
  "$not list form under a field": {
    sqlite: { sql: "((NOT (substr(`t0`.`title`, 1, length(?)) = ?) OR `t0`.`title` IS NULL) or (NOT (substr(`t0`.`title`, -length(?)) = ?) OR `t0`.`title` IS NULL))", bindings: ["a","a","a","a"] },
    postgres: { sql: "((NOT (\"t0\".\"title\" LIKE $1 ESCAPE '\\') OR \"t0\".\"title\" IS NULL) or (NOT (\"t0\".\"title\" LIKE $2 ESCAPE '\\') OR \"t0\".\"title\" IS NULL))", bindings: ["a%","%a"] },
  },
  "$or nested in $and nested in $not": {
    sqlite: { sql: "((`t0`.`pages` IS NOT NULL and (NOT (`t0`.`pages` < ?) OR `t0`.`pages` IS NULL)) or `t0`.`title` IS NULL)", bindings: [50] },
    postgres: { sql: "((\"t0\".\"pages\" IS NOT NULL and (NOT (\"t0\".\"pages\" < $1) OR \"t0\".\"pages\" IS NULL)) or \"t0\".\"title\" IS NULL)", bindings: [50] },
  },
  "manyToOne: field of the related record": {
    sqlite: { sql: "`t0`.`author_id` in (select `r1`.`id` from `author` as `r1` where (`r1`.`name` = ?))", bindings: ["Ada"] },
    postgres: { sql: "\"t0\".\"author_id\" in (select \"r1\".\"id\" from \"author\" as \"r1\" where (\"r1\".\"name\" = $1))", bindings: ["Ada"] },
  },
  "manyToOne: operator on the stored id": {
    sqlite: { sql: "`t0`.`author_id` = ?", bindings: [1] },
    postgres: { sql: "\"t0\".\"author_id\" = $1", bindings: [1] },
  },
  "manyToOne: $ne on the stored id includes no author": {
    sqlite: { sql: "(NOT (`t0`.`author_id` = ?) OR `t0`.`author_id` IS NULL)", bindings: [1] },
    postgres: { sql: "(NOT (\"t0\".\"author_id\" = $1) OR \"t0\".\"author_id\" IS NULL)", bindings: [1] },
  },
  "manyToOne: $null": {
    sqlite: { sql: "`t0`.`author_id` IS NULL", bindings: [] },
    postgres: { sql: "\"t0\".\"author_id\" IS NULL", bindings: [] },
  },
  "manyToOne: $not of a related field includes no author": {
    sqlite: { sql: "not exists (select 1 from `author` as `r1` where `r1`.`id` = `t0`.`author_id` and (substr(`r1`.`name`, 1, length(?)) = ?))", bindings: ["A","A"] },
    postgres: { sql: "not exists (select 1 from \"author\" as \"r1\" where \"r1\".\"id\" = \"t0\".\"author_id\" and (\"r1\".\"name\" LIKE $1 ESCAPE '\\'))", bindings: ["A%"] },
  },
  "manyToOne: related NULL field": {
    sqlite: { sql: "`t0`.`author_id` in (select `r1`.`id` from `author` as `r1` where (`r1`.`age` IS NULL))", bindings: [] },
    postgres: { sql: "\"t0\".\"author_id\" in (select \"r1\".\"id\" from \"author\" as \"r1\" where (\"r1\".\"age\" IS NULL))", bindings: [] },
  },
  "manyToOne: two levels (author.profile, inverse oneToOne)": {
    sqlite: { sql: "`t0`.`author_id` in (select `r1`.`id` from `author` as `r1` where (exists (select 1 from `profile` as `r2` where `r2`.`author_id` = `r1`.`id` and (instr(`r2`.`handle__fold`, ?) > 0))))", bindings: ["bob"] },
    postgres: { sql: "\"t0\".\"author_id\" in (select \"r1\".\"id\" from \"author\" as \"r1\" where (exists (select 1 from \"profile\" as \"r2\" where \"r2\".\"author_id\" = \"r1\".\"id\" and (\"r2\".\"handle__fold\" LIKE $1 ESCAPE '\\'))))", bindings: ["%bob%"] },
  },
  "manyToMany owner: some tag matches": {
    sqlite: { sql: "exists (select 1 from `book_tags_links` as `j2` inner join `tag` as `r1` on `r1`.`id` = `j2`.`tag_id` where `j2`.`book_id` = `t0`.`id` and (`r1`.`label` = ?))", bindings: ["red"] },
    postgres: { sql: "exists (select 1 from \"book_tags_links\" as \"j2\" inner join \"tag\" as \"r1\" on \"r1\".\"id\" = \"j2\".\"tag_id\" where \"j2\".\"book_id\" = \"t0\".\"id\" and (\"r1\".\"label\" = $1))", bindings: ["red"] },
  },
  "manyToMany owner: some tag has the id": {
    sqlite: { sql: "exists (select 1 from `book_tags_links` as `j2` inner join `tag` as `r1` on `r1`.`id` = `j2`.`tag_id` where `j2`.`book_id` = `t0`.`id` and (`r1`.`id` IN (?, ?)))", bindings: [1,2] },
    postgres: { sql: "exists (select 1 from \"book_tags_links\" as \"j2\" inner join \"tag\" as \"r1\" on \"r1\".\"id\" = \"j2\".\"tag_id\" where \"j2\".\"book_id\" = \"t0\".\"id\" and (\"r1\".\"id\" IN ($1, $2)))", bindings: [1,2] },
  },
  "manyToMany owner: $null (no tag)": {
    sqlite: { sql: "not exists (select 1 from `book_tags_links` as `j2` inner join `tag` as `r1` on `r1`.`id` = `j2`.`tag_id` where `j2`.`book_id` = `t0`.`id`)", bindings: [] },
    postgres: { sql: "not exists (select 1 from \"book_tags_links\" as \"j2\" inner join \"tag\" as \"r1\" on \"r1\".\"id\" = \"j2\".\"tag_id\" where \"j2\".\"book_id\" = \"t0\".\"id\")", bindings: [] },
  },
  "manyToMany owner: $notNull (some tag)": {
    sqlite: { sql: "exists (select 1 from `book_tags_links` as `j2` inner join `tag` as `r1` on `r1`.`id` = `j2`.`tag_id` where `j2`.`book_id` = `t0`.`id`)", bindings: [] },
    postgres: { sql: "exists (select 1 from \"book_tags_links\" as \"j2\" inner join \"tag\" as \"r1\" on \"r1\".\"id\" = \"j2\".\"tag_id\" where \"j2\".\"book_id\" = \"t0\".\"id\")", bindings: [] },
  },
  "manyToMany owner: $not (no tag matches)": {
    sqlite: { sql: "not exists (select 1 from `book_tags_links` as `j2` inner join `tag` as `r1` on `r1`.`id` = `j2`.`tag_id` where `j2`.`book_id` = `t0`.`id` and (`r1`.`label__fold` = ?))", bindings: ["red"] },
    postgres: { sql: "not exists (select 1 from \"book_tags_links\" as \"j2\" inner join \"tag\" as \"r1\" on \"r1\".\"id\" = \"j2\".\"tag_id\" where \"j2\".\"book_id\" = \"t0\".\"id\" and (\"r1\".\"label__fold\" = $1))", bindings: ["red"] },
  },
  "manyToMany: some tag matches both conditions (same tag)": {
    sqlite: { sql: "exists (select 1 from `book_tags_links` as `j2` inner join `tag` as `r1` on `r1`.`id` = `j2`.`tag_id` where `j2`.`book_id` = `t0`.`id` and ((substr(`r1`.`label`, 1, length(?)) = ? and `r1`.`id` > ?)))", bindings: ["R","R",0] },
    postgres: { sql: "exists (select 1 from \"book_tags_links\" as \"j2\" inner join \"tag\" as \"r1\" on \"r1\".\"id\" = \"j2\".\"tag_id\" where \"j2\".\"book_id\" = \"t0\".\"id\" and ((\"r1\".\"label\" LIKE $1 ESCAPE '\\' and \"r1\".\"id\" > $2)))", bindings: ["R%",0] },
  },
  "manyToMany inverse: tag whose books include an archived-only title": {
    sqlite: { sql: "exists (select 1 from `book_tags_links` as `j2` inner join `book` as `r1` on `r1`.`id` = `j2`.`book_id` where `j2`.`tag_id` = `t0`.`id` and `r1`.`deleted_tracker` = ? and (`r1`.`title` = ?))", bindings: ["not-deleted","Gamma"] },
    postgres: { sql: "exists (select 1 from \"book_tags_links\" as \"j2\" inner join \"book\" as \"r1\" on \"r1\".\"id\" = \"j2\".\"book_id\" where \"j2\".\"tag_id\" = \"t0\".\"id\" and \"r1\".\"deleted_tracker\" = $1 and (\"r1\".\"title\" = $2))", bindings: ["not-deleted","Gamma"] },
  },
  "manyToMany inverse: tags with some active book": {
    sqlite: { sql: "exists (select 1 from `book_tags_links` as `j2` inner join `book` as `r1` on `r1`.`id` = `j2`.`book_id` where `j2`.`tag_id` = `t0`.`id` and `r1`.`deleted_tracker` = ?)", bindings: ["not-deleted"] },
    postgres: { sql: "exists (select 1 from \"book_tags_links\" as \"j2\" inner join \"book\" as \"r1\" on \"r1\".\"id\" = \"j2\".\"book_id\" where \"j2\".\"tag_id\" = \"t0\".\"id\" and \"r1\".\"deleted_tracker\" = $1)", bindings: ["not-deleted"] },
  },
  "oneToMany: authors with some active book over 200 pages": {
    sqlite: { sql: "exists (select 1 from `book` as `r1` where `r1`.`author_id` = `t0`.`id` and `r1`.`deleted_tracker` = ? and (`r1`.`pages` > ?))", bindings: ["not-deleted",200] },
    postgres: { sql: "exists (select 1 from \"book\" as \"r1\" where \"r1\".\"author_id\" = \"t0\".\"id\" and \"r1\".\"deleted_tracker\" = $1 and (\"r1\".\"pages\" > $2))", bindings: ["not-deleted",200] },
  },
  "oneToMany: authors with no active book": {
    sqlite: { sql: "not exists (select 1 from `book` as `r1` where `r1`.`author_id` = `t0`.`id` and `r1`.`deleted_tracker` = ?)", bindings: ["not-deleted"] },
    postgres: { sql: "not exists (select 1 from \"book\" as \"r1\" where \"r1\".\"author_id\" = \"t0\".\"id\" and \"r1\".\"deleted_tracker\" = $1)", bindings: ["not-deleted"] },
  },
  "oneToMany: archived books never match": {
    sqlite: { sql: "exists (select 1 from `book` as `r1` where `r1`.`author_id` = `t0`.`id` and `r1`.`deleted_tracker` = ? and (`r1`.`title` = ?))", bindings: ["not-deleted","Zeta"] },
    postgres: { sql: "exists (select 1 from \"book\" as \"r1\" where \"r1\".\"author_id\" = \"t0\".\"id\" and \"r1\".\"deleted_tracker\" = $1 and (\"r1\".\"title\" = $2))", bindings: ["not-deleted","Zeta"] },
  },
  "oneToMany: $not some book": {
    sqlite: { sql: "not exists (select 1 from `book` as `r1` where `r1`.`author_id` = `t0`.`id` and `r1`.`deleted_tracker` = ? and (`r1`.`available` = ?))", bindings: ["not-deleted",true] },
    postgres: { sql: "not exists (select 1 from \"book\" as \"r1\" where \"r1\".\"author_id\" = \"t0\".\"id\" and \"r1\".\"deleted_tracker\" = $1 and (\"r1\".\"available\" = $2))", bindings: ["not-deleted",true] },
  },
  "oneToOne inverse: author with a profile handle": {
    sqlite: { sql: "exists (select 1 from `profile` as `r1` where `r1`.`author_id` = `t0`.`id` and (substr(`r1`.`handle`, 1, length(?)) = ?))", bindings: ["@","@"] },
    postgres: { sql: "exists (select 1 from \"profile\" as \"r1\" where \"r1\".\"author_id\" = \"t0\".\"id\" and (\"r1\".\"handle\" LIKE $1 ESCAPE '\\'))", bindings: ["@%"] },
  },
  "oneToOne inverse: $null": {
    sqlite: { sql: "not exists (select 1 from `profile` as `r1` where `r1`.`author_id` = `t0`.`id`)", bindings: [] },
    postgres: { sql: "not exists (select 1 from \"profile\" as \"r1\" where \"r1\".\"author_id\" = \"t0\".\"id\")", bindings: [] },
  },
  "oneToOne owner: profile of an author": {
    sqlite: { sql: "`t0`.`author_id` in (select `r1`.`id` from `author` as `r1` where (`r1`.`name__fold` = ?))", bindings: ["ada"] },
    postgres: { sql: "\"t0\".\"author_id\" in (select \"r1\".\"id\" from \"author\" as \"r1\" where (\"r1\".\"name__fold\" = $1))", bindings: ["ada"] },
  },
  "oneToOne owner: $null": {
    sqlite: { sql: "`t0`.`author_id` IS NULL", bindings: [] },
    postgres: { sql: "\"t0\".\"author_id\" IS NULL", bindings: [] },
  },
  "manyToOne into a soft-delete model: the stored id matches an archived book": {
    sqlite: { sql: "`t0`.`favorite_id` IS NOT NULL", bindings: [] },
    postgres: { sql: "\"t0\".\"favorite_id\" IS NOT NULL", bindings: [] },
  },
  "manyToOne into a soft-delete model: fields ask for an active book": {
    sqlite: { sql: "`t0`.`favorite_id` in (select `r1`.`id` from `book` as `r1` where `r1`.`deleted_tracker` = ? and (`r1`.`title` IS NOT NULL))", bindings: ["not-deleted"] },
    postgres: { sql: "\"t0\".\"favorite_id\" in (select \"r1\".\"id\" from \"book\" as \"r1\" where \"r1\".\"deleted_tracker\" = $1 and (\"r1\".\"title\" IS NOT NULL))", bindings: ["not-deleted"] },
  },
  "manyToOne into a soft-delete model: $not of a field includes archived and none": {
    sqlite: { sql: "not exists (select 1 from `book` as `r1` where `r1`.`id` = `t0`.`favorite_id` and `r1`.`deleted_tracker` = ? and (`r1`.`pages` > ?))", bindings: ["not-deleted",0] },
    postgres: { sql: "not exists (select 1 from \"book\" as \"r1\" where \"r1\".\"id\" = \"t0\".\"favorite_id\" and \"r1\".\"deleted_tracker\" = $1 and (\"r1\".\"pages\" > $2))", bindings: ["not-deleted",0] },
  },
  "three hops: tag → books → author → profile": {
    sqlite: { sql: "exists (select 1 from `book_tags_links` as `j2` inner join `book` as `r1` on `r1`.`id` = `j2`.`book_id` where `j2`.`tag_id` = `t0`.`id` and `r1`.`deleted_tracker` = ? and (`r1`.`author_id` in (select `r3`.`id` from `author` as `r3` where (exists (select 1 from `profile` as `r4` where `r4`.`author_id` = `r3`.`id` and (`r4`.`handle` = ?))))))", bindings: ["not-deleted", "@ada"] },
    postgres: { sql: "exists (select 1 from \"book_tags_links\" as \"j2\" inner join \"book\" as \"r1\" on \"r1\".\"id\" = \"j2\".\"book_id\" where \"j2\".\"tag_id\" = \"t0\".\"id\" and \"r1\".\"deleted_tracker\" = $1 and (\"r1\".\"author_id\" in (select \"r3\".\"id\" from \"author\" as \"r3\" where (exists (select 1 from \"profile\" as \"r4\" where \"r4\".\"author_id\" = \"r3\".\"id\" and (\"r4\".\"handle\" = $2))))))", bindings: ["not-deleted", "@ada"] },
  },
  "relation inside $or": {
    sqlite: { sql: "(exists (select 1 from `book_tags_links` as `j2` inner join `tag` as `r1` on `r1`.`id` = `j2`.`tag_id` where `j2`.`book_id` = `t0`.`id` and (`r1`.`label` = ?)) or `t0`.`author_id` in (select `r3`.`id` from `author` as `r3` where (`r3`.`name` = ?)))", bindings: ["50%", "Eve"] },
    postgres: { sql: "(exists (select 1 from \"book_tags_links\" as \"j2\" inner join \"tag\" as \"r1\" on \"r1\".\"id\" = \"j2\".\"tag_id\" where \"j2\".\"book_id\" = \"t0\".\"id\" and (\"r1\".\"label\" = $1)) or \"t0\".\"author_id\" in (select \"r3\".\"id\" from \"author\" as \"r3\" where (\"r3\".\"name\" = $2)))", bindings: ["50%", "Eve"] },
  },
  "text $containsi": {
    sqlite: { sql: "instr(`t0`.`bio__fold`, ?) > 0", bindings: ["poems"] },
    postgres: { sql: "\"t0\".\"bio__fold\" LIKE $1 ESCAPE '\\'", bindings: ["%poems%"] },
  },
  "email $endsWithi": {
    sqlite: { sql: "substr(`t0`.`email__fold`, -length(?)) = ?", bindings: ["example.com","example.com"] },
    postgres: { sql: "\"t0\".\"email__fold\" LIKE $1 ESCAPE '\\'", bindings: ["%example.com"] },
  },
  "uid $eq": {
    sqlite: { sql: "`t0`.`slug` = ?", bindings: ["dan"] },
    postgres: { sql: "\"t0\".\"slug\" = $1", bindings: ["dan"] },
  },
  "biginteger $gt": {
    sqlite: { sql: "`t0`.`followers` > ?", bindings: [4294967296] },
    postgres: { sql: "\"t0\".\"followers\" > $1", bindings: [4294967296] },
  },
  "float $between": {
    sqlite: { sql: "`t0`.`score` BETWEEN ? AND ?", bindings: [-1,0.5] },
    postgres: { sql: "\"t0\".\"score\" BETWEEN $1 AND $2", bindings: [-1,0.5] },
  },
  "float $lt": {
    sqlite: { sql: "`t0`.`score` < ?", bindings: [0.001] },
    postgres: { sql: "\"t0\".\"score\" < $1", bindings: [0.001] },
  },
  "decimal $eq": {
    sqlite: { sql: "`t0`.`rating` = ?", bindings: [4.5] },
    postgres: { sql: "\"t0\".\"rating\" = $1", bindings: [4.5] },
  },
  "boolean $eq false": {
    sqlite: { sql: "`t0`.`active` = ?", bindings: [false] },
    postgres: { sql: "\"t0\".\"active\" = $1", bindings: [false] },
  },
  "date $lt": {
    sqlite: { sql: "`t0`.`born` < ?", bindings: ["1900-01-01"] },
    postgres: { sql: "\"t0\".\"born\" < $1", bindings: ["1900-01-01"] },
  },
  "datetime $gte": {
    sqlite: { sql: "`t0`.`last_seen` >= ?", bindings: ["2026-01-01T09:59:59.000Z"] },
    postgres: { sql: "\"t0\".\"last_seen\" >= $1", bindings: ["2026-01-01T09:59:59.000Z"] },
  },
  "time $eq": {
    sqlite: { sql: "`t0`.`wake_up` = ?", bindings: ["06:30:00"] },
    postgres: { sql: "\"t0\".\"wake_up\" = $1", bindings: ["06:30:00"] },
  },
  "time $gt": {
    sqlite: { sql: "`t0`.`wake_up` > ?", bindings: ["12:00:00"] },
    postgres: { sql: "\"t0\".\"wake_up\" > $1", bindings: ["12:00:00"] },
  },
  "enumeration $in": {
    sqlite: { sql: "`t0`.`genre` IN (?, ?)", bindings: ["fiction","poetry"] },
    postgres: { sql: "\"t0\".\"genre\" IN ($1, $2)", bindings: ["fiction","poetry"] },
  },
  "enumeration $notIn includes NULL": {
    sqlite: { sql: "(NOT (`t0`.`genre` IN (?)) OR `t0`.`genre` IS NULL)", bindings: ["fiction"] },
    postgres: { sql: "(NOT (\"t0\".\"genre\" IN ($1)) OR \"t0\".\"genre\" IS NULL)", bindings: ["fiction"] },
  },
  "json $null": {
    sqlite: { sql: "`t0`.`meta` IS NULL", bindings: [] },
    postgres: { sql: "\"t0\".\"meta\" IS NULL", bindings: [] },
  },
  "json $notNull": {
    sqlite: { sql: "`t0`.`meta` IS NOT NULL", bindings: [] },
    postgres: { sql: "\"t0\".\"meta\" IS NOT NULL", bindings: [] },
  },
  "name with % matches itself": {
    sqlite: { sql: "instr(`t0`.`name`, ?) > 0", bindings: ["%"] },
    postgres: { sql: "\"t0\".\"name\" LIKE $1 ESCAPE '\\'", bindings: ["%\\%%"] },
  },
  "oneToMany: $not $containsi on a related record": {
    sqlite: { sql: "not exists (select 1 from `book` as `r1` where `r1`.`author_id` = `t0`.`id` and `r1`.`deleted_tracker` = ? and (instr(`r1`.`title__fold`, ?) > 0))", bindings: ["not-deleted","école"] },
    postgres: { sql: "not exists (select 1 from \"book\" as \"r1\" where \"r1\".\"author_id\" = \"t0\".\"id\" and \"r1\".\"deleted_tracker\" = $1 and (\"r1\".\"title__fold\" LIKE $2 ESCAPE '\\'))", bindings: ["not-deleted","%école%"] },
  },
} as const;
