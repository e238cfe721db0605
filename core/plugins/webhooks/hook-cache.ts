/**
 * The enabled webhooks, kept in memory so that a write's fan-out costs no statement of its own (issue 17:
 * writes near their floor), yet as exact as a lookup in the write's transaction:
 * - every webhook change appends a `webhook` event (through the API, and the WEBHOOK_CONFIG_FILE diff a
 *   starting process applies: config-file.ts); the write's own outbox INSERT
 *   returns the count and newest id of those events (`events.versionProbe('webhook')`, evaluated in that statement: on
 *   any node, a committed change is seen as a lookup would see it) and a different answer reloads;
 * - on this node, a transaction writing a webhook turns the cache off until it ends, and its end
 *   (commit or rollback) empties it;
 * - a change without an event (a webhook row written by hand in SQL) applies within `maxAgeMs`
 *   (EVENTS_POLL_INTERVAL), the list's longest life.
 */
import type { Knex } from 'knex';
import type { Webhook, WebhookStore } from './store';

export class WebhookCache {
  private hooks: readonly Webhook[] | null = null;
  /** The version probe's answer the list was read under (null: none known). */
  private version: string | null = null;
  private loadedAt = 0;
  /** Bumped by every invalidation: a read that started before one is not kept. */
  private generation = 0;
  /** Transactions writing a webhook, not yet ended: the cache is off meanwhile. */
  private writing = 0;

  constructor(
    private readonly store: WebhookStore,
    private readonly maxAgeMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * The enabled webhooks, read through `db` (the write's transaction) when the cache cannot answer;
   * `version`: the version probe's answer of the write's outbox INSERT.
   */
  async enabled(db: Knex | Knex.Transaction, version: unknown): Promise<readonly Webhook[]> {
    const v = version === null || version === undefined ? null : String(version);
    if (this.hooks && this.writing === 0 && v !== null && v === this.version && this.now() - this.loadedAt < this.maxAgeMs) return this.hooks;
    const gen = this.generation;
    const at = this.now();
    const hooks = await this.store.enabledHooks(db);
    if (gen === this.generation && this.writing === 0) {
      this.hooks = hooks;
      this.version = v;
      this.loadedAt = at;
    }
    return hooks;
  }

  /**
   * No webhook is enabled, as far as a list read less than `maxAgeMs` ago says (no webhook write under
   * way here): no write can have made a delivery since, on this node or, within that age, on another.
   */
  knownEmpty(): boolean {
    return this.knownCount() === 0;
  }

  /**
   * How many webhooks are enabled, as a list read less than `maxAgeMs` ago says (no webhook write under
   * way here); null: not known now.
   */
  knownCount(): number | null {
    return this.hooks !== null && this.writing === 0 && this.now() - this.loadedAt < this.maxAgeMs ? this.hooks.length : null;
  }

  /** Drops the list (a webhook changed somewhere). */
  invalidate(): void {
    this.generation += 1;
    this.hooks = null;
    this.version = null;
  }

  /** `trx` writes a webhook: the cache is off until it ends, then emptied (whether it committed or not). */
  writingIn(trx: Knex.Transaction): void {
    this.writing += 1;
    this.invalidate();
    const ended = (): void => {
      this.writing -= 1;
      this.invalidate();
    };
    trx.executionPromise.then(ended, ended);
  }
}
