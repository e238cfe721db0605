/**
 * Exact sums and averages as text (database/dialects/exact-numbers.ts): the expected texts are what
 * PostgreSQL answers for `sum::numeric(60, scale) / count::numeric` (numeric_div, as its AVG).
 */
import { expect } from 'chai';
import { averageText, decimalText } from '../../../database/dialects/exact-numbers';

describe('unit: exact decimal text of sums and averages', () => {
  const sums: [bigint, number, string][] = [
    [0n, 0, '0'],
    [-15n, 4, '-0.0015'],
    [999999999999999900n, 4, '99999999999999.9900'],
    [9907919180215090100n, 0, '9907919180215090100'],
    [-30000n, 4, '-3.0000'],
  ];
  for (const [units, scale, text] of sums) it(`${units} × 10^-${scale} is ${text}`, () => expect(decimalText(units, scale)).to.equal(text));

  const averages: [bigint, number, bigint, string][] = [
    [5n, 0, 3n, '1.6666666666666667'],
    [-5n, 0, 3n, '-1.6666666666666667'],
    [3n, 0, 2n, '1.5000000000000000'],
    [999999999999999900n, 4, 2n, '49999999999999.9950'],
    [1n, 4, 2n, '0.000050000000000000000000'],
    [-3n, 4, 2n, '-0.00015000000000000000'],
    [3001n, 4, 3n, '0.10003333333333333333'],
    [9907919180215090100n, 0, 1100n, '9007199254740991.0000'],
    // half-way at PostgreSQL's scale (0 here): rounded away from zero, on both sides
    [100000000000000000001n, 0, 2n, '50000000000000000001'],
    [-100000000000000000001n, 0, 2n, '-50000000000000000001'],
    [-1n, 0, 10n ** 30n, '-0.000000000000000000000000000001000000000000000000'],
  ];
  for (const [units, scale, count, text] of averages) {
    it(`${units} × 10^-${scale} / ${count} is ${text}`, () => expect(averageText(units, scale, count)).to.equal(text));
  }
});
