/** Passwords.verify: over 72 bytes is never a match, and costs a comparison like any wrong password. */
import { expect } from 'chai';
import { Passwords } from '../../../core/plugins/users-permissions/passwords';

const ms = async (f: () => Promise<unknown>): Promise<number> => {
  const t = process.hrtime.bigint();
  await f();
  return Number(process.hrtime.bigint() - t) / 1e6;
};
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

describe('identity: password comparison', () => {
  const exact = 'k'.repeat(72);

  it('a password longer than 72 bytes never matches, though its first 72 bytes are the password', async () => {
    const p = new Passwords(4);
    const hash = await p.hash(exact);
    expect(await p.verify(exact, hash)).to.equal(true);
    expect(await p.verify(`${exact}x`, hash)).to.equal(false);
    expect(await p.verify(`${exact}é`, hash)).to.equal(false);
    expect(await p.verify('k'.repeat(71) + 'é', hash)).to.equal(false); // 73 bytes
  });

  it('refusing an over-long password takes about as long as a wrong one (no length oracle)', async () => {
    const p = new Passwords(8); // ~15-25 ms a comparison: well above timer noise
    const hash = await p.hash(exact);
    const wrong: number[] = [];
    const long: number[] = [];
    for (let i = 0; i < 7; i++) {
      wrong.push(await ms(() => p.verify('k'.repeat(71) + 'x', hash)));
      long.push(await ms(() => p.verify(`${exact}-suffix`, hash)));
    }
    expect(median(long)).to.be.greaterThan(median(wrong) * 0.5);
    expect(median(long)).to.be.lessThan(median(wrong) * 2);
  });
});
