/**
 * The statements a record request issues itself, for the query-count tests: not the caller's sign-in
 * lookups (sessions, users, roles, permissions, access rules: they recur whenever the authenticator's
 * 500 ms cache runs out, which a loaded machine makes happen mid-test) nor the background work of the
 * event pipeline and webhook delivery (the outbox, webhook claims), which shares the connection pool.
 */
import type { Knex } from 'knex';

const NOT_THE_REQUESTS = /["`](?:api_tokens|one_time_codes|permissions|refresh_tokens|roles|sessions|users|access_rules|webhooks|webhook_deliveries|event_outbox)(?:_[a-z_]+)?["`]/;

/** The service's connections: the writer and, on SQLite with SQLITE_READERS, the readers. */
export interface Connections {
  readonly db: Knex;
  readonly readDb?: Knex;
}

/** Calls `listen` with every statement sent on any of the service's connections (knex's `query` event: sql, bindings); returns how to stop. */
export function onEveryStatement<Q extends { sql: string }>(deps: Connections, listen: (q: Q) => void): () => void {
  const all = deps.readDb ? [deps.db, deps.readDb] : [deps.db];
  for (const db of all) db.on('query', listen);
  return () => {
    for (const db of all) db.removeListener('query', listen);
  };
}

/** Appends each statement of the request's own work on the service's connections to `into`. */
export function logRequestQueries(deps: Connections, into: string[]): void {
  onEveryStatement(deps, (e) => {
    if (!NOT_THE_REQUESTS.test(e.sql)) into.push(e.sql);
  });
}
