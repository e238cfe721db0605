/**
 * Issue 8 §2, the harder half: the database HANGS instead of going away. Every process of a throwaway
 * PostgreSQL cluster (initdb, own port), or a throwaway MariaDB server (issue 18), is SIGSTOPped mid-load: no socket closes, no error arrives,
 * new connections are accepted by the kernel and never answered. Requests must still answer 503 within
 * HANG_ANSWER_MS (those in flight at the freeze included), /health/ready must say 503 within a second,
 * and after SIGCONT the service recovers by itself; every write answered 200 is present, none answered
 * with an error is half-present. The other side of the same watchdog (database/liveness.ts): a
 * request that is merely slow on a live server (waiting on a lock) is not cut; it answers 200.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import knex, { type Knex } from 'knex';
import { figures, percentile, send, tally } from './helpers/load';
import { auditWrites, startPhasedLoad } from './helpers/phased-load';
import { type ServerProcess, startServerProcess } from './helpers/server-process';
import { createThrowawayMariadb, mariadbToolsAvailable } from './helpers/throwaway-mariadb';
import { createThrowawayPostgres, postgresToolsAvailable } from './helpers/throwaway-postgres';

/** What the scenario needs of a throwaway database. */
interface Throwaway {
  readonly url: string;
  freeze(): number[];
  thaw(): void;
  destroy(): void;
}

const KINDS = [
  {
    name: 'postgres',
    what: 'throwaway cluster',
    tools: postgresToolsAvailable,
    missing: 'initdb/pg_ctl (and a postgres OS user when run as root)',
    create: createThrowawayPostgres,
    client: 'pg',
    /** The postmaster and its children. */
    leastStopped: 4,
    /** Holds fee_type so that reads and writes wait; answers the release. */
    async lock(locker: Knex): Promise<() => Promise<void>> {
      const trx = await locker.transaction();
      await trx.raw('LOCK TABLE fee_type IN ACCESS EXCLUSIVE MODE');
      return async () => {
        await trx.commit();
      };
    },
  },
  {
    name: 'mysql',
    what: 'throwaway MariaDB server',
    tools: mariadbToolsAvailable,
    missing: 'mariadb-install-db/mariadbd (and a mysql OS user when run as root)',
    create: createThrowawayMariadb,
    client: 'mysql2',
    leastStopped: 1,
    async lock(locker: Knex): Promise<() => Promise<void>> {
      // the locker's one connection holds the table lock until UNLOCK TABLES
      await locker.raw('LOCK TABLES fee_type WRITE');
      return async () => {
        await locker.raw('UNLOCK TABLES');
      };
    },
  },
] as const;

const UP_BEFORE_MS = 1500;
const HUNG_MS = 4000;
const UP_AFTER_MS = 2000;
/** Issue 8: "requests answer 503 within a second or two" while the database hangs. */
const HANG_ANSWER_MS = 2000;

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

