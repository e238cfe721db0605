/**
 * The identity keys (usernameKey, emailKey, mobileKey: trimmed, lower-cased / digits-only) are what
 * sign-in, registration and OTP look accounts up by, and their unique indexes are what keeps two accounts
 * from sharing a name in another case. The record API writes users too (POST, bulk, PATCH, PUT) but knows
 * nothing of keys, so this plugin checks a JSON body's identifiers against every other account's before
 * the write (409, as registration answers) and recomputes the written accounts' keys after it. Without
 * that, `Bob` could sit beside `bob`, and a renamed account kept signing in by its old name.
 */
import { ConflictError } from '../../errors/errors';
import type { IdentityStore } from './store';
import { type IdentifierType, normalize, normalizeMobile } from './util';

const FIELDS: readonly IdentifierType[] = ['username', 'email', 'mobile'];

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** 409 when an identifier of a body (or of each item of a bulk body) names another account. */
export async function checkIdentifiersFree(store: IdentityStore, body: unknown, selfId: number | null): Promise<void> {
  const seen = new Set<string>();
  for (const item of Array.isArray(body) ? body : [body]) {
    if (!isObj(item)) continue;
    const taken: string[] = [];
    for (const field of FIELDS) {
      const value = item[field];
      if (typeof value !== 'string' || value.trim() === '') continue;
      // two items of one bulk body naming one account in two spellings clash like an existing account
      const key = `${field}:${field === 'mobile' ? normalizeMobile(value) : normalize(value)}`;
      const holder = await store.userBy(field, value);
      if ((holder && holder.id !== selfId) || seen.has(key)) taken.push(field);
      seen.add(key);
    }
    if (taken.length) throw new ConflictError(`${taken.join(', ')} already taken`, { fields: Object.fromEntries(taken.map((f) => [f, ['is already taken']])) });
  }
}

/**
 * Recomputes the keys of the given accounts, and of every account the record API created (keys still
 * empty). A key another account holds (a race, or a multipart body not checked before) is left empty:
 * lookups then fall back to the column itself, oldest account first.
 */
export async function syncIdentityKeys(store: IdentityStore, ids: readonly number[]): Promise<void> {
  const rows = await store.db(store.users).whereIn('id', [...ids]).orWhereNull('username_key').orWhereNull('email_key').select('id', 'username', 'email', 'mobile');
  for (const r of rows as { id: number; username: string | null; email: string | null; mobile: string | null }[]) {
    const keys: Record<string, string | null> = {
      username_key: r.username ? normalize(r.username) : null,
      email_key: r.email ? normalize(r.email) : null,
      mobile_key: r.mobile ? normalizeMobile(r.mobile) : null,
    };
    try {
      // the usual case: all three keys are free, one UPDATE
      await store.db(store.users).where('id', r.id).update(keys);
    } catch {
      // one of them is held by another account: write each alone, leaving the held one empty
      for (const [column, value] of Object.entries(keys)) {
        try {
          await store.db(store.users).where('id', r.id).update({ [column]: value });
        } catch {
          await store.db(store.users).where('id', r.id).update({ [column]: null });
        }
      }
    }
  }
}
