/**
 * Watches every reply of the suite: none may carry a password the tests used, a bcrypt hash, or a
 * stored token/code hash (checked against the database when the suite ends).
 */
import { expect } from 'chai';
import type { Knex } from 'knex';
import { type Reply, replyObservers } from './http';

export class SecretWatch {
  readonly passwords = new Set<string>();
  private readonly texts: string[] = [];
  private readonly observer = (r: Reply, method: string, path: string): void => {
    this.texts.push(r.text);
    expect(r.text, `${method} ${path}`).to.not.match(/\$2[aby]\$\d\d\$/);
    for (const p of this.passwords) expect(r.text.includes(JSON.stringify(p).slice(1, -1)), `${method} ${path} carries a password`).to.equal(false);
  };

  start(): this {
    replyObservers.push(this.observer);
    return this;
  }

  /** Every stored hash (refresh tokens, codes, API tokens, passwords) must be absent from every reply seen. */
  async checkStoredHashes(db: Knex): Promise<number> {
    const hashes = [
      ...((await db('refresh_tokens').select('token_hash')) as { token_hash: string }[]).map((r) => r.token_hash),
      ...((await db('one_time_codes').select('code_hash')) as { code_hash: string }[]).map((r) => r.code_hash),
      ...((await db('api_tokens').select('token_hash')) as { token_hash: string }[]).map((r) => r.token_hash),
      ...((await db('users').whereNotNull('password').select('password')) as { password: string }[]).map((r) => r.password),
    ];
    const all = this.texts.join('\n');
    for (const h of hashes) expect(all.includes(h), 'a stored hash appeared in a response').to.equal(false);
    return hashes.length;
  }

  stop(): void {
    const i = replyObservers.indexOf(this.observer);
    if (i >= 0) replyObservers.splice(i, 1);
  }
}
