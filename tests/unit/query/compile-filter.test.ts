/** Every case of filter.cases.ts compiles to the pinned SQL + bindings on both dialects, without a connection. */
import { expect } from 'chai';
import { OPERATORS } from '../../../core/query/operators';
import { COMPILED_CASES, FILTER_CASES } from './filter.cases';
import { compileOffline, type DialectName } from './compile-case';

const PREFIX: Record<DialectName, RegExp> = {
  sqlite: /^select `t0`\.`id` from `\w+` as `t0` where /,
  postgres: /^select "t0"\."id" from "\w+" as "t0" where /,
};

describe('compile-filter: SQL per dialect (filter.cases.ts)', () => {
  it('covers every operator of operators.ts and every relation kind', () => {
    const text = JSON.stringify(FILTER_CASES.map((c) => c.filters));
    expect(Object.keys(OPERATORS).filter((op) => !text.includes(`"${op}"`))).to.deep.equal([]);
    for (const kind of ['manyToOne', 'manyToMany owner', 'manyToMany inverse', 'oneToMany', 'oneToOne inverse', 'oneToOne owner']) {
      expect(FILTER_CASES.some((c) => c.name.startsWith(kind)), kind).to.equal(true);
    }
  });

  it('pins every case', () => {
    expect(FILTER_CASES.filter((c) => !COMPILED_CASES.has(c.name)).map((c) => c.name)).to.deep.equal([]);
  });

  for (const c of FILTER_CASES) {
    it(c.name, () => {
      const want = COMPILED_CASES.get(c.name);
      if (!want) return;
      for (const d of ['sqlite', 'postgres'] as const) {
        const got = compileOffline(d, c.model ?? 'book', c.filters);
        expect(got.sql, d).to.match(PREFIX[d]);
        expect(got.sql.replace(PREFIX[d], ''), d).to.equal(want[d].sql);
        expect(got.bindings, d).to.deep.equal(want[d].bindings);
      }
    });
  }

  it('binds every value: no case puts a filter value into the SQL text', () => {
    for (const c of FILTER_CASES) {
      for (const d of ['sqlite', 'postgres'] as const) {
        const { sql } = compileOffline(d, c.model ?? 'book', c.filters);
        // the only literal allowed is ESCAPE '\' (a case may hold several)
        expect(sql.replace(/ ESCAPE '\\'/g, ''), `${c.name} [${d}]`).to.not.include("'");
      }
    }
  });

  it('LIKE patterns escape % _ \\ (PostgreSQL bindings)', () => {
    expect(compileOffline('postgres', 'book', { title: { $contains: 'a%b_c\\d' } }).bindings).to.deep.equal(['%a\\%b\\_c\\\\d%']);
    expect(compileOffline('postgres', 'book', { title: { $containsi: 'A%B_C\\D' } }).bindings).to.deep.equal(['%a\\%b\\_c\\\\d%']);
    // case-sensitive on SQLite compares exact substrings: nothing to escape
    expect(compileOffline('sqlite', 'book', { title: { $contains: 'a%b_c\\d' } }).bindings).to.deep.equal(['a%b_c\\d']);
  });
});
