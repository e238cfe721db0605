/**
 * Delivers committed outbox events to in-process subscribers, on every node: it reads the outbox after
 * the last id it has seen when poked (this node committed), signalled (another node did) or every
 * EVENTS_POLL_INTERVAL (a lost signal). PostgreSQL hands out ids before commit, so a later id can commit
 * first: an id skipped over is a gap, read again until it appears or EVENTS_GAP_WAIT has passed (its
 * transaction rolled back). So each committed event reaches each subscriber once, nearly in id order.
 */
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { latestEventId, readAfter, readIds } from './outbox';
import type { EventSignal } from './signal';
import type { StoredEvent } from './types';

export type EventListener = (event: StoredEvent) => void | Promise<void>;

export interface HubOptions {
  readonly pollMs: number;
  readonly gapWaitMs: number;
  /** Events read per round (a burst is read in several rounds, at once). */
  readonly batch?: number;
}

export class EventHub {
  private readonly listeners = new Set<EventListener>();
  private cursor: number | null = null;
  /** Ids skipped over → when first seen missing. */
  private readonly gaps = new Map<number, number>();
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private again = false;
  private closed = false;

  constructor(
    private readonly db: Knex,
    private readonly signal: EventSignal,
    private readonly opts: HubOptions,
    private readonly log: Logger,
  ) {}

  /** Committed events from now on (each once, on this node); returns the unsubscribe function. */
  subscribe(listener: EventListener): () => void {
    this.listeners.add(listener);
    this.start();
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size === 0) this.stop();
    };
  }

  /** Read now (this node committed, or a signal arrived). */
  poke(): void {
    if (this.closed || this.listeners.size === 0) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.drain().finally(() => {
      this.running = null;
      if (this.again) {
        this.again = false;
        this.poke();
      }
    });
  }

  /**
   * Resolves once every committed event up to `id` has been handed to the subscribers (the hub read now
   * if it lags: another node's write whose signal has not arrived). A new consumer that starts after
   * `id` then gets none of those live. Gives up after a few reads (the database away): best effort.
   */
  async caughtUp(id: number): Promise<void> {
    for (let tries = 0; tries < 3 && !this.closed && this.listeners.size > 0; tries++) {
      await this.settled();
      if (this.cursor !== null && this.cursor >= id) return;
      this.poke();
      await this.settled();
      if (this.cursor !== null && this.cursor >= id) return;
    }
  }

  /** Resolves once the read in progress (if any) is over: tests and shutdown. */
  async settled(): Promise<void> {
    while (this.running) await this.running;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.stop();
    await this.settled();
  }

  private start(): void {
    if (this.timer || this.closed) return;
    this.signal.listen(() => this.poke());
    this.timer = setInterval(() => this.poke(), this.opts.pollMs);
    this.timer.unref();
    this.poke();
  }

  private stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.cursor = null; // a later subscriber starts from the events committed after it subscribed
    this.gaps.clear();
  }

  private async drain(): Promise<void> {
    try {
      if (this.cursor === null) {
        this.cursor = await latestEventId(this.db);
        return;
      }
      const batch = this.opts.batch ?? 500;
      const late = await readIds(this.db, [...this.gaps.keys()]);
      for (const e of late) this.gaps.delete(e.id);
      const now = Date.now();
      for (const [id, since] of this.gaps) if (now - since > this.opts.gapWaitMs) this.gaps.delete(id);
      let fresh = await readAfter(this.db, this.cursor, batch);
      await this.deliver(late);
      while (fresh.length > 0) {
        for (const e of fresh) {
          for (let id = (this.cursor ?? 0) + 1; id < e.id; id++) this.gaps.set(id, now);
          this.cursor = e.id;
        }
        await this.deliver(fresh);
        if (fresh.length < batch || this.cursor === null) break;
        fresh = await readAfter(this.db, this.cursor, batch);
      }
    } catch (err) {
      this.log.warn({ err }, 'events: reading the outbox failed; retrying at the next poll');
    }
  }

  private async deliver(events: readonly StoredEvent[]): Promise<void> {
    for (const e of events) {
      for (const l of [...this.listeners]) {
        try {
          await l(e);
        } catch (err) {
          this.log.warn({ err, eventId: e.id }, 'events: a subscriber failed on an event');
        }
      }
    }
  }
}
