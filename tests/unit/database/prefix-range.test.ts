/** The upper end of a `$startsWith` range on MariaDB (database/dialects/prefix-range.ts), in code-point order. */
import { expect } from 'chai';
import { prefixUpperBound } from '../../../database/dialects/prefix-range';

const above = (a: string, b: string): boolean => {
  const x = Array.from(a, (c) => c.codePointAt(0) as number);
  const y = Array.from(b, (c) => c.codePointAt(0) as number);
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i] > y[i];
  return x.length > y.length;
};

describe('unit: the code-point range of a prefix', () => {
  const cases: [string, string | null][] = [
    ['abc', 'abd'],
    ['a😀', 'a😁'],
    ['a\uFFFF', 'a\u{10000}'],
    ['a\uD7FF', 'a\uE000'],
    ['a\u{10FFFF}', 'b'],
    ['\u{10FFFF}\u{10FFFF}', null],
    ['', null],
  ];
  for (const [prefix, bound] of cases) it(`${JSON.stringify(prefix)} → ${JSON.stringify(bound)}`, () => expect(prefixUpperBound(prefix)).to.equal(bound));

  it('every string starting with the prefix lies below the bound, and the next strings do not', () => {
    for (const [prefix, bound] of cases) {
      if (bound === null || prefix === '') continue;
      for (const tail of ['', 'a', '\uFFFF', '😀', '\u{10FFFF}\u{10FFFF}']) expect(above(bound, prefix + tail), prefix + tail).to.equal(true);
      expect(above(bound, bound)).to.equal(false);
    }
  });
});
