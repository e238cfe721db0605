/**
 * A hung PostgreSQL (stopped processes, a network that drops packets) closes no socket and sends no
 * error: a query on an open connection would wait for the client-side query timeout, many seconds.
 * This watchdog notices a pooled connection held longer than `suspectMs`, then asks the server on a
 * fresh connection of its own (`probe`). A server that answers, even with an error, is alive: a slow
 * query is left to the statement timeout. A server that does not answer within the probe's time is
 * taken for hung: every pooled connection is cut (its socket destroyed), so the requests waiting on
 * them fail at once (503), and the pool makes new connections, which fail within the connect timeout
 * until the server answers again. PostgreSQL and MariaDB/MySQL need this; SQLite runs in the process.
 */

/** A pooled connection, as far as the watchdog needs one: something whose socket can be destroyed. */
export type PooledConnection = object;

/** The events of knex's (tarn) pool the watchdog listens to. */
export interface PoolEvents {
  on(event: 'createSuccess' | 'destroySuccess' | 'acquireSuccess', handler: (eventId: number, resource: PooledConnection) => void): void;
  on(event: 'release', handler: (resource: PooledConnection) => void): void;
}

export type ProbeResult = 'answered' | 'silent';

export interface LivenessOptions {
  /** A connection held this long makes the watchdog ask the server. */
  readonly suspectMs: number;
  /** Least time between two probes (a long query on a live server is probed this often). */
  readonly probeGapMs: number;
  /** How often held connections are looked at. */
  readonly tickMs: number;
}

export interface LivenessLog {
  warn(obj: object, msg: string): void;
}

/**
 * Destroys the socket under a node-postgres client. The pg Client keeps it at `connection.stream`
 * (unchanged since pg 1.x); with it gone the client fails its query ("Connection terminated") and
 * emits `end`, which makes knex discard it.
 */
export function destroySocket(client: PooledConnection): boolean {
  // node-postgres: `connection.stream`; a mysql2 Connection: `stream`.
  const stream = (client as { connection?: { stream?: unknown } }).connection?.stream ?? (client as { stream?: unknown }).stream;
  if (stream && typeof (stream as { destroy?: unknown }).destroy === 'function') {
    (stream as { destroy(): void }).destroy();
    return true;
  }
  return false;
}

const STEP_MS = 50;

/**
 * Waits for `work` up to `ms` of this process's *responsive* time: a 50 ms step counts only when the
 * event loop ran it on time. A loop held up by CPU work (many sign-ins hashing passwords at once) has
 * not been reading the server's answer, so that time does not count against the server; after `capMs`
 * of wall time the wait gives up as 'inconclusive' (never a reason to cut anything).
 */
export async function withinResponsiveTime<T>(work: Promise<T>, ms: number, capMs: number): Promise<{ done: T } | 'timeout' | 'inconclusive'> {
  let settled: { done: T } | { failed: unknown } | null = null;
  work.then(
    (done) => (settled = { done }),
    (failed: unknown) => (settled = { failed }),
  );
  const started = Date.now();
  let responsive = 0;
  for (;;) {
    const before = Date.now();
    await new Promise((r) => setTimeout(r, STEP_MS).unref());
    // Answers that arrived while this step waited are read in the poll phase before the next timer.
    await new Promise((r) => setImmediate(r));
    const s = settled as { done: T } | { failed: unknown } | null;
    if (s) {
      if ('failed' in s) throw s.failed;
      return s;
    }
    if (Date.now() - before < STEP_MS * 2) responsive += STEP_MS;
    if (responsive >= ms) return 'timeout';
    if (Date.now() - started >= capMs) return 'inconclusive';
  }
}

/** A running watchdog. */
export interface Liveness {
  /**
   * Whether the server is under suspicion: a probe is under way, or the last one found it silent (until
   * a later one hears it). A pool slot not had in time while this is false means a busy pool on a live
   * server, not a lost one (database/pool-busy.ts).
   */
  suspects(): boolean;
  stop(): void;
}

/** Starts watching `pool`. */
export function watchLiveness(pool: PoolEvents, probe: () => Promise<ProbeResult>, opts: LivenessOptions, log?: LivenessLog): Liveness {
  const all = new Set<PooledConnection>();
  const heldSince = new Map<PooledConnection, number>();
  let timer: NodeJS.Timeout | null = null;
  let probing = false;
  let lastProbeAt = 0;
  let silent = false;
  let stopped = false;

  const tick = (): void => {
    if (heldSince.size === 0 || all.size === 0) {
      if (timer) clearInterval(timer);
      timer = null;
      return;
    }
    const now = Date.now();
    const oldest = Math.min(...heldSince.values());
    if (probing || now - oldest < opts.suspectMs || now - lastProbeAt < opts.probeGapMs) return;
    probing = true;
    lastProbeAt = now;
    probe()
      .then((result) => {
        silent = result === 'silent';
        if (result === 'answered' || stopped) return;
        let cut = 0;
        for (const c of all) if (destroySocket(c)) cut += 1;
        log?.warn({ connections: cut, heldMs: Date.now() - oldest }, 'database does not answer: pooled connections cut');
      })
      .finally(() => {
        probing = false;
        lastProbeAt = Date.now();
      });
  };

  pool.on('createSuccess', (_id, c) => {
    all.add(c);
    // a connection made is a server that answers
    silent = false;
  });
  pool.on('destroySuccess', (_id, c) => {
    all.delete(c);
    heldSince.delete(c);
  });
  pool.on('acquireSuccess', (_id, c) => {
    heldSince.set(c, Date.now());
    if (!timer && !stopped) {
      timer = setInterval(tick, opts.tickMs);
      timer.unref();
    }
  });
  pool.on('release', (c) => heldSince.delete(c));
  return {
    suspects: () => probing || silent,
    stop() {
      stopped = true;
      if (timer) clearInterval(timer);
      timer = null;
    },
  };
}
