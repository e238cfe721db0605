/**
 * The name under which the processes of one deployment share Redis (response cache, rate-limit counters,
 * the revocation bus, the event signal): `ris:<namespace>:…`. REDIS_NAMESPACE when set; else derived
 * from where the data lives (the database server, its database and schema; SQLite's file), never from
 * how a node reaches it: it used to be a hash of the whole connection string, so nodes of one deployment
 * whose DATABASE_URL differed only in credentials (a password rotated node by node), connection
 * parameters (`application_name`, `sslmode`) or the spelling of a default port each had a namespace of
 * their own, and one node's writes never purged another's cached answers.
 */
import { createHash } from 'node:crypto';
import { databaseIdentity } from '../database/dialects/database-identity';
import type { DatabaseTarget } from './schema';

/** What REDIS_NAMESPACE may be: it becomes part of every key and channel name. */
const EXPLICIT = /^[A-Za-z0-9_.-]{1,64}$/;

/** REDIS_NAMESPACE: null (unset: derived) or the name itself. */
export function parseRedisNamespace(raw: string): string | null {
  const v = raw.trim();
  if (v === '') return null;
  if (!EXPLICIT.test(v)) throw new Error(`"${v.slice(0, 100)}" is not 1 to 64 letters, digits, '_', '.' or '-'`);
  return v;
}

export function redisNamespace(explicit: string | null, target: DatabaseTarget): string {
  return explicit ?? createHash('sha256').update(databaseIdentity(target)).digest('hex').slice(0, 12);
}
