/** A pool slot not had in time is "busy" while the watchdog does not suspect the server, an outage while it does. */
import { EventEmitter } from 'node:events';
import { expect } from 'chai';
import type { Knex } from 'knex';
import { mysqlDialect } from '../../../database/dialects/mysql';
import { postgresDialect } from '../../../database/dialects/postgres';
import { type PoolEvents, type ProbeResult, watchLiveness } from '../../../database/liveness';
import { PoolBusyError, poolWatchOf, reportBusyPool } from '../../../database/pool-busy';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const knexTimeout = (): Error => Object.assign(new Error('Knex: Timeout acquiring a connection. The pool is probably full.'), { name: 'KnexTimeoutError' });

describe('database liveness: suspicion', () => {
  it('suspects the server while a probe is under way and after a silent one, until a connection is made', async () => {
    const pool = new EventEmitter();
    let answer: (r: ProbeResult) => void = () => undefined;
    const probe = (): Promise<ProbeResult> => new Promise((r) => (answer = r));
    const live = watchLiveness(pool as unknown as PoolEvents, probe, { suspectMs: 20, probeGapMs: 30, tickMs: 5 });
    try {
      const conn = {};
      pool.emit('createSuccess', 1, conn);
      pool.emit('acquireSuccess', 2, conn);
      expect(live.suspects(), 'a young held connection').to.equal(false);
      await sleep(60);
      expect(live.suspects(), 'probing').to.equal(true);
      answer('answered');
      await sleep(1);
      expect(live.suspects(), 'the server answered').to.equal(false);
      await sleep(60);
      expect(live.suspects(), 'probing again: the connection is still held').to.equal(true);
      answer('silent');
      await sleep(1);
      expect(live.suspects(), 'silent').to.equal(true);
      pool.emit('destroySuccess', 3, conn);
      expect(live.suspects(), 'nothing new made yet').to.equal(true);
      pool.emit('createSuccess', 4, {});
      expect(live.suspects(), 'a connection made: the server answers').to.equal(false);
    } finally {
      live.stop();
    }
  });
});

describe('pool busy: a timed-out acquire', () => {
  const fakeDb = (acquire: () => Promise<unknown>, counts = { used: 2, free: 0, creating: 0 }): Knex =>
    ({
      client: {
        acquireConnection: acquire,
        pool: { numUsed: () => counts.used, numFree: () => counts.free, numPendingCreates: () => counts.creating },
      },
    }) as unknown as Knex;

  it('becomes PoolBusyError (classified busy on PostgreSQL and MariaDB) when the server is not suspected', async () => {
    const db = fakeDb(() => Promise.reject(knexTimeout()));
    reportBusyPool(db, 2, () => false, async () => 'answered');
    const err = await (db.client as { acquireConnection(): Promise<unknown> }).acquireConnection().catch((e: unknown) => e);
    expect(err).to.be.instanceOf(PoolBusyError);
    expect((err as PoolBusyError).poolMax).to.equal(2);
    expect(postgresDialect.classifyError(err)).to.deep.equal({ kind: 'busy', poolMax: 2 });
    expect(mysqlDialect.classifyError(err)).to.deep.equal({ kind: 'busy', poolMax: 2 });
  });

  it('stays an outage while the server is suspected, and other failures pass unchanged', async () => {
    const timeout = knexTimeout();
    const suspected = fakeDb(() => Promise.reject(timeout));
    reportBusyPool(suspected, 2, () => true, async () => 'silent');
    const err = await (suspected.client as { acquireConnection(): Promise<unknown> }).acquireConnection().catch((e: unknown) => e);
    expect(err).to.equal(timeout);
    expect(postgresDialect.classifyError(err)?.kind).to.equal('unavailable');
    const refused = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    const down = fakeDb(() => Promise.reject(refused));
    reportBusyPool(down, 2, () => false, async () => 'silent');
    expect(await (down.client as { acquireConnection(): Promise<unknown> }).acquireConnection().catch((e: unknown) => e)).to.equal(refused);
  });

  it('the watch says the pool is full only when no slot is free and none can be made', () => {
    const counts = { used: 2, free: 0, creating: 0 };
    const db = fakeDb(() => Promise.resolve({}), counts);
    reportBusyPool(db, 2, () => false, async () => 'answered');
    const watch = poolWatchOf(db);
    expect(watch?.full()).to.equal(true);
    counts.used = 1;
    expect(watch?.full(), 'one more can be made').to.equal(false);
    counts.creating = 1;
    expect(watch?.full(), 'being made').to.equal(true);
    counts.free = 1;
    expect(watch?.full(), 'one free').to.equal(false);
  });
});
