/** CallerGate: turns per caller, first come first served, refused past the line, nothing kept after. */
import { expect } from 'chai';
import { RateLimitedError, ServiceUnavailableError, WriteConflictError } from '../../../core/errors/errors';
import { CallerGate, outageOf } from '../../../core/http/caller-gate';
import { mysqlDialect } from '../../../database/dialects/mysql';
import { postgresDialect } from '../../../database/dialects/postgres';

const tick = (): Promise<void> => new Promise((r) => setImmediate(r));

describe('CallerGate', () => {
  it('runs `running` at once, queues `waiting` more in arrival order, refuses the next; other callers are apart', async () => {
    const gate = new CallerGate({ running: 2, waiting: 2, maxWaitMs: 60_000 });
    const order: string[] = [];
    await gate.acquire('a');
    await gate.acquire('a');
    const third = gate.acquire('a').then(() => order.push('third'));
    const fourth = gate.acquire('a').then(() => order.push('fourth'));
    let refused: unknown = null;
    await gate.acquire('a').catch((e: unknown) => (refused = e));
    expect(refused).to.be.instanceOf(RateLimitedError);
    expect((refused as RateLimitedError).details).to.include({ limit: 'callerConcurrency', setting: 'CALLER_QUEUE', retryAfterSeconds: 1 });
    // another caller has its own turns
    await gate.acquire('b');
    await tick();
    expect(order).to.deep.equal([]);
    gate.release('a');
    await third;
    expect(order).to.deep.equal(['third']);
    gate.release('a');
    await fourth;
    expect(order).to.deep.equal(['third', 'fourth']);
    // the line has room again: one more waits instead of being refused
    const fifth = gate.acquire('a');
    gate.release('a');
    await fifth;
    gate.release('a');
    gate.release('a');
    gate.release('b');
    expect(gate.size).to.equal(0);
  });

  it('waiting: 0 refuses at once while every turn is taken', async () => {
    const gate = new CallerGate({ running: 1, waiting: 0, maxWaitMs: 60_000 });
    await gate.acquire('x');
    let refused = false;
    await gate.acquire('x').catch(() => (refused = true));
    expect(refused).to.equal(true);
    gate.release('x');
    await gate.acquire('x');
    gate.release('x');
    expect(gate.size).to.equal(0);
  });

  it('a turn that does not come within maxWaitMs answers 503 naming CALLER_QUEUE_TIMEOUT and leaves the line', async () => {
    const gate = new CallerGate({ running: 1, waiting: 5, maxWaitMs: 50 });
    await gate.acquire('slow');
    const started = Date.now();
    let failed: unknown = null;
    await gate.acquire('slow').catch((e: unknown) => (failed = e));
    expect(Date.now() - started).to.be.at.least(45);
    expect(failed).to.be.instanceOf(ServiceUnavailableError);
    expect((failed as ServiceUnavailableError).details).to.include({ limit: 'callerConcurrency', setting: 'CALLER_QUEUE_TIMEOUT' });
    // the timed-out request no longer holds a place: the next one gets the turn when it is released
    const next = gate.acquire('slow');
    gate.release('slow');
    await next;
    gate.release('slow');
    expect(gate.size).to.equal(0);
  });

  it('an outage ends the line: the waiting requests answer 503 at once, and a full line refuses for a second after', async () => {
    let now = 1_000_000;
    const gate = new CallerGate({ running: 1, waiting: 3, maxWaitMs: 60_000 }, () => now);
    await gate.acquire('c');
    const waiting = [gate.acquire('c'), gate.acquire('c')].map((p) => p.then(() => 'turn', (e: unknown) => e));
    gate.release('c', true);
    const outcomes = await Promise.all(waiting);
    for (const o of outcomes) expect(o).to.be.instanceOf(ServiceUnavailableError);
    // the lane is empty now: a new request runs
    await gate.acquire('c');
    // the line is full within a second of the outage: 503 at once, not a place in the line
    let failed: unknown = null;
    await gate.acquire('c').catch((e: unknown) => (failed = e));
    expect(failed).to.be.instanceOf(ServiceUnavailableError);
    // a second later it waits again as usual
    now += 1000;
    const later = gate.acquire('c');
    gate.release('c');
    await later;
    gate.release('c');
    expect(gate.size).to.equal(0);
  });

  it('takes an unavailable database for an outage, never a write conflict (a deadlock is the caller\'s to retry, the database answers)', () => {
    const pg = (code: string): Error => Object.assign(new Error(code), { code });
    const my = (errno: number): Error => Object.assign(new Error(String(errno)), { errno });
    const isOutage = { postgres: outageOf(postgresDialect), mysql: outageOf(mysqlDialect) };
    for (const f of Object.values(isOutage)) {
      expect(f(new ServiceUnavailableError('the database is unavailable; try again shortly'))).to.equal(true);
      expect(f(new WriteConflictError('deadlock'))).to.equal(false);
    }
    expect(isOutage.postgres(pg('57P01'))).to.equal(true);
    for (const code of ['40P01', '40001', '55P03']) expect(isOutage.postgres(pg(code)), code).to.equal(false);
    expect(isOutage.mysql(my(2013))).to.equal(true);
    for (const errno of [1213, 1205, 1020]) expect(isOutage.mysql(my(errno)), String(errno)).to.equal(false);
  });
});
