/**
 * The statements a record request issues itself, for the query-count tests: not the caller's sign-in
 * lookups (sessions, users, roles, permissions, access rules: they recur whenever the authenticator's
 * 500 ms cache runs out, which a loaded machine makes happen mid-test) nor the background work of the
 * event pipeline and webhook delivery (the outbox, webhook claims), which shares the connection pool.
 */
import type { Knex } from 'knex';

const NOT_THE_REQUESTS = /["`](?:api_tokens|one_time_codes|permissions|refresh_tokens|roles|sessions|users|access_rules|webhooks|webhook_deliveries|event_outbox)(?:_[a-z_]+)?["`]/;

/** Appends each statement of the request's own work on `db` to `into`. */
export function logRequestQueries(db: Knex, into: string[]): void {
  db.on('query', (e: { sql: string }) => {
    if (!NOT_THE_REQUESTS.test(e.sql)) into.push(e.sql);
  });
}
