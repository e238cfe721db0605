/**
 * The turns of realtime's per-event filter checks (match.ts): at most REALTIME_CHECK_CONCURRENCY of
 * them hold a database connection at once, on this node, for all streams together. Realtime thus never
 * takes more than that share of the pool, whatever its streams' filters cost, and Find, FindOne and
 * writes keep the rest. A check waits for its turn in order (first come, first served); only the
 * stream that asked waits (the hub hands events on without waiting, service.ts).
 */
import type { Knex } from 'knex';

export class CheckGate {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(readonly limit: number) {
    if (!Number.isInteger(limit) || limit < 1) throw new Error(`CheckGate: limit must be a whole number of at least 1, got ${limit}`);
  }

  /** Checks holding a turn now (tests, metrics). */
  get busy(): number {
    return this.running;
  }

  /** Checks waiting for a turn. */
  get queued(): number {
    return this.waiting.length;
  }

  /** Runs `work` in a turn: at most `limit` run at once, the others wait in order. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.running >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.running += 1;
    try {
      return await work();
    } finally {
      // The turn passes straight to the next in line (running stays counted), or is given back.
      const next = this.waiting.shift();
      if (next) next();
      else this.running -= 1;
    }
  }
}

/**
 * The turns realtime may take on `db`: REALTIME_CHECK_CONCURRENCY, and never the whole pool (at most
 * its size less one, at least one), so a setting larger than the pool still leaves a connection to the rest.
 */
export function checkTurns(setting: number, db: Knex): number {
  const pool = poolMaxOf(db);
  return Math.max(1, pool === null ? setting : Math.min(setting, pool - 1));
}

/** The largest pool knex was given for `db` (null: not known). */
function poolMaxOf(db: Knex): number | null {
  const config: unknown = (db as { client?: { config?: unknown } }).client?.config;
  if (config === null || typeof config !== 'object') return null;
  const pool: unknown = (config as { pool?: unknown }).pool;
  if (pool === null || typeof pool !== 'object') return null;
  const max: unknown = (pool as { max?: unknown }).max;
  return typeof max === 'number' && Number.isFinite(max) && max > 0 ? max : null;
}
