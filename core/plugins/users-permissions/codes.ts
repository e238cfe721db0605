/**
 * One-time codes: 6-digit OTPs and reset tokens, stored only as keyed hashes (HMAC with the server
 * secret, so a leaked table does not give 6-digit codes away). Single use, expiring, and dead after
 * MAX_ATTEMPTS wrong tries; attempts are counted atomically BEFORE comparing, so parallel guesses gain nothing.
 * The codes one request sends (one per source) form a batch: it is proven only when a right guess spent
 * each of them (`proven_at`); one that died, expired or was replaced unproven fails the whole batch.
 */
import { createHmac } from 'node:crypto';
import type { Knex } from 'knex';
import type { IdentityStore } from './store';
import { later, nowIso, randomSecret, sameHash, sixDigits, type Source, timeOf } from './util';

export const MAX_ATTEMPTS = 5;
export type Purpose = 'register' | 'login' | 'reset';

export interface CodeRow {
  readonly id: number;
  readonly userId: number;
  readonly channel: Source;
  readonly batch: string;
}

interface RawCode {
  id: number;
  user_id: number;
  channel: Source;
  batch: string;
  code_hash: string;
  attempts: number;
  expires_at: unknown;
  used_at: unknown;
  proven_at: unknown;
}

/**
 * Where a batch stands: the channels whose codes still wait for their right guess, and whether it can no
 * longer be proven whole (a code of it died after MAX_ATTEMPTS wrong tries, expired, or was replaced
 * by a newer one before a right guess spent it).
 */
export interface BatchState {
  readonly open: readonly Source[];
  readonly failed: boolean;
}

const toRow = (r: RawCode): CodeRow => ({ id: Number(r.id), userId: Number(r.user_id), channel: r.channel, batch: r.batch });

export class Codes {
  constructor(private readonly store: IdentityStore, private readonly pepper: string) {}

  private get db(): Knex {
    return this.store.db;
  }

  hash(secret: string): string {
    return createHmac('sha256', this.pepper).update(secret, 'utf8').digest('hex');
  }

  /** A new code (replacing earlier unused ones of the same user, purpose and channel); answers the plain secret. */
  async issue(userId: number, purpose: Purpose, channel: Source, batch: string, ttlSeconds: number): Promise<string> {
    const secret = purpose === 'reset' ? randomSecret() : sixDigits();
    const now = nowIso();
    await this.db.transaction(async (trx) => {
      await trx(this.store.codes).where({ user_id: userId, purpose, channel }).whereNull('used_at').update({ used_at: now, updated_at: now });
      await trx(this.store.codes).insert({ created_at: now, updated_at: now, user_id: userId, purpose, channel, batch, code_hash: this.hash(secret), attempts: 0, expires_at: later(ttlSeconds) });
    });
    return secret;
  }

  /** Checks a 6-digit guess against the user's live codes; the matching code is spent. */
  async consume(userId: number, purpose: Purpose, channel: Source | null, guess: string): Promise<CodeRow | null> {
    const q = this.db(this.store.codes).where({ user_id: userId, purpose }).whereNull('used_at').where('attempts', '<', MAX_ATTEMPTS);
    if (channel) q.where('channel', channel);
    const candidates = (await q.orderBy('id', 'desc')) as RawCode[];
    const hashed = this.hash(guess);
    for (const c of candidates) {
      // Count the attempt first; when 5 are already counted the code is dead.
      const counted = await this.db(this.store.codes).where('id', c.id).whereNull('used_at').where('attempts', '<', MAX_ATTEMPTS).increment('attempts', 1);
      if (counted === 0) continue;
      if (timeOf(c.expires_at) <= Date.now()) continue;
      if (!sameHash(c.code_hash, hashed)) continue;
      if (await this.spend(c.id)) return toRow(c);
    }
    return null;
  }

  /**
   * A reset token (256 bits: guessing is hopeless, so no attempt counter) → its live code, spent, when
   * `accept` (given the account it was issued to) says the request may use it; a refused request leaves
   * the token as it was, so a mistyped name does not cost the owner their reset.
   */
  async consumeToken(purpose: Purpose, token: string, accept: (userId: number) => Promise<boolean>): Promise<CodeRow | null> {
    const c = (await this.db(this.store.codes).where({ purpose, code_hash: this.hash(token) }).whereNull('used_at').first()) as RawCode | undefined;
    if (!c || timeOf(c.expires_at) <= Date.now() || !(await accept(Number(c.user_id)))) return null;
    return (await this.spend(c.id)) ? toRow(c) : null;
  }

  /** The state of `batch` (see BatchState). */
  async batchState(batch: string): Promise<BatchState> {
    return stateOf((await this.db(this.store.codes).where('batch', batch).select('channel', 'attempts', 'expires_at', 'used_at', 'proven_at')) as RawCode[]);
  }

  /** The state of the newest batch of `purpose` sent to user `userId`; null when none was. */
  async latestBatchState(userId: number, purpose: Purpose): Promise<BatchState | null> {
    const newest = (await this.db(this.store.codes).where({ user_id: userId, purpose }).orderBy('id', 'desc').first('batch')) as { batch: string } | undefined;
    return newest ? this.batchState(newest.batch) : null;
  }

  async voidAll(userId: number, purpose: Purpose): Promise<void> {
    await this.db(this.store.codes).where({ user_id: userId, purpose }).whereNull('used_at').update({ used_at: nowIso(), updated_at: nowIso() });
  }

  /** Ends the live codes of every purpose sent to the user's `channel` (that address changed: they went to the old one). */
  async voidSentTo(userId: number, channel: Source): Promise<void> {
    await this.db(this.store.codes).where({ user_id: userId, channel }).whereNull('used_at').update({ used_at: nowIso(), updated_at: nowIso() });
  }

  /** A right guess spends code `id` (once: false when it was spent or replaced meanwhile). */
  private async spend(id: number): Promise<boolean> {
    const now = nowIso();
    return (await this.db(this.store.codes).where('id', id).whereNull('used_at').update({ used_at: now, proven_at: now, updated_at: now })) === 1;
  }
}

function stateOf(rows: readonly RawCode[]): BatchState {
  const open: Source[] = [];
  let failed = false;
  for (const r of rows) {
    if (r.proven_at !== null) continue;
    if (r.used_at === null && Number(r.attempts) < MAX_ATTEMPTS && timeOf(r.expires_at) > Date.now()) open.push(r.channel);
    else failed = true;
  }
  return { open, failed };
}
