/** Password policy and bcrypt (async; cost from IAM_BCRYPT_COST). */
import bcrypt from 'bcryptjs';
import { PASSWORD_MAX_BYTES } from '../../registry/types';

export const PASSWORD_MIN_CHARS = 8;

/** The problems of a candidate password (empty: acceptable). */
export function passwordProblems(p: string): string[] {
  const out: string[] = [];
  if ([...p].length < PASSWORD_MIN_CHARS) out.push(`must be at least ${PASSWORD_MIN_CHARS} characters`);
  if (Buffer.byteLength(p, 'utf8') > PASSWORD_MAX_BYTES) out.push(`must be at most ${PASSWORD_MAX_BYTES} bytes`);
  return out;
}

export class Passwords {
  /** Compared against when the account does not exist, so both answers take about as long. */
  private readonly dummy: Promise<string>;

  constructor(private readonly cost: number) {
    this.dummy = bcrypt.hash('dummy-password-for-timing', cost);
  }

  hash(plain: string): Promise<string> {
    return bcrypt.hash(plain, this.cost);
  }

  /**
   * False for a missing hash, and for a password over PASSWORD_MAX_BYTES (bcrypt compares only the
   * first 72 bytes, so a longer one would match on its prefix: no such password was ever set), both
   * after the same amount of work as a real comparison.
   */
  async verify(plain: string, hash: string | null | undefined): Promise<boolean> {
    if (!hash || Buffer.byteLength(plain, 'utf8') > PASSWORD_MAX_BYTES) {
      await bcrypt.compare(plain, await this.dummy);
      return false;
    }
    return bcrypt.compare(plain, hash);
  }
}
