import { expect } from 'chai';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import knex from 'knex';
import { ConfigError, loadConfig } from '../../../config';
import { CheckGate, checkTurns } from '../../../core/realtime/check-gate';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe('realtime check gate: REALTIME_CHECK_CONCURRENCY turns for all streams', () => {
  /** Runs `n` works of `ms` through a gate of `limit`; the most that ran at once, and the order they began. */
  async function load(limit: number, n: number, ms = 10): Promise<{ peak: number; began: number[] }> {
    const gate = new CheckGate(limit);
    let now = 0;
    let peak = 0;
    const began: number[] = [];
    await Promise.all(
      Array.from({ length: n }, (_, i) =>
        gate.run('one', async () => {
          began.push(i);
          now += 1;
          peak = Math.max(peak, now);
          await sleep(ms);
          now -= 1;
        }),
      ),
    );
    expect(gate.busy).to.equal(0);
    expect(gate.queued).to.equal(0);
    return { peak, began };
  }

  it('at the limit: all run at once', async () => {
    expect((await load(2, 2)).peak).to.equal(2);
  });

  it('past the limit: never more than the limit at once, the rest in the order they came', async () => {
    const { peak, began } = await load(2, 7);
    expect(peak).to.equal(2);
    expect(began).to.deep.equal([0, 1, 2, 3, 4, 5, 6]);
  });

  it('a failed work gives its turn back', async () => {
    const gate = new CheckGate(1);
    await gate.run('one', () => Promise.reject(new Error('boom'))).catch(() => undefined);
    expect(await gate.run('one', async () => 'next')).to.equal('next');
    expect(gate.busy).to.equal(0);
  });

  it('fair between callers: a freed turn goes to the next caller in rotation, not to the longest line', async () => {
    const gate = new CheckGate(1);
    const began: string[] = [];
    const work = (caller: string, name: string) =>
      gate.run(caller, async () => {
        began.push(name);
        await sleep(2);
      });
    // one caller's burst of five checks, then two other callers' one each
    const all = [...['a1', 'a2', 'a3', 'a4', 'a5'].map((n) => work('a', n)), work('b', 'b1'), work('c', 'c1')];
    expect(gate.queued).to.equal(6);
    await Promise.all(all);
    // first come first served would run b1 and c1 last (6th and 7th)
    expect(began).to.deep.equal(['a1', 'a2', 'b1', 'c1', 'a3', 'a4', 'a5']);
    expect(gate.busy).to.equal(0);
    expect(gate.queued).to.equal(0);
  });

  it('fair while lines grow: a caller asking all the time gets every other turn when one other waits', async () => {
    const gate = new CheckGate(1);
    const began: string[] = [];
    const pending: Promise<void>[] = [];
    const work = (caller: string, name: string) =>
      gate.run(caller, async () => {
        began.push(name);
        // the busy caller asks again each time it runs
        if (caller === 'busy' && began.length < 8) pending.push(work('busy', `busy${began.length}`));
        await sleep(2);
      });
    pending.push(work('busy', 'busy0'), work('busy', 'busyA'), work('quiet', 'q1'), work('quiet', 'q2'));
    while (pending.length > 0) await pending.shift();
    // busy1 was asked while busy0 ran, before busyA and the quiet ones: within a line the order holds
    expect(began.slice(0, 5)).to.deep.equal(['busy0', 'busy1', 'q1', 'busyA', 'q2']);
  });

  it('never the whole pool: at most its size less one, at least one', () => {
    const pooled = (max: number) => knex({ client: 'pg', pool: { min: 0, max } });
    expect(checkTurns(2, pooled(10))).to.equal(2);
    expect(checkTurns(9, pooled(10))).to.equal(9);
    expect(checkTurns(10, pooled(10))).to.equal(9);
    expect(checkTurns(4, pooled(4))).to.equal(3);
    expect(checkTurns(2, pooled(1))).to.equal(1);
  });

  it('the setting: 2 by default; 1 at least (0 and words are refused naming REALTIME_CHECK_CONCURRENCY)', () => {
    const root = mkdtempSync(join(tmpdir(), 'ris-checks-'));
    const base = { DATA_DIR: join(root, 'data') };
    expect(loadConfig(base, root).realtime.checkConcurrency).to.equal(2);
    expect(loadConfig({ ...base, REALTIME_CHECK_CONCURRENCY: '1' }, root).realtime.checkConcurrency).to.equal(1);
    expect(loadConfig({ ...base, REALTIME_CHECK_CONCURRENCY: '5' }, root).realtime.checkConcurrency).to.equal(5);
    expect(() => loadConfig({ ...base, REALTIME_CHECK_CONCURRENCY: '0' }, root)).to.throw(ConfigError, /REALTIME_CHECK_CONCURRENCY/);
    expect(() => loadConfig({ ...base, REALTIME_CHECK_CONCURRENCY: 'many' }, root)).to.throw(ConfigError, /REALTIME_CHECK_CONCURRENCY/);
  });
});
