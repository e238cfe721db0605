/** The hang watchdog's wait: only time the event loop was free to read an answer counts against the server. */
import { expect } from 'chai';
import { withinResponsiveTime } from '../../../database/liveness';

const never = new Promise<never>(() => undefined);

describe('database liveness: waiting for a probe', () => {
  it('answers the work that settles in time, and passes its failure on', async () => {
    expect(await withinResponsiveTime(new Promise((r) => setTimeout(() => r('up'), 30)), 300, 3000)).to.deep.equal({ done: 'up' });
    const err = await withinResponsiveTime(Promise.reject(new Error('refused')), 300, 3000).catch((e: Error) => e.message);
    expect(err).to.equal('refused');
  });

  it('a silent answer on a free event loop is a timeout after the given time', async () => {
    const t = Date.now();
    expect(await withinResponsiveTime(never, 300, 3000)).to.equal('timeout');
    expect(Date.now() - t).to.be.within(280, 1000);
  });

  it('a loop held up by CPU work is inconclusive, never a timeout', async () => {
    let busy = true;
    const hog = (): void => {
      const until = Date.now() + 150;
      while (Date.now() < until) {
        /* a password hash's chunk */
      }
      if (busy) setImmediate(hog);
    };
    setImmediate(hog);
    try {
      expect(await withinResponsiveTime(never, 300, 1500)).to.equal('inconclusive');
    } finally {
      busy = false;
    }
  });
});
