/**
 * The identity keys (usernameKey, emailKey, mobileKey: trimmed, lower-cased / digits-only) are what
 * sign-in, registration and OTP look accounts up by, and their unique indexes are what keeps two accounts
 * from sharing a name in another case. The record API writes users too (POST, bulk, PATCH, PUT; JSON or
 * multipart) but knows nothing of keys, so the plugin's before hooks (hooks.ts) put them into the write's
 * own data: they go into its INSERT or UPDATE, inside its transaction. A name another account holds is
 * refused before the write (409, as registration answers); under a race the unique index decides (409 too,
 * naming the field: YAML `keyOf`). Without that, `Bob` could sit beside `bob`, and a renamed account kept
 * signing in by its old name.
 */
import type { Knex } from 'knex';
import { ConflictError } from '../../errors/errors';
import type { IdentityStore, UserRow } from './store';
import { type IdentifierType, normalize, normalizeMobile } from './util';

const KEYS: readonly (readonly [IdentifierType, string])[] = [
  ['username', 'usernameKey'],
  ['email', 'emailKey'],
  ['mobile', 'mobileKey'],
];

/** An identifier's key, null for none (null, or blank). */
export function identityKey(field: IdentifierType, value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const key = field === 'mobile' ? normalizeMobile(value) : normalize(value);
  return key === '' ? null : key;
}

/**
 * Sets in `data` (a before hook's, changed in place) the key of each identifier the write gives: those it
 * names, or all three on a PUT (which clears what it leaves out). 409 when another account than `selfId`
 * holds one of them, read in the write's transaction (so an earlier item of the same bulk call counts).
 */
export async function putIdentityKeys(store: IdentityStore, trx: Knex.Transaction, data: Record<string, unknown>, selfId: number | null, put: boolean): Promise<void> {
  const taken: IdentifierType[] = [];
  for (const [field, keyField] of KEYS) {
    if (!put && selfId !== null && !(field in data)) continue;
    const key = identityKey(field, data[field]);
    data[keyField] = key;
    if (key === null) continue;
    const holder = await store.userBy(field, key, trx);
    if (holder && holder.id !== selfId) taken.push(field);
  }
  if (taken.length) throw new ConflictError(`${taken.join(', ')} already taken`, { fields: Object.fromEntries(taken.map((f) => [f, ['is already taken']])) });
}

const VERIFIED: readonly (readonly ['email' | 'mobile', 'emailVerified' | 'mobileVerified'])[] = [
  ['email', 'emailVerified'],
  ['mobile', 'mobileVerified'],
];

/**
 * A write that changes the e-mail or mobile (compared by key: another case or spelling is the same
 * address) un-verifies it, unless the write sets that flag itself: a new address is not proven yet.
 */
export function unverifyChanged(data: Record<string, unknown>, before: UserRow): void {
  for (const [field, flag] of VERIFIED) {
    if (!(field in data) || flag in data) continue;
    if (identityKey(field, data[field]) !== identityKey(field, before[field])) data[flag] = false;
  }
}
