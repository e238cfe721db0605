/**
 * Sends deliveries from this node, POSTs each signed (Standard Webhooks), records the attempt, and
 * schedules a retry with exponential backoff and jitter until WEBHOOK_RETRY_FOR has passed, then marks
 * the delivery failed. Two ways in:
 * - handed off: the fan-out of a write on this node inserts its deliveries already leased to this node
 *   (`reserve`), and hands them over with their events and webhooks once the write commits (`handOff`):
 *   no claim, no read;
 * - claimed (store.claim): the rest (retries, deliveries waiting for an earlier one of their record,
 *   another node's, those of a node that died, a full queue here), looked for when one may be due: a
 *   fan-out committed pending ones (`look`), another node signalled a commit, an attempt failed, a
 *   retry's time came, and every WEBHOOK_POLL_INTERVAL while unfinished deliveries exist.
 */
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { WebhooksConfig } from '../../../config/schema';
import type { EventPipeline, StoredEvent } from '../../plugin-api';
import { backoffMs } from './backoff';
import { FinishBatch } from './finish-batch';
import type { WebhookCache } from './hook-cache';
import { keepAliveAgents, sendOnce, type Agents } from './send';
import { messageId, signedHeaders } from './signature';
import { recordKey, type AttemptLog, type Claimed, type Finish, type Webhook, type WebhookStore } from './store';

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
 * Deliveries held ahead of sending: up to this many times WEBHOOK_CONCURRENCY wait here, their lease
 * running (handed over by this node's writes, reserved for writes not yet committed, or claimed), so
 * that one claim, one read of their events and one of their webhooks serve many deliveries; a new claim
 * is made once no more than WEBHOOK_CONCURRENCY wait. One claim per delivery was three statements per
 * delivery on the writes' own connection (SQLite has one). Beyond it, writes leave their deliveries
 * pending, for a claim here or on another node. Of one webhook, up to this many times
 * WEBHOOK_CONCURRENCY_PER_HOOK (its share: a receiver that hangs fills no more of the node).
 */
export const CLAIM_AHEAD = 4;

interface Queued {
  /** When the claim's lease ends (ms). */
  readonly leaseEnds: number;
  readonly claimed: Claimed;
  readonly hook: Webhook | undefined;
  readonly event: StoredEvent | undefined;
  /** Handed off by this node's fan-out (not claimed). */
  readonly handed: boolean;
}

/** Room reserved for deliveries a write's fan-out inserts leased to this node (see `Dispatcher.reserve`). */
export interface DeliveryLease {
  readonly token: string;
  readonly until: Date;
  readonly count: number;
  /** The room given per webhook id (sums to `count`). */
  readonly perHook: ReadonlyMap<number, number>;
}

/** A delivery handed over after its write committed: already leased here, with its webhook and event. */
export interface Handed {
  readonly claimed: Claimed;
  readonly hook: Webhook;
  readonly event: StoredEvent;
}

export class Dispatcher {
  private running = 0;
  private timer: NodeJS.Timeout | null = null;
  /** Unfinished deliveries exist (claimed, pending or another node's): poll at WEBHOOK_POLL_INTERVAL; else slowly. */
  private armed = true;
  private idleChecked = false;
  /**
   * Pending deliveries may be due that nobody hands this node: a claim is worth its statement. Cleared
   * by a claim that found fewer than it had room for; set by whatever can make one due.
   */
  private claimable = true;
  /** Deliveries reserved by fan-outs whose transactions have not ended. */
  private reserved = 0;
  /** The same per webhook id. */
  private readonly reservedBy = new Map<number, number>();
  /** Deliveries being sent, per webhook id (at most WEBHOOK_CONCURRENCY_PER_HOOK each). */
  private readonly runningBy = new Map<number, number>();
  /**
   * Webhook and record (`recordKey`) of handed-off deliveries that a later delivery of the same record
   * waits for (inserted pending behind it here): when one is sent, that one is due, and a look claims it.
   */
  private readonly waitedFor = new Set<string>();
  private unsubscribe: (() => void) | null = null;
  private ticking = false;
  private again = false;
  private closed = false;
  private readonly inFlight = new Set<Promise<void>>();
  /** Deliveries handed over or claimed, not yet being sent (this node holds their lease). */
  private readonly queue: Queued[] = [];
  private readonly outcomes: FinishBatch;
  /** Connections to receivers kept open between deliveries (at most WEBHOOK_CONCURRENCY each way). */
  private readonly agents: Agents;

  constructor(
    private readonly store: WebhookStore,
    private readonly events: EventPipeline,
    private readonly config: WebhooksConfig,
    private readonly log: Logger,
    /** The enabled webhooks as the fan-out last read them: none (and nothing unfinished) → another node's signal needs no look. */
    private readonly hooks: WebhookCache | null = null,
  ) {
    this.outcomes = new FinishBatch(store);
    this.agents = keepAliveAgents(config.concurrency);
  }

  start(): void {
    if (this.unsubscribe || this.closed) return;
    // Woken by another node's signal, without reading the outbox (this node's writes hand their deliveries
    // over, or call `look`); with no webhook enabled and nothing unfinished there is nothing to claim (a
    // claim is a write: on SQLite one more turn of the writer lock per record write).
    this.unsubscribe = this.events.onWake(() => {
      if (this.armed || this.running > 0 || this.queue.length > 0 || !this.hooks?.knownEmpty()) this.look();
    });
    this.poke();
  }

  /** Pending deliveries may be due (committed here or elsewhere, or sent again by an admin): claim them. */
  look(): void {
    this.claimable = true;
    this.poke();
  }

  /**
   * Room for deliveries a write's fan-out inserts leased to this node (`wanted`: how many per webhook id),
   * sent as soon as the write commits; null (no room: at most WEBHOOK_CONCURRENCY × CLAIM_AHEAD wait here;
   * closing): they are inserted pending and claimed. A webhook gets room up to its share, as a claim gives
   * it (`heldCap`): its deliveries beyond are inserted pending (`DeliveryLease.perHook`). Every lease
   * given ends with `handOff` or `release`.
   */
  reserve(wanted: ReadonlyMap<number, number>): DeliveryLease | null {
    if (this.closed || !this.unsubscribe) return null;
    let count = 0;
    for (const n of wanted.values()) count += n;
    if (this.running + this.queue.length + this.reserved + count > this.config.concurrency * CLAIM_AHEAD) return null;
    const held = this.heldByHook();
    const perHook = new Map<number, number>();
    let given = 0;
    for (const [id, n] of wanted) {
      const room = Math.min(n, Math.max(0, this.heldCap() - (held.get(id) ?? 0)));
      if (room === 0) continue;
      perHook.set(id, room);
      this.reservedBy.set(id, (this.reservedBy.get(id) ?? 0) + room);
      given += room;
    }
    if (given === 0) return null;
    this.reserved += given;
    return { token: randomBytes(12).toString('hex'), until: new Date(Date.now() + this.config.leaseMs), count: given, perHook };
  }

  /**
   * Deliveries of one webhook this node sends at once: WEBHOOK_CONCURRENCY_PER_HOOK, or all of
   * WEBHOOK_CONCURRENCY while it is the only webhook enabled (as the fan-out's list, read less than
   * EVENTS_POLL_INTERVAL ago, says): the share keeps one webhook's receiver from holding up the others,
   * and with no other there is nobody to keep room for. A second webhook enabled anywhere reloads that
   * list at this node's next write (the outbox INSERT's version probe) or within its age.
   */
  private share(): number {
    return this.hooks?.knownCount() === 1 ? this.config.concurrency : this.config.concurrencyPerHook;
  }

  /** Deliveries of one webhook this node holds at most (being sent, waiting, reserved): its share of the room. */
  private heldCap(): number {
    return this.share() * CLAIM_AHEAD;
  }

  /** Deliveries held here per webhook id: being sent, waiting to be, reserved for writes not yet ended. */
  private heldByHook(): Map<number, number> {
    const held = new Map<number, number>();
    const add = (id: number, n: number): void => {
      if (n > 0) held.set(id, (held.get(id) ?? 0) + n);
    };
    for (const [id, n] of this.runningBy) add(id, n);
    for (const [id, n] of this.reservedBy) add(id, n);
    for (const q of this.queue) add(q.claimed.webhookId, 1);
    return held;
  }

  /** A lease's room is given back (its write ended). */
  private unreserve(lease: DeliveryLease): void {
    this.reserved -= lease.count;
    for (const [id, n] of lease.perHook) {
      const left = (this.reservedBy.get(id) ?? 0) - n;
      if (left > 0) this.reservedBy.set(id, left);
      else this.reservedBy.delete(id);
    }
  }

  /** Whether a delivery of webhook `id` may start now (fewer than its share of it are being sent). */
  private hookFree(id: number): boolean {
    return (this.runningBy.get(id) ?? 0) < this.share();
  }

  /**
   * The write committed: `handed` (inserted delivering under `lease`) are sent now; the rest of the room
   * is free again. `waiting`: `recordKey`s of the write's deliveries inserted pending behind an earlier
   * one of their record (this node looks for them when a handed-off one of that record is sent).
   */
  handOff(lease: DeliveryLease, handed: readonly Handed[], waiting: readonly string[]): void {
    this.unreserve(lease);
    for (const k of waiting) this.waitedFor.add(k);
    if (waiting.length > 0) {
      // and, should that look find them still waiting, the next one asks when they fall due (polls)
      this.idleChecked = false;
      this.look();
    }
    const leaseEnds = lease.until.getTime();
    for (const h of handed) this.queue.push({ leaseEnds, claimed: h.claimed, hook: h.hook, event: h.event, handed: true });
    this.send();
  }

  /** The write rolled back (or inserted nothing under `lease`): its room is free again. */
  release(lease: DeliveryLease): void {
    this.unreserve(lease);
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

  private poke(): void {
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
      // Enough claimed and waiting: the next claim when the queue runs low (a sent one pokes again). Those
      // of a webhook sending its share already do not count (they wait for it, not for a slot).
      if (this.queue.filter((q) => this.hookFree(q.claimed.webhookId)).length > this.config.concurrency) return;
      const room = this.config.concurrency * CLAIM_AHEAD - this.running - this.queue.length - this.reserved;
      if (room <= 0) return;
      const leaseEnds = Date.now() + this.config.leaseMs;
      this.claimable = false;
      // each webhook up to its share of what this node holds (a receiver that hangs fills no claim)
      const claimed = await this.store.claim(room, this.config.leaseMs, { perHook: this.heldCap(), held: this.heldByHook() });
      // a full claim may have left more behind
      if (claimed.length >= room) this.claimable = true;
      // The claimed deliveries' events and webhooks, one statement each (not one per delivery). The
      // webhooks are read now, not taken from the fan-out's list: one disabled or deleted a moment ago sends nothing.
      const events = new Map((await this.events.readIds(claimed.map((c) => c.eventId))).map((e) => [e.id, e]));
      const hooks = await this.store.hooksByIds(this.store.deps.db, claimed.map((c) => c.webhookId));
      if (claimed.length === 0 && this.running === 0 && this.queue.length === 0) {
        // Nothing to send now: when is the next thing due (a retry, another node's lease)? Nothing: idle.
        // An idle node woken by a commit that made no delivery stays idle without asking again.
        // No attempt here is under way or being recorded either, so no delivery here is waited for any more
        // (a key left by a delivery that finished before its follower's write committed goes).
        if (this.inFlight.size === 0) this.waitedFor.clear();
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
      for (const c of claimed) this.queue.push({ leaseEnds, claimed: c, hook: hooks.get(c.webhookId), event: events.get(c.eventId), handed: false });
      this.send();
    } catch (err) {
      this.armed = true;
      this.claimable = true;
      this.log.warn({ err }, 'webhooks: claiming deliveries failed; retrying at the next poll');
    } finally {
      this.schedule(dueAt);
    }
  }

  /**
   * Starts queued deliveries while fewer than WEBHOOK_CONCURRENCY are being sent, and fewer than
   * WEBHOOK_CONCURRENCY_PER_HOOK of their webhook: a delivery of a webhook at its share waits and those of
   * other webhooks behind it go first. A claim holds at most one delivery per webhook and record (the
   * claim skips those with an earlier one unfinished), so sending the queue's deliveries side by side, in
   * any order, keeps the order per record.
   */
  private send(): void {
    while (!this.closed && this.running < this.config.concurrency && this.queue.length > 0) {
      const now = Date.now();
      // A lease that could run out before the attempt does (receivers slow to WEBHOOK_TIMEOUT ahead of
      // it): not sent; it is claimed again when its lease ends, here or on another node (never twice at once).
      const i = this.queue.findIndex((q) => now + this.config.timeoutMs >= q.leaseEnds || this.hookFree(q.claimed.webhookId));
      if (i < 0) return;
      const { leaseEnds, claimed: c, hook, event, handed } = this.queue.splice(i, 1)[0];
      if (now + this.config.timeoutMs >= leaseEnds) {
        this.armed = true;
        this.claimable = true;
        continue;
      }
      this.running += 1;
      const hookId = c.webhookId;
      this.runningBy.set(hookId, (this.runningBy.get(hookId) ?? 0) + 1);
      // The sending slot is free once the attempt is over; its outcome is written with others
      // meanwhile (FinishBatch), and its end may make the record's next delivery due.
      let delivered = false;
      const p: Promise<void> = this.attempt(c, hook, event)
        .finally(() => {
          this.running -= 1;
          const left = (this.runningBy.get(hookId) ?? 0) - 1;
          if (left > 0) this.runningBy.set(hookId, left);
          else this.runningBy.delete(hookId);
          this.send();
        })
        .then((outcome) => {
          delivered = outcome.next.status === 'succeeded';
          return this.outcomes.finish(outcome);
        })
        .then(
          () => undefined,
          (err: unknown) => {
            delivered = false;
            this.log.warn({ err, delivery: c.id }, 'webhooks: a delivery attempt failed to run or be recorded; its lease will run out and it is tried again');
          },
        )
        .finally(() => {
          this.inFlight.delete(p);
          // A handed-off delivery sent at the first attempt leaves nothing to look for, unless a later
          // delivery of its record waits for it here (another node's waits for that node's next look).
          // Anything else may: a retry due later (the next look asks when, even if a look made while the
          // outcome was being written found nothing unfinished and went idle), more claimed work behind it.
          const waitedFor = event !== undefined && this.waitedFor.delete(recordKey(c.webhookId, event.model, event.recordId));
          if (handed && delivered && !this.claimable && !waitedFor) return;
          this.idleChecked = false;
          this.look();
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
    const headers = signedHeaders(hook.secret, messageId(c.id, event.time), Math.floor(now.getTime() / 1000), body);
    const result = await sendOnce(hook.url, headers, body, { timeoutMs: this.config.timeoutMs, allowHosts: this.config.allowHosts, agents: this.agents });
    const at = new Date();
    const attempt: AttemptLog = { at: at.toISOString(), status: result.status, durationMs: result.durationMs, error: result.error, response: result.response };
    if (result.ok) return { claimed: c, attempt, next: { status: 'succeeded', nextAttemptAt: null } };
    const next = new Date(at.getTime() + backoffMs(c.attemptCount + 1, this.config.backoffBaseMs, this.config.backoffMaxMs));
    const giveUp = next.getTime() > Date.parse(c.retryUntil);
    return { claimed: c, attempt, next: giveUp ? { status: 'failed', nextAttemptAt: null } : { status: 'pending', nextAttemptAt: next.toISOString() } };
  }
}
