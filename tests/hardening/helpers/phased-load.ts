/**
 * The load of the database fault scenarios: creates, bulk creates of BATCH records, lists and findOnes
 * from `workers` loops plus a /health/ready probe every 100 ms, each outcome labelled with the phase
 * the scenario was in when it started and when it ended; and the audit of what was written.
 */
import knex from 'knex';
import { type Outcome, runLoad, send } from './load';

export const BATCH = 3;

export interface ReadyProbe {
  /** Phase when the probe was sent. */
  readonly phase: string;
  /** Phase when it was answered. */
  readonly endPhase: string;
  readonly status: number | null;
  readonly ms: number;
}

export interface PhasedLoad {
  /** The phase requests started from now on belong to. */
  phase: string;
  /** Phase at start and at the end of a request. */
  phases(o: Outcome): { readonly start: string; readonly end: string };
  /** Stops the loops and the probe; every outcome and probe. */
  stop(): Promise<{ readonly outcomes: Outcome[]; readonly ready: ReadyProbe[] }>;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export function startPhasedLoad(url: string, instituteId: number, workers: number): PhasedLoad {
  let done = false;
  const ended = new Map<string, string>();
  const state: { phase: string } = { phase: 'up' };
  const load = runLoad({
    baseUrl: url,
    workers,
    until: () => done,
    next: (w, i) => {
      const r = i % 4;
      const phase = state.phase;
      if (r === 0) return { kind: 'create', method: 'POST', path: '/api/fee-type', body: { feeType: `f-${w}-${i}`, instituteId }, tag: { phase, names: [`f-${w}-${i}`] } };
      if (r === 1) {
        const names = Array.from({ length: BATCH }, (_, k) => `g-${w}-${i}-${k}`);
        return { kind: 'bulk', method: 'POST', path: '/api/fee-type/bulk', body: names.map((feeType) => ({ feeType, instituteId })), tag: { phase, names } };
      }
      if (r === 2) return { kind: 'list', method: 'GET', path: '/api/fee-type?limit=10&sort[0]=-id', tag: { phase } };
      return { kind: 'findOne', method: 'GET', path: `/api/institute/${instituteId}`, tag: { phase } };
    },
    onOutcome: (o) => ended.set(o.requestId, state.phase),
  });
  const ready: ReadyProbe[] = [];
  const probe = (async () => {
    while (!done) {
      const phase = state.phase;
      const o = await send(url, { kind: 'ready', method: 'GET', path: '/health/ready' });
      ready.push({ phase, endPhase: state.phase, status: o.status, ms: o.ms });
      await sleep(100);
    }
  })();
  return {
    get phase() {
      return state.phase;
    },
    set phase(p: string) {
      state.phase = p;
    },
    phases: (o) => ({ start: (o.tag as { phase: string }).phase, end: ended.get(o.requestId) ?? '?' }),
    async stop() {
      done = true;
      const outcomes = await load;
      await probe;
      return { outcomes, ready };
    },
  };
}

export interface WriteAudit {
  readonly writesAcknowledged: number;
  readonly recordsAcknowledged: number;
  /** Names of records answered 200 but missing. */
  readonly lost: readonly string[];
  readonly writesAnsweredError: number;
  /** Writes answered with an error of which some but not all records exist. */
  readonly halfPresent: number;
  /** Writes answered with an error that took effect anyway (allowed: the answer may be lost after a commit). */
  readonly fullyPresent: number;
}

/** Reads the fee_type names back from PostgreSQL or MariaDB at `dbUrl` and checks them against the write outcomes. */
export async function auditWrites(dbUrl: string, outcomes: readonly Outcome[]): Promise<WriteAudit> {
  const check = knex({ client: dbUrl.startsWith('mysql:') ? 'mysql2' : 'pg', connection: dbUrl, pool: { min: 0, max: 1 } });
  let present: Set<string>;
  try {
    present = new Set((await check('fee_type').select('fee_type')).map((r: { fee_type: string }) => r.fee_type));
  } finally {
    await check.destroy();
  }
  const writes = outcomes.filter((o) => o.kind === 'create' || o.kind === 'bulk');
  const names = (o: Outcome): string[] => (o.tag as { names: string[] }).names;
  const acked = writes.filter((o) => o.status === 200);
  const failed = writes.filter((o) => o.status !== 200);
  return {
    writesAcknowledged: acked.length,
    recordsAcknowledged: acked.flatMap(names).length,
    lost: acked.flatMap(names).filter((n) => !present.has(n)),
    writesAnsweredError: failed.length,
    halfPresent: failed.filter((o) => {
      const k = names(o).filter((n) => present.has(n)).length;
      return k !== 0 && k !== names(o).length;
    }).length,
    fullyPresent: failed.filter((o) => names(o).every((n) => present.has(n))).length,
  };
}