for (const kind of KINDS) describe(`database hung under load [${kind.name}, ${kind.what}, SIGSTOP]`, function () {
  this.timeout(120_000);
  let pg: Throwaway | null = null;
  let server: ServerProcess | null = null;
  let dir = '';

  before(async function () {
    if (!kind.tools()) throw new Error(`${kind.missing} are needed for this scenario`);
    pg = await kind.create();
    dir = mkdtempSync(join(tmpdir(), 'ris-hang-'));
    server = await startServerProcess({ DATABASE_URL: pg.url, DATA_DIR: join(dir, 'data'), MIGRATIONS_DIR: join(dir, 'migrations'), LOG_LEVEL: 'warn' });
  });
  after(async () => {
    server?.kill('SIGKILL');
    pg?.destroy();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** The watchdog's warnings in the server's log so far. */
  const cuts = (s: ServerProcess): number => s.logs.filter((l) => l.msg === 'database does not answer: pooled connections cut').length;

  it(`a request slowed by a lock on a live server is not cut: it waits and answers 200`, async () => {
    const s = server as ServerProcess;
    const db = pg as Throwaway;
    const HOLD_MS = 2500;
    const locker = knex({ client: kind.client, connection: db.url, pool: { min: 0, max: 1 } });
    try {
      const release = await kind.lock(locker);
      const waiting = Promise.all([
        send(s.url, { kind: 'list', method: 'GET', path: '/api/fee-type?limit=1' }),
        send(s.url, { kind: 'create', method: 'POST', path: '/api/fee-type', body: { feeType: 'after-the-lock' } }),
      ]);
      await sleep(HOLD_MS);
      await release();
      const [list, create] = await waiting;
      figures(`slow but alive [${kind.name}]`, { lockHeldMs: HOLD_MS, list: list.status, listMs: Math.round(list.ms), create: create.status, createMs: Math.round(create.ms), watchdogCuts: cuts(s) });
      expect([list.status, create.status], 'both wait for the lock and succeed').to.deep.equal([200, 200]);
      expect(Math.min(list.ms, create.ms), 'they really waited').to.be.at.least(HOLD_MS - 200);
      expect(cuts(s), 'no connection cut while the server answers').to.equal(0);
    } finally {
      await locker.destroy();
    }
  });

  it(`answers 503 within ${HANG_ANSWER_MS} ms while it hangs, recovers after SIGCONT, and keeps every acknowledged write whole`, async () => {
    const s = server as ServerProcess;
    const db = pg as Throwaway;
    const inst = await send(s.url, { kind: 'setup', method: 'POST', path: '/api/institute', body: { name: 'Hang High', code: 'HH' } });
    expect(inst.status).to.equal(200);
    const instituteId = (inst.body as { data: { id: number } }).data.id;

    const load = startPhasedLoad(s.url, instituteId, 12);
    await sleep(UP_BEFORE_MS);
    const frozen = db.freeze();
    load.phase = 'hung';
    await sleep(HUNG_MS);
    load.phase = 'thawing';
    db.thaw();
    const thawedAt = Date.now();
    let recoveredAt = 0;
    while (recoveredAt === 0 && Date.now() - thawedAt < 15_000) {
      const o = await send(s.url, { kind: 'probe', method: 'GET', path: `/api/institute/${instituteId}` });
      if (o.status === 200) recoveredAt = Date.now();
      else await sleep(50);
    }
    load.phase = 'recovered';
    await sleep(UP_AFTER_MS);
    const { outcomes, ready } = await load.stop();
    const audit = await auditWrites(db.url, outcomes);

    const startedHung = outcomes.filter((o) => load.phases(o).start === 'hung' && load.phases(o).end === 'hung');
    const caughtByFreeze = outcomes.filter((o) => load.phases(o).start === 'up' && load.phases(o).end !== 'up');
    const readyHung = ready.filter((r) => r.phase === 'hung' && r.endPhase === 'hung');
    const unexpected = outcomes.filter((o) => o.status !== 200 && o.status !== 503);
    const msMax = Math.max(...outcomes.map((o) => o.ms));

    figures(`database hung [${kind.name}]`, {
      processesStopped: frozen.length,
      requests: outcomes.length,
      byStatus: tally(outcomes, (o) => String(o.status ?? o.error)),
      byPhase: tally(outcomes, (o) => `${load.phases(o).start}→${load.phases(o).end}:${o.status ?? o.error}`),
      msP50: Math.round(percentile(outcomes.map((o) => o.ms), 50)),
      msP99: Math.round(percentile(outcomes.map((o) => o.ms), 99)),
      msMaxStartedWhileHung: Math.round(Math.max(0, ...startedHung.map((o) => o.ms))),
      msMaxInFlightAtFreeze: Math.round(Math.max(0, ...caughtByFreeze.map((o) => o.ms))),
      msMaxOverall: Math.round(msMax),
      watchdogCuts: cuts(s),
      readyWhileHung: tally(readyHung, (r) => String(r.status)),
      readyMsMaxWhileHung: Math.round(Math.max(0, ...readyHung.map((r) => r.ms))),
      recoveredMsAfterThaw: recoveredAt - thawedAt,
      writesAcknowledged: audit.writesAcknowledged,
      recordsAcknowledged: audit.recordsAcknowledged,
      recordsLost: audit.lost.length,
      writesAnsweredError: audit.writesAnsweredError,
      errorWritesHalfPresent: audit.halfPresent,
      errorWritesFullyPresent: audit.fullyPresent,
    });

    expect(frozen.length, 'the server processes stopped').to.be.at.least(kind.leastStopped);
    expect(cuts(s), 'the watchdog cut the hung connections').to.be.at.least(1);
    expect(unexpected.map((o) => `${o.kind}: ${o.status ?? o.error}`), 'only 200 or 503').to.deep.equal([]);
    expect(startedHung.length, 'requests answered while hung').to.be.greaterThan(20);
    expect(startedHung.every((o) => o.status === 503), 'every request started and answered while hung is 503').to.equal(true);
    expect(msMax, `no request took ${HANG_ANSWER_MS} ms or more`).to.be.below(HANG_ANSWER_MS);
    // Probes run one after another, 100 ms apart, each taking its 1 s bound while hung: the one in flight
    // at the freeze ends up to a second into the 4 s hang, so 2 or 3 fit wholly inside it (CI saw 2).
    expect(readyHung.length, 'readiness probes while hung (each takes its 1 s bound)').to.be.at.least(2);
    expect(readyHung.every((r) => r.status === 503 && r.ms < 1100), '/health/ready says 503 within a second while hung').to.equal(true);
    expect(recoveredAt, 'recovered without a restart').to.be.greaterThan(0);
    expect(ready.filter((r) => r.phase === 'recovered').every((r) => r.status === 200), '/health/ready 200 after recovery').to.equal(true);
    expect(outcomes.filter((o) => load.phases(o).start === 'recovered').every((o) => o.status === 200), 'all 200 after recovery').to.equal(true);
    expect(audit.lost, 'acknowledged writes lost').to.deep.equal([]);
    expect(audit.halfPresent, 'half-present writes').to.equal(0);
  });
});
