/**
 * The turns of realtime's per-event filter checks (match.ts): at most REALTIME_CHECK_CONCURRENCY of
 * them hold a database connection at once, on this node, for all streams together. Realtime thus never
 * takes more than that share of the pool, whatever its streams' filters cost, and Find, FindOne and
 * writes keep the rest. Only the stream that asked waits (the hub hands events on without waiting,
 * service.ts).
 *
 * Turns are fair between callers: each caller (user, API token or address) waiting for a turn has a
 * line of its own, and a freed turn goes to the caller at the head of the rotation, which then moves to
 * its back. A caller whose streams ask for many checks (several streams, costly filters, a burst of
 * events) so delays its own events, not everyone's: another caller's check waits for at most one
 * check of each caller ahead of it. Within a caller's line, checks run in the order they were asked.
 */
import type { Knex } from 'knex';

export class CheckGate {
  private running = 0;
  private waitingCount = 0;
  /** Waiting checks per caller; the map's order is the rotation (head: the next to get a turn). */
  private readonly lines = new Map<string, (() => void)[]>();

  constructor(readonly limit: number) {
    if (!Number.isInteger(limit) || limit < 1) throw new Error(`CheckGate: limit must be a whole number of at least 1, got ${limit}`);
  }

  /** Checks holding a turn now (tests, metrics). */
  get busy(): number {
    return this.running;
  }

  /** Checks waiting for a turn. */
  get queued(): number {
    return this.waitingCount;
  }

  /** Runs `work` of `caller` in a turn: at most `limit` run at once, the others wait in their caller's line. */
  async run<T>(caller: string, work: () => Promise<T>): Promise<T> {
    if (this.running >= this.limit) {
      await new Promise<void>((resolve) => {
        const line = this.lines.get(caller);
        if (line) line.push(resolve);
        else this.lines.set(caller, [resolve]);
        this.waitingCount += 1;
      });
    } else {
      this.running += 1;
    }
    try {
      return await work();
    } finally {
      this.passTurn();
    }
  }

  /** The turn passes straight to the head of the rotation (running stays counted), or is given back. */
  private passTurn(): void {
    const head = this.lines.entries().next();
    if (head.done) {
      this.running -= 1;
      return;
    }
    const [caller, line] = head.value;
    const next = line.shift() as () => void;
    this.lines.delete(caller);
    if (line.length > 0) this.lines.set(caller, line); // to the back of the rotation
    this.waitingCount -= 1;
    next();
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
