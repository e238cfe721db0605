/** The in-process rate-limit counters: counting per window, and a hard bound on the windows kept. */
import { expect } from 'chai';
import { memoryCounters } from '../../../core/plugins/users-permissions/rate-limit';

describe('identity: in-process rate-limit counters', () => {
  it('counts hits of one key within its window and starts again after it', async () => {
    const store = memoryCounters();
    expect((await store.hit('a', 50)).count).to.equal(1);
    expect((await store.hit('a', 50)).count).to.equal(2);
    expect((await store.hit('b', 50)).count).to.equal(1);
    await new Promise((r) => setTimeout(r, 60));
    expect((await store.hit('a', 50)).count).to.equal(1);
  });

  it('a flood of distinct keys evicts the oldest windows, never the newest (bounded memory)', async () => {
    const store = memoryCounters(100);
    for (let i = 0; i < 3; i++) await store.hit('first', 60_000);
    for (let i = 0; i < 250; i++) await store.hit(`flood-${i}`, 60_000);
    expect((await store.hit('flood-249', 60_000)).count, 'the newest window is kept').to.equal(2);
    expect((await store.hit('flood-160', 60_000)).count, 'a recent one too').to.equal(2);
    expect((await store.hit('first', 60_000)).count, 'the oldest was evicted: counting starts again').to.equal(1);
  });

  it('a renewed window counts as new for eviction (order of window start)', async () => {
    const store = memoryCounters(3);
    await store.hit('x', 20);
    await store.hit('y', 60_000);
    await new Promise((r) => setTimeout(r, 30));
    await store.hit('x', 60_000); // x's window expired: it opens anew, after y
    await store.hit('z', 60_000);
    await store.hit('w', 60_000); // full: the oldest live window (y) goes, not x
    expect((await store.hit('x', 60_000)).count).to.equal(2);
    expect((await store.hit('y', 60_000)).count).to.equal(1);
  });
});
