/**
 * One caller's slow reads on SQLite must not stall everybody else (README: One caller's share). The
 * sqlite3 driver runs every statement on libuv's threadpool, 4 threads unless UV_THREADPOOL_SIZE says
 * otherwise; with 4 readers and CALLER_CONCURRENCY 6, one caller's slow grouped lists took every thread
 * and every reader, and another caller's FindOne went from a few ms to 9–11 s (/health/ready: 503). The
 * service now sizes the pool to its SQLite connections plus 4 and opens more readers (8) than one caller
 * may run at once (6). Measured here on a real server process: another caller's FindOne while one
 * caller keeps 6 costly lists running.
 */
import { expect } from 'chai';
import { figures, percentile, send } from './helpers/load';
import { createUserOver, firstId } from './helpers/nodes';
import { freshDatabase, type FreshDatabase } from './helpers/fresh-service';
import { startServerProcess, type ServerProcess } from './helpers/server-process';

const ROWS = 300_000;
/** A grouped list over every row, with its first groups' records: seconds of SQL on this many rows. */
const COSTLY = '/api/fee-type?groupBy[0]=dueDate:week:MMMM&groupBy[1]=latePaymentFees&groupBy[2]=partPaymentAllowed&populateGroup=true&groupFilter[limit]=50';
const ATTACK_MS = 8000;

async function seed(fresh: FreshDatabase): Promise<number> {
  const db = fresh.inspect();
  const now = new Date().toISOString();
  const [institute] = (await db('institute').insert({ name: 'Slow reads', code: 'SLOW', city: 'X', created_at: now, updated_at: now }, ['id'])) as ({ id: number } | number)[];
  const instituteId = typeof institute === 'number' ? institute : institute.id;
  await db.transaction(async (trx) => {
    for (let at = 0; at < ROWS; at += 500) {
      const rows = Array.from({ length: Math.min(500, ROWS - at) }, (_, k) => {
        const n = at + k;
        return {
          created_at: now,
          updated_at: now,
          fee_type: `Fee ${n}`,
          institute_id: instituteId,
          late_payment_fees_type: n % 2 ? 'fixed' : 'percentage',
          late_payment_fees: (n % 997) / 4,
          part_payment_allowed: n % 3 === 0,
          due_date: `20${10 + (n % 20)}-${String(1 + (n % 12)).padStart(2, '0')}-${String(1 + (n % 28)).padStart(2, '0')}`,
        };
      });
      await trx('fee_type').insert(rows);
    }
  });
  return instituteId;
}

describe('SQLite: one caller’s slow reads leave the other callers served', function () {
  this.timeout(180_000);
  let fresh: FreshDatabase;
  let server: ServerProcess;
  let victim: string;
  let instituteId: number;

  before(async () => {
    fresh = await freshDatabase('sqlite');
    // The shipped defaults (readers, threadpool), a statement bound long enough for the lists to hold their connections.
    server = await startServerProcess({ ...fresh.env, QUERY_TIMEOUT: '6s', LOG_LEVEL: 'warn' });
    instituteId = await seed(fresh);
    const authenticated = await firstId(server, '/api/role?filters[name][$eq]=authenticated');
    victim = (await createUserOver(server, 'victim', [authenticated])).accessToken;
  });
  after(async () => {
    server?.kill('SIGKILL');
    await server?.exited;
    await fresh?.drop();
  });

  it('another caller’s FindOne answers within a second while one caller keeps 6 costly lists running', async () => {
    const probe = await send(server.url, { kind: 'costly', method: 'GET', path: COSTLY }, 30_000);
    expect(probe.status, 'the costly list runs (or is stopped by QUERY_TIMEOUT)').to.be.oneOf([200, 504]);
    expect(probe.ms, 'the costly list takes long enough to hold a connection').to.be.greaterThan(1000);

    const end = Date.now() + ATTACK_MS;
    const attacker = async (): Promise<number> => {
      let sent = 0;
      while (Date.now() < end) {
        await send(server.url, { kind: 'costly', method: 'GET', path: COSTLY }, 30_000);
        sent += 1;
      }
      return sent;
    };
    const attacks = Array.from({ length: 6 }, attacker);
    await new Promise((r) => setTimeout(r, 500)); // the six are running
    const waits: number[] = [];
    const statuses: number[] = [];
    while (Date.now() < end - 500) {
      const t0 = performance.now();
      const r = await fetch(`${server.url}/api/institute/${instituteId}`, { headers: { authorization: `Bearer ${victim}` } });
      await r.arrayBuffer();
      statuses.push(r.status);
      waits.push(performance.now() - t0);
      await new Promise((res) => setTimeout(res, 100));
    }
    await Promise.all(attacks);
    figures('sqlite-slow-reads', { costlyMs: Math.round(probe.ms), victimCalls: waits.length, p50: percentile(waits, 50), max: Math.max(...waits) });
    expect(statuses.every((s) => s === 200), `statuses ${statuses.join(',')}`).to.equal(true);
    expect(waits.length).to.be.greaterThan(5);
    expect(Math.max(...waits), `victim waits: ${waits.map((w) => w.toFixed(0)).join(', ')}`).to.be.lessThan(1000);
  });
});
