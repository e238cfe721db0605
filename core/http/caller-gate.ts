/**
 * One caller's share of the database (issue 13 item 1). A costly query holds a pooled connection for
 * up to QUERY_TIMEOUT; without a bound, one account sending a handful of them at once holds every
 * connection of the pool, and everyone else's reads and sign-ins wait for a slot until they answer 503.
 * So at most `running` record requests of one caller (its user id; without a token, its address) run at
 * once; up to `waiting` more wait in line for a turn (holding no connection), and past that the request
 * answers 429 at once. A caller can slow only itself down.
 *
 * A wait is bounded (`maxWaitMs`, then 503), and a line does not outlive an outage: when one of the
 * caller's requests fails because the database is unavailable, the requests waiting behind it answer
 * 503 at once instead of each taking a turn to fail in its own time (a hung database answers 503 within
 * its bound, not that bound times the length of the line), and so does a request that finds the line
 * full within OUTAGE_MS of it.
 */
import type { ServerResponse } from 'node:http';
import type { Middleware } from 'koa';
import type { Dialect } from '../../database/dialects/dialect';
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

/** How long after a request failed for an unavailable database a full line is taken as still out. */
const OUTAGE_MS = 1000;

interface Waiter {
  readonly turn: () => void;
  readonly fail: (e: Error) => void;
}

interface Lane {
  running: number;
  readonly queue: Waiter[];
  /** When a request of this lane last failed for an unavailable database (ms since epoch; 0: never). */
  outageAt: number;
}

const unavailable = (): ServiceUnavailableError => new ServiceUnavailableError('the database is unavailable; try again shortly');

/** The turns of every caller; a caller with nothing running or waiting holds no entry. */
export class CallerGate {
  private readonly lanes = new Map<string, Lane>();

  constructor(
    private readonly limits: CallerGateLimits,
    private readonly now: () => number = Date.now,
  ) {}

  /** Waits for a turn of `caller`; throws 429 when its line is full, 503 when no turn comes in time. Call `release` once after. */
  async acquire(caller: string): Promise<void> {
    let lane = this.lanes.get(caller);
    if (!lane) {
      lane = { running: 0, queue: [], outageAt: 0 };
      this.lanes.set(caller, lane);
    }
    if (lane.running < this.limits.running) {
      lane.running += 1;
      return;
    }
    if (this.now() - lane.outageAt < OUTAGE_MS) throw unavailable();
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
        queue.splice(queue.indexOf(waiter), 1);
        reject(
          new ServiceUnavailableError(
            `no turn within ${this.limits.maxWaitMs} ms: earlier requests of this caller are still running (settings CALLER_CONCURRENCY, CALLER_QUEUE_TIMEOUT); retry shortly`,
            { limit: 'callerConcurrency', setting: 'CALLER_QUEUE_TIMEOUT' },
          ),
        );
      }, this.limits.maxWaitMs);
      const waiter: Waiter = {
        turn: () => {
          clearTimeout(timer);
          resolve();
        },
        fail: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      };
      queue.push(waiter);
    });
  }

  /** Ends a turn of `caller`; `outage`: it failed because the database is unavailable. */
  release(caller: string, outage = false): void {
    const lane = this.lanes.get(caller);
    if (!lane) return;
    if (outage) {
      lane.outageAt = this.now();
      for (const w of lane.queue.splice(0)) w.fail(unavailable());
    }
    const next = lane.queue.shift();
    if (next) next.turn();
    else if (--lane.running === 0) this.forget(caller, lane);
  }

  /** Drops an idle lane; one with a recent outage stays until the outage is no longer recent. */
  private forget(caller: string, lane: Lane): void {
    const outageLeft = lane.outageAt + OUTAGE_MS - this.now();
    if (outageLeft <= 0) {
      this.lanes.delete(caller);
      return;
    }
    setTimeout(() => {
      if (this.lanes.get(caller) === lane && lane.running === 0) this.lanes.delete(caller);
    }, outageLeft).unref();
  }

  /** Callers with a request running or waiting (for tests and metrics). */
  get size(): number {
    return this.lanes.size;
  }
}

/**
 * What the gate takes for an outage: a 503 ServiceUnavailableError, or a driver error the dialect calls
 * `unavailable`. A write conflict (a deadlock, a serialization failure: 503 WriteConflictError) is none:
 * the database answers, and the caller's other requests have every chance.
 */
export function outageOf(dialect: Pick<Dialect, 'classifyError'>): (e: unknown) => boolean {
  return (e) => e instanceof ServiceUnavailableError || dialect.classifyError(e)?.kind === 'unavailable';
}

/**
 * The client is gone (or the answer already went): its `close` may have passed before anyone listened.
 * The request's socket, not the answer's: a pipelined request's answer has no socket until the one
 * before it is sent.
 */
export function answerGone(res: ServerResponse): boolean {
  return res.writableFinished || res.destroyed || res.req.socket.destroyed;
}

/**
 * The gate as middleware, after authentication: the caller is known by then. `isOutage` tells a failure
 * for an unavailable database (the dialect's classification of a driver error, or the 503 made of one).
 */
export function callerGate(limits: CallerGateLimits, isOutage: (e: unknown) => boolean): Middleware<RequestState> {
  const gate = new CallerGate(limits);
  return async (ctx, next) => {
    const actor = ctx.state.actor;
    const caller = actor ? (actor.apiToken ? `api-token:${actor.apiToken.id}` : `user:${actor.id}`) : `address:${ctx.state.clientIp}`;
    // The turn lasts until the request's work is done and its answer has been taken by the client (or its
    // connection is gone): an answer the client does not read stays in this process, so a caller holds at
    // most CALLER_CONCURRENCY of them (HTTP_SEND_TIMEOUT ends the wait). A client that goes away early
    // does not end the turn while the work goes on. The answer is watched from before the wait for a turn:
    // a client gone while its request waited in line has already closed its answer.
    let pending = 2;
    let outage = false;
    const end = (): void => {
      if (--pending === 0) gate.release(caller, outage);
    };
    let answered = false;
    const taken = (): void => {
      if (answered) return;
      answered = true;
      end();
    };
    ctx.res.once('finish', taken);
    ctx.res.once('close', taken);
    if (answerGone(ctx.res)) taken();
    await gate.acquire(caller);
    try {
      // Nobody is left to answer: the turn is not spent on the work.
      if (!answered) await next();
    } catch (e) {
      outage = isOutage(e);
      throw e;
    } finally {
      end();
    }
  };
}
