/**
 * One Server-Sent Events connection: a bounded queue of events for it, a pump that turns each into a
 * frame (or nothing, when the caller may not see it) and writes it, heartbeats, and the end.
 *
 * A client that reads slower than events come is dropped, never buffered without bound: the pump
 * waits for the socket to drain when a write is refused, events meanwhile wait in the queue, and a
 * queue past REALTIME_QUEUE_MAX events, or past REALTIME_QUEUE_MAX_BYTES bytes of records, while the
 * socket has taken nothing for SLOW_MS (1 s) ends the connection (the client reconnects with
 * Last-Event-ID). A burst (a bulk write of hundreds of records) outruns every stream for a moment: a
 * stream still reading may hold up to BURST × either bound.
 * Live events are gathered for REALTIME_FLUSH (20 ms) and written together: one write per stream and
 * window, not one per stream and event.
 *
 * A stream whose client has gone does no more work: the pump, the backlog (service.ts) and the render
 * look at `closed` before every event, so only the statement in flight finishes. `onEnd` (which gives
 * the stream's place under REALTIME_MAX_CONNECTIONS back) runs once that work has stopped, not when the
 * socket closes: a client that hangs up and reconnects at once cannot pile up streams still working.
 */
import type { ServerResponse } from 'node:http';
import type { StoredEvent } from '../events/types';

/** core/http/server.ts emits this on every response in flight when a shutdown begins. */
import { DRAINING_EVENT as DRAINING } from '../http/server';

/** How far past REALTIME_QUEUE_MAX a burst may run while the socket is still taking data. */
export const BURST = 10;
/** Frames gathered into one write, at most about this many characters. */
const BATCH_CHARS = 64 * 1024;
/** A socket that has refused data this long (with a full queue) belongs to a slow client. */
export const SLOW_MS = 1000;

export interface StreamOptions {
  readonly queueMax: number;
  /** Bytes of the queued events (`eventBytes`) past which a slow client is dropped (REALTIME_QUEUE_MAX_BYTES). */
  readonly queueMaxBytes: number;
  readonly heartbeatMs: number;
  /** Live events within this window go out in one write (REALTIME_FLUSH; 0: each at once). */
  readonly flushMs: number;
}

