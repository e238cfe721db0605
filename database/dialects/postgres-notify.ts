/**
 * PostgreSQL LISTEN/NOTIFY for the event signal (core/events/signal.ts): a NOTIFY is sent after a write
 * that appended events has committed, to every node listening on the same database. It is not sent
 * inside the write's transaction: PostgreSQL serializes the commits of all transactions that notified
 * (one global lock), which capped concurrent writes. One dedicated connection per node listens; it
 * reconnects after a loss.
 */
import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import { Client } from 'pg';
import type { Logger } from 'pino';
import type { DatabaseTarget } from '../../config/schema';

/** The channel of a deployment in the connection's default schema (no DATABASE_SCHEMA, or `public`). */
export const EVENTS_CHANNEL = 'ris_events';

/**
 * The channel of the deployment whose tables are in `schema`: a NOTIFY reaches every listener of the
 * database, so deployments sharing one database in different schemas (staging beside production, one
 * per tenant, the tests' schemas) each have their own, and one's writes never wake the other's nodes
 * (each wake is a claim and an outbox read there). A hash keeps any schema name a plain identifier
 * within PostgreSQL's 63 bytes.
 */
export function eventsChannel(schema: string | null): string {
  if (schema === null || schema === '' || schema === 'public') return EVENTS_CHANNEL;
  return `${EVENTS_CHANNEL}_${createHash('sha256').update(schema).digest('hex').slice(0, 16)}`;
}

/**
 * Tells every node listening on `channel` that events were committed (a statement of its own, outside
 * any transaction); `origin` (the payload) lets the sending node, which listens too, pass over its own.
 */
export async function notifyCommitted(db: Knex, channel: string, origin: string): Promise<void> {
  await db.raw('SELECT pg_notify(?, ?)', [channel, origin]);
}

/** The server a node listens on and the channel of its deployment. */
export interface ListenTarget {
  readonly connectionString: string;
  readonly channel: string;
}

/** Where to LISTEN, when the service runs on PostgreSQL (null: SQLite or MariaDB). */
export function listenTarget(database: DatabaseTarget): ListenTarget | null {
  return database.client === 'pg' ? { connectionString: database.connectionString, channel: eventsChannel(database.schema) } : null;
}

export interface PgListener {
  close(): Promise<void>;
}

/** Listens on the events channel: `onNotify` gets each notification's payload, and null on (re)connecting (anything may have been committed meanwhile). */
export function listenPostgres(target: ListenTarget, onNotify: (payload: string | null) => void, log: Logger): PgListener {
  const { connectionString, channel } = target;
  let client: Client | null = null;
  let closed = false;
  let retry: NodeJS.Timeout | null = null;
  const connect = (): void => {
    if (closed) return;
    const c = new Client({ connectionString, keepAlive: true, connectionTimeoutMillis: 5000 });
    client = c;
    const lost = (err: unknown): void => {
      if (client !== c) return;
      client = null;
      c.end().catch(() => undefined);
      if (closed) return;
      log.warn({ err }, 'events: PostgreSQL LISTEN connection lost; polling until it is back');
      retry = setTimeout(connect, 1000);
      retry.unref();
    };
    c.on('error', lost);
    c.on('end', () => lost(new Error('connection ended')));
    c.on('notification', (n) => onNotify(n.payload ?? null));
    c.connect()
      .then(() => c.query(`LISTEN ${channel}`))
      .then(() => onNotify(null)) // events committed while not listening
      .catch(lost);
  };
  connect();
  return {
    async close() {
      closed = true;
      if (retry) clearTimeout(retry);
      const c = client;
      client = null;
      await c?.end().catch(() => undefined);
    },
  };
}
