/**
 * Sends due deliveries from this node: claims them (store.claim), POSTs each signed (Standard Webhooks),
 * records the attempt, and schedules a retry with exponential backoff and jitter until WEBHOOK_RETRY_FOR
 * has passed, then marks the delivery failed. Woken by every committed event (the event hub) and every
 * WEBHOOK_POLL_INTERVAL (retries fall due, another node's lease runs out).
 */
import type { Logger } from 'pino';
import type { WebhooksConfig } from '../../../config/schema';
import type { EventPipeline, StoredEvent } from '../../plugin-api';
import { backoffMs } from './backoff';
import { FinishBatch } from './finish-batch';
import type { WebhookCache } from './hook-cache';
import { keepAliveAgents, sendOnce, type Agents } from './send';
import { signedHeaders } from './signature';
import type { AttemptLog, Claimed, Finish, Webhook, WebhookStore } from './store';

/** The JSON body a receiver gets (Standard Webhooks' `type`, `timestamp`, `data`). */
export function deliveryBody(event: StoredEvent): string {
  return JSON.stringify({
    type: event.type,
    timestamp: event.time,
    data: { eventId: event.id, model: event.model, recordId: event.recordId, actor: event.actor, record: event.record },
  });
}

/**
 * How often an idle node (no unfinished delivery it knows of) looks anyway: for a node that died
 * mid-delivery while this one was idle. Without a cross-node signal (SQLite) another process's new
 * deliveries are found this way too, so it looks more often then.
 */
export const IDLE_POLL_MS = 30_000;
export const IDLE_POLL_NO_SIGNAL_MS = 2_000;

/**
 * Deliveries claimed ahead of sending: up to this many times WEBHOOK_CONCURRENCY wait claimed (their
 * lease running), so that one claim, one read of their events and one of their webhooks serve many
 * deliveries; a new claim is made once no more than WEBHOOK_CONCURRENCY wait. One claim per delivery
 * was three statements per delivery on the writes' own connection (SQLite has one).
 */
export const CLAIM_AHEAD = 4;

interface Queued {
  /** When the claim's lease ends (ms). */
  readonly leaseEnds: number;
  readonly claimed: Claimed;
  readonly hook: Webhook | undefined;
  readonly event: StoredEvent | undefined;
}

export class Dispatcher {
  private running = 0;
  private timer: NodeJS.Timeout | null = null;
  /** Unfinished deliveries exist (claimed, pending or another node's): poll at WEBHOOK_POLL_INTERVAL; else slowly. */
  private armed = true;
  private idleChecked = false;
  private unsubscribe: (() => void) | null = null;
  private ticking = false;
  private again = false;
  private closed = false;
  private readonly inFlight = new Set<Promise<void>>();
  /** Claimed deliveries not yet being sent (this node holds their lease). */
  private readonly queue: Queued[] = [];
  private readonly outcomes: FinishBatch;
  /** Connections to receivers kept open between deliveries (at most WEBHOOK_CONCURRENCY each way). */
  private readonly agents: Agents;

  constructor(
    private readonly store: WebhookStore,
    private readonly events: EventPipeline,
    private readonly config: WebhooksConfig,
    private readonly log: Logger,
    /** The enabled webhooks as the fan-out last read them: none (and nothing unfinished) → a commit needs no look. */
    private readonly hooks: WebhookCache | null = null,
  ) {
    this.outcomes = new FinishBatch(store);
    this.agents = keepAliveAgents(config.concurrency);
  }

  start(): void {
    if (this.unsubscribe || this.closed) return;
    // Woken by every commit (this node) and the event signal (other nodes), without reading the outbox;
    // with no webhook enabled and nothing unfinished there is nothing to claim (a claim is a write: on
    // SQLite one more turn of the writer lock per record write).
    this.unsubscribe = this.events.onWake(() => {
      if (this.armed || this.running > 0 || this.queue.length > 0 || !this.hooks?.knownEmpty()) this.poke();
    });
    this.poke();
  }

  /** The next unprompted look: soon while deliveries are unfinished, else every IDLE_POLL_MS (a node that died idle). */
  private schedule(dueAt: number | null): void {
    if (this.closed) return;
    if (this.timer) clearTimeout(this.timer);
    const idle = this.events.signalKind === 'none' ? IDLE_POLL_NO_SIGNAL_MS : IDLE_POLL_MS;
    const every = this.armed ? this.config.pollMs : Math.max(idle, this.config.pollMs);
    const delay = dueAt === null ? every : Math.max(5, Math.min(every, dueAt - Date.now() + 5));
    this.timer = setTimeout(() => this.poke(), delay);
    this.timer.unref();
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.unsubscribe?.();
    await Promise.allSettled([...this.inFlight]);
    this.agents.http.destroy();
    this.agents.https.destroy();
  }

  poke(): void {
    if (this.closed) return;
    if (this.ticking) {
      this.again = true;
      return;
    }
    this.ticking = true;
    void this.tick().finally(() => {
      this.ticking = false;
      if (this.again) {
        this.again = false;
        this.poke();
      }
    });
  }

