import { expect } from 'chai';
import { coalesced } from '../../../core/events/signal';

/** A send that stays under way until `release()`; counts its calls. */
function heldSend(): { send: () => Promise<void>; release: () => void; readonly calls: number } {
  let calls = 0;
  let open: (() => void)[] = [];
  return {
    send: () => {
      calls += 1;
      return new Promise<void>((resolve) => open.push(resolve));
    },
    release: () => {
      const o = open;
      open = [];
      o.forEach((r) => r());
    },
    get calls() {
      return calls;
    },
  };
}

const turn = (): Promise<void> => new Promise((r) => setImmediate(r));

describe('coalesced event signal (one NOTIFY or PUBLISH for many commits)', () => {
  it('sends at once when idle, and folds every request made meanwhile into one more send', async () => {
    const s = heldSend();
    const signal = coalesced(s.send);
    signal.request();
    expect(s.calls).to.equal(1);
    for (let i = 0; i < 50; i++) signal.request();
    expect(s.calls).to.equal(1);
    s.release();
    await turn();
    expect(s.calls).to.equal(2); // the commits made during the first send are signalled once more
    s.release();
    await turn();
    expect(s.calls).to.equal(2);
    await signal.idle();
  });

  it('a failed send does not stop later ones', async () => {
    let calls = 0;
    const signal = coalesced(async () => {
      calls += 1;
      throw new Error('connection refused');
    });
    signal.request();
    await signal.idle();
    signal.request();
    await signal.idle();
    expect(calls).to.equal(2);
  });

  it('idle() waits for the send under way and the one asked for after it', async () => {
    const s = heldSend();
    const signal = coalesced(s.send);
    signal.request();
    signal.request();
    let done = false;
    const idle = signal.idle().then(() => (done = true));
    await turn();
    expect(done).to.equal(false);
    s.release();
    await turn();
    expect(done).to.equal(false);
    s.release();
    await idle;
    expect(s.calls).to.equal(2);
  });

  it('with a gap: sends start at least minGapMs apart, the requests in the gap folded into one', async () => {
    const starts: number[] = [];
    const signal = coalesced(async () => {
      starts.push(Date.now());
    }, 40);
    signal.request();
    expect(starts).to.have.length(1);
    await turn();
    // the first send is over, but the gap is not: these wait, and go out as one
    for (let i = 0; i < 20; i++) signal.request();
    await turn();
    expect(starts).to.have.length(1);
    await signal.idle();
    expect(starts).to.have.length(2);
    expect(starts[1] - starts[0]).to.be.at.least(39);
    // a request after the gap has passed is sent at once
    await new Promise((r) => setTimeout(r, 45));
    signal.request();
    expect(starts).to.have.length(3);
    await signal.idle();
    expect(starts).to.have.length(3);
  });

  it('with a gap: a request during a send waits for the send and then the rest of the gap; idle() waits for it', async () => {
    const s = heldSend();
    const signal = coalesced(s.send, 30);
    const t0 = Date.now();
    signal.request();
    signal.request();
    s.release();
    let done = false;
    const idle = signal.idle().then(() => (done = true));
    await turn();
    expect(s.calls).to.equal(1);
    expect(done).to.equal(false);
    await new Promise((r) => setTimeout(r, 40));
    expect(s.calls).to.equal(2);
    expect(Date.now() - t0).to.be.at.least(29);
    s.release();
    await idle;
    expect(s.calls).to.equal(2);
  });
});