/** An SSE frame: `id`, `event` and one `data` line of JSON (JSON text has no raw newline). */
export function frame(id: number | null, event: string, data: unknown): string {
  return `${id === null ? '' : `id: ${id}\n`}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** What an event weighs in a stream's queue: its record as JSON, in UTF-8 bytes (reckoned once per event, for every stream). */
const weights = new WeakMap<StoredEvent, number>();
export function eventBytes(e: StoredEvent): number {
  let n = weights.get(e);
  if (n === undefined) {
    n = e.record === null ? 0 : Buffer.byteLength(JSON.stringify(e.record));
    weights.set(e, n);
  }
  return n;
}

export class SseStream {
  private readonly queue: StoredEvent[] = [];
  /** `eventBytes` of the events in `queue`. */
  private queuedBytes = 0;
  private pumping = false;
  private waitingDrain = false;
  /** When the socket last refused a write (null: it takes data). */
  private waitingSince: number | null = null;
  private ended = false;
  /** Why the stream ended (given to onEnd once its work has stopped). */
  private endReason = '';
  /** A heartbeat's re-authentication is running. */
  private beating = false;
  /** onEnd has run. */
  private settled = false;
  private readonly heartbeat: NodeJS.Timeout;
  /** The pending flush of live events (REALTIME_FLUSH), null: none scheduled. */
  private flushTimer: NodeJS.Timeout | null = null;
  /** Ids already written (by the backlog); live events with these ids are skipped. */
  private readonly sent = new Set<number>();
  private backlog: (() => Promise<void>) | null = null;
  /** The highest id the backlog wrote: once a live event passes it, the hub has caught up. */
  private backlogMax = 0;

  constructor(
    private readonly res: ServerResponse,
    private readonly opts: StreamOptions,
    /** The event as this caller sees it: a frame, or null (not for this caller). */
    private readonly render: (e: StoredEvent) => Promise<string | null>,
    /** Runs on every heartbeat (re-authentication); a throw ends the stream with its frame. */
    private readonly onBeat: () => Promise<string | null>,
    /** The stream has ended and its work (pump, backlog, heartbeat) has stopped. */
    private readonly onEnd: (reason: string) => void,
  ) {
    res.once('close', () => this.end('client closed'));
    res.once(DRAINING, () => this.end('server shutting down'));
    this.heartbeat = setInterval(() => void this.beat(), opts.heartbeatMs);
    this.heartbeat.unref();
  }

  /** The client is gone or the stream was ended: do no more work for it. */
  get closed(): boolean {
    return this.ended;
  }

  /** Ended and its work stopped (its place given back). */
  get stopped(): boolean {
    return this.settled;
  }

  /** Sends the headers and the first lines; `backlog` writes the missed events before any live one. */
  open(backlog: (() => Promise<void>) | null): void {
    // The client hung up while the stream was being set up: its 'close' has been and gone.
    if (this.res.destroyed) return this.end('client closed');
    this.res.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-cache, no-transform',
      Connection: 'keep-alive',
      'X-Accel-Buffering': 'no',
    });
    this.res.flushHeaders();
    // `retry`: EventSource waits this long before reconnecting (with Last-Event-ID).
    this.res.write(': connected\nretry: 2000\n\n');
    this.backlog = backlog;
    this.pump();
  }

  /** Writes a backlog event (the resume phase) and remembers its id. */
  async writeBacklog(e: StoredEvent): Promise<void> {
    if (this.ended) return;
    this.sent.add(e.id);
    this.backlogMax = Math.max(this.backlogMax, e.id);
    const f = await this.render(e);
    if (f !== null && !this.ended) await this.write(f);
  }

  /** A live event for this stream (synchronous: the hub is never held up by a slow connection). */
  push(e: StoredEvent): void {
    if (this.ended) return;
    // Slow: the queue is full and the socket has taken nothing for SLOW_MS. A burst (a bulk write)
    // outruns every stream for a moment, so only BURST × the bound drops a stream that is still reading.
    const full = this.queue.length >= this.opts.queueMax;
    const stuck = this.waitingSince !== null && Date.now() - this.waitingSince >= SLOW_MS;
    if (full && (stuck || this.queue.length >= this.opts.queueMax * BURST)) {
      this.end(`slow client: more than ${this.queue.length} events waiting (REALTIME_QUEUE_MAX ${this.opts.queueMax})`, true);
      return;
    }
    // The same in bytes: a few large records weigh more than many small ones. One event always finds
    // room in an empty queue (a record larger than the bound alone would otherwise never go out).
    const bytes = this.queuedBytes + eventBytes(e);
    if (this.queue.length > 0 && bytes > this.opts.queueMaxBytes && (stuck || bytes > this.opts.queueMaxBytes * BURST)) {
      this.end(`slow client: more than ${this.queuedBytes} bytes of events waiting (REALTIME_QUEUE_MAX_BYTES ${this.opts.queueMaxBytes})`, true);
      return;
    }
    this.queue.push(e);
    this.queuedBytes = bytes;
    // Events of the next REALTIME_FLUSH go out with this one, in one write: with many streams and a
    // steady stream of writes, one syscall per event and stream was most of what a listener cost.
    if (this.opts.flushMs <= 0) this.pump();
    else this.flushTimer ??= setTimeout(() => {
      this.flushTimer = null;
      this.pump();
    }, this.opts.flushMs);
  }

  /** Ends the stream; `event` (a frame) is written first when the socket takes it. */
  end(reason: string, destroy = false, last: string | null = null): void {
    if (this.ended) return;
    this.ended = true;
    this.endReason = reason;
    clearInterval(this.heartbeat);
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.queue.length = 0;
    this.queuedBytes = 0;
    if (destroy) this.res.destroy();
    else {
      if (last !== null && !this.res.destroyed) this.res.write(last);
      this.res.end();
    }
    this.settle();
  }

  /** onEnd, once the stream has ended and nothing of it runs any more (a render or check in flight finishes first). */
  private settle(): void {
    if (!this.ended || this.pumping || this.beating || this.settled) return;
    this.settled = true;
    this.onEnd(this.endReason);
  }

  private async beat(): Promise<void> {
    if (this.ended || this.beating) return;
    this.beating = true;
    try {
      const last = await this.onBeat();
      if (last !== null) return this.end('credentials no longer valid', false, last);
    } catch {
      return this.end('heartbeat failed', true);
    } finally {
      this.beating = false;
      this.settle();
    }
    if (!this.waitingDrain && !this.ended) this.res.write(': heartbeat\n\n');
  }

  private write(text: string): Promise<void> {
    if (this.ended || this.res.destroyed) return Promise.resolve();
    if (this.res.write(text)) return Promise.resolve();
    this.waitingDrain = true;
    this.waitingSince = Date.now();
    return new Promise((resolve) => {
      const done = (): void => {
        this.waitingDrain = false;
        this.waitingSince = null;
        this.res.off('drain', done);
        this.res.off('close', done);
        resolve();
      };
      this.res.on('drain', done);
      this.res.on('close', done);
    });
  }

  private pump(): void {
    if (this.pumping || this.ended) return;
    this.pumping = true;
    void this.run().finally(() => {
      this.pumping = false;
      if (this.ended) this.settle();
      else if (this.queue.length > 0) this.pump();
    });
  }

  private async run(): Promise<void> {
    try {
      if (this.backlog) {
        const b = this.backlog;
        this.backlog = null;
        await b();
      }
      // Frames of the events at hand go out in one write (a burst is one syscall, not one per event).
      let pending = '';
      while (!this.ended && this.queue.length > 0) {
        const e = this.queue.shift() as StoredEvent;
        this.queuedBytes -= eventBytes(e);
        if (this.sent.has(e.id)) continue;
        if (this.sent.size > 0 && e.id > this.backlogMax) this.sent.clear();
        const f = await this.render(e);
        if (this.ended) break;
        if (f !== null) pending += f;
        if (pending.length >= BATCH_CHARS || this.queue.length === 0) {
          const text = pending;
          pending = '';
          if (text !== '') await this.write(text);
        }
      }
    } catch (err) {
      // A failed render (the database away, credentials gone): the client reconnects with Last-Event-ID.
      const last = err instanceof RenderEnd ? err.frame : null;
      this.end(err instanceof RenderEnd ? err.reason : 'failed to render an event', last === null, last);
    }
  }
}

/** Thrown by a render to end the stream with a last frame (credentials no longer valid). */
export class RenderEnd extends Error {
  constructor(readonly reason: string, readonly frame: string) {
    super(reason);
  }
}
