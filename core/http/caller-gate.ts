/**
 * One caller's share of the database (issue 13 item 1). A costly query holds a pooled connection for
 * up to QUERY_TIMEOUT; without a bound, one account sending a handful of them at once holds every
 * connection of the pool, and everyone else's reads and sign-ins wait for a slot until they answer 503.
 * So at most `running` record requests of one caller (its user id; without a token, its address) run at
 * once; up to `waiting` more wait in line for a turn (holding no connection), and past that the request
 * answers 429 at once. A turn that does not come within `maxWaitMs` answers 503, as a request waiting
 * that long for a pooled connection would (while the database hangs, the earlier requests themselves
 * take that long to fail: the waiting ones must not add their time to it). A caller can slow only
 * itself down.
 */
import type { Middleware } from 'koa';
import { RateLimitedError, ServiceUnavailableError } from '../errors/errors';
import type { RequestState } from './state';

export interface CallerGateLimits {
  /** Requests of one caller that run at once (CALLER_CONCURRENCY). */
  readonly running: number;
  /** Requests of one caller that may wait for a turn beyond those (CALLER_QUEUE). */
  readonly waiting: number;
  /** Longest wait for a turn (CALLER_QUEUE_TIMEOUT), in milliseconds. */
  readonly maxWaitMs: number;
}

interface Lane {
  running: number;
  readonly queue: (() => void)[];
}

/** The turns of every caller; a caller with nothing running or waiting holds no entry. */
export class CallerGate {
  private readonly lanes = new Map<string, Lane>();

  constructor(private readonly limits: CallerGateLimits) {}

  /** Waits for a turn of `caller`; throws 429 when its line is full. Call `release` once after. */
  async acquire(caller: string): Promise<void> {
    let lane = this.lanes.get(caller);
    if (!lane) {
      lane = { running: 0, queue: [] };
      this.lanes.set(caller, lane);
    }
    if (lane.running < this.limits.running) {
      lane.running += 1;
      return;
    }
    if (lane.queue.length >= this.limits.waiting) {
      throw new RateLimitedError(
        `too many requests of this caller at once: ${this.limits.running} run and ${this.limits.waiting} wait (settings CALLER_CONCURRENCY, CALLER_QUEUE); retry when earlier ones have answered`,
        1,
        { limit: 'callerConcurrency', setting: 'CALLER_QUEUE' },
      );
    }
    // The turn passes from the request that ends straight to this one: `running` stays as it is.
    const queue = lane.queue;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        queue.splice(queue.indexOf(turn), 1);
        reject(
          new ServiceUnavailableError(
            `no turn within ${this.limits.maxWaitMs} ms: earlier requests of this caller are still running (settings CALLER_CONCURRENCY, CALLER_QUEUE_TIMEOUT); retry shortly`,
            { limit: 'callerConcurrency', setting: 'CALLER_QUEUE_TIMEOUT' },
          ),
        );
      }, this.limits.maxWaitMs);
      const turn = (): void => {
        clearTimeout(timer);
        resolve();
      };
      queue.push(turn);
    });
  }

  release(caller: string): void {
    const lane = this.lanes.get(caller);
    if (!lane) return;
    const next = lane.queue.shift();
    if (next) next();
    else if (--lane.running === 0) this.lanes.delete(caller);
  }

  /** Callers with a request running or waiting (for tests and metrics). */
  get size(): number {
    return this.lanes.size;
  }
}

/** The gate as middleware, after authentication: the caller is known by then. */
export function callerGate(limits: CallerGateLimits): Middleware<RequestState> {
  const gate = new CallerGate(limits);
  return async (ctx, next) => {
    const actor = ctx.state.actor;
    const caller = actor ? (actor.apiToken ? `api-token:${actor.apiToken.id}` : `user:${actor.id}`) : `address:${ctx.state.clientIp}`;
    await gate.acquire(caller);
    try {
      await next();
    } finally {
      gate.release(caller);
    }
  };
}