  private async tick(): Promise<void> {
    let dueAt: number | null = null;
    try {
      // Enough claimed and waiting: the next claim when the queue runs low (a sent one pokes again).
      if (this.queue.length > this.config.concurrency) return;
      const room = this.config.concurrency * CLAIM_AHEAD - this.running - this.queue.length;
      if (room <= 0) return;
      const leaseEnds = Date.now() + this.config.leaseMs;
      const claimed = await this.store.claim(room, this.config.leaseMs);
      // The claimed deliveries' events and webhooks, one statement each (not one per delivery). The
      // webhooks are read now, not taken from the fan-out's list: one disabled or deleted a moment ago sends nothing.
      const events = new Map((await this.events.readIds(claimed.map((c) => c.eventId))).map((e) => [e.id, e]));
      const hooks = await this.store.hooksByIds(this.store.deps.db, claimed.map((c) => c.webhookId));
      if (claimed.length === 0 && this.running === 0 && this.queue.length === 0) {
        // Nothing to send now: when is the next thing due (a retry, another node's lease)? Nothing: idle.
        // An idle node woken by a commit that made no delivery stays idle without asking again.
        if (this.armed || !this.idleChecked) {
          const due = await this.store.nextDue();
          this.armed = due !== null;
          this.idleChecked = !this.armed;
          dueAt = due;
        }
      } else {
        this.armed = true;
        this.idleChecked = false;
      }
      for (const c of claimed) this.queue.push({ leaseEnds, claimed: c, hook: hooks.get(c.webhookId), event: events.get(c.eventId) });
      this.send();
    } catch (err) {
      this.armed = true;
      this.log.warn({ err }, 'webhooks: claiming deliveries failed; retrying at the next poll');
    } finally {
      this.schedule(dueAt);
    }
  }

  /**
   * Starts queued deliveries while fewer than WEBHOOK_CONCURRENCY are being sent. A claim holds at most
   * one delivery per webhook and record (the claim skips those with an earlier one unfinished), so
   * sending a claim's deliveries side by side keeps the order per record.
   */
  private send(): void {
    while (!this.closed && this.running < this.config.concurrency && this.queue.length > 0) {
      const { leaseEnds, claimed: c, hook, event } = this.queue.shift() as Queued;
      // A lease that could run out before the attempt does (receivers slow to WEBHOOK_TIMEOUT ahead of
      // it): not sent; it is claimed again when its lease ends, here or on another node (never twice at once).
      if (Date.now() + this.config.timeoutMs >= leaseEnds) continue;
      this.running += 1;
      // The sending slot is free once the attempt is over; its outcome is written with others
      // meanwhile (FinishBatch), and its end may make the record's next delivery due.
      const p: Promise<void> = this.attempt(c, hook, event)
        .finally(() => {
          this.running -= 1;
          this.send();
        })
        .then((outcome) => this.outcomes.finish(outcome))
        .then(
          () => undefined,
          (err: unknown) => this.log.warn({ err, delivery: c.id }, 'webhooks: a delivery attempt failed to run or be recorded; its lease will run out and it is tried again'),
        )
        .finally(() => {
          this.inFlight.delete(p);
          // The outcome may be a retry, due later: the next look asks when, even if a look made while it
          // was being written found nothing unfinished and went idle.
          this.idleChecked = false;
          this.poke(); // the next delivery of the same record may be due now
        });
      this.inFlight.add(p);
    }
  }

  /**
   * Sends claimed delivery `c` of `event` through `hook` (undefined: deleted, or no longer in the
   * outbox): the attempt to record and the delivery's next state.
   */
  private async attempt(c: Claimed, hook: Webhook | undefined, event: StoredEvent | undefined): Promise<Finish> {
    const now = new Date();
    if (!hook || !hook.enabled || !hook.secret || !event || event.id !== c.eventId) {
      const error = !hook ? 'the webhook was deleted' : !hook.enabled ? 'the webhook is disabled' : !hook.secret ? 'the webhook has no secret' : 'the event is no longer in the outbox';
      return { claimed: c, attempt: { at: now.toISOString(), status: null, durationMs: 0, error, response: null }, next: { status: 'failed', nextAttemptAt: null } };
    }
    const body = deliveryBody(event);
    const headers = signedHeaders(hook.secret, `msg_${c.id}`, Math.floor(now.getTime() / 1000), body);
    const result = await sendOnce(hook.url, headers, body, { timeoutMs: this.config.timeoutMs, allowHosts: this.config.allowHosts, agents: this.agents });
    const at = new Date();
    const attempt: AttemptLog = { at: at.toISOString(), status: result.status, durationMs: result.durationMs, error: result.error, response: result.response };
    if (result.ok) return { claimed: c, attempt, next: { status: 'succeeded', nextAttemptAt: null } };
    const next = new Date(at.getTime() + backoffMs(c.attemptCount + 1, this.config.backoffBaseMs, this.config.backoffMaxMs));
    const giveUp = next.getTime() > Date.parse(c.retryUntil);
    return { claimed: c, attempt, next: giveUp ? { status: 'failed', nextAttemptAt: null } : { status: 'pending', nextAttemptAt: next.toISOString() } };
  }
}
