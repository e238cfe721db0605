/**
 * The only core surface a plugin imports (besides core/errors/* and core/registry/types.ts).
 * The core calls these hooks; it never names a plugin (DESIGN: "core never imports the plugin").
 */
import type Router from '@koa/router';
import type { Command } from 'commander';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { Config } from '../config/schema';
import type { Dialect } from '../database/dialects/dialect';
import type { Registry } from './registry/types';
import type { RequestState, RouteBodyLimit } from './http/state';
/** A route's own body limit for `RequestState.readBody` (core/http/body.ts): bodies are read when a route asks. */
export type { BodyLimit, RequestState, RouteBodyLimit } from './http/state';
import type { EventPipeline } from './events/pipeline';
import type { EventActor } from './events/types';

/** The event pipeline (issue 15; core/events/README.md): append identity events, subscribe to committed ones. */
export type { EventPipeline } from './events/pipeline';
export { eventActor } from './events/pipeline';
export type { NewEvent, StoredEvent, EventActor, EventModel } from './events/types';
export { EVENT_TYPES, eventCarriesModel } from './events/types';
export { pruneInBatches, type PruneStep } from './events/prune';
export { announce, deleteAnnounced, type SystemChange } from './events/announce';
export { insertedId } from './records/inserted-id';
/** Multi-row INSERTs in pieces every database takes (SQLite refuses one of more than 500 rows). */
export { insertRows } from '../database/dialects/insert-rows';

/** Lifecycle hooks (issue 15; core/hooks/README.md). */
export type { LifecycleHooks, BeforeContext, AfterContext } from './hooks/types';
export { HookError } from './hooks/error';
import type { LifecycleHooks } from './hooks/types';

/**
 * Adds the hidden case-fold columns to a row a plugin writes itself (INSERT or UPDATE, keyed by column):
 * the `…i` filter operators read them (core/registry/fold.ts). Call it on every such write.
 */
export { withFolds } from './registry/fold';

export { RECORD_ACTIONS, type RecordAction } from './registry/types';

/** Who is calling: built by the plugin's Authenticator, read by the core. */
export interface Actor {
  readonly id: number;
  readonly username: string;
  readonly email: string;
  readonly fullName: string | null;
  readonly active: boolean;
  readonly roles: readonly string[];
  /** The access token's session id, when the actor came from a token. */
  readonly sessionId: string | null;
  /**
   * Set when the caller presented an API token: no user account then (`id` 0, `roles` empty, writes
   * record no author), and the Authorizer answers from the token's permissions.
   */
  readonly apiToken?: { readonly id: number; readonly name: string } | null;
}

export interface PluginDeps {
  readonly config: Config;
  readonly db: Knex;
  /**
   * Where reads that need not see an open transaction's writes go (SQLite: its read-only connections, which
   * a long write on the one writer does not hold; other databases: absent, `db` serves both).
   */
  readonly readDb?: Knex;
  readonly dialect: Dialect;
  readonly registry: Registry;
  readonly log: Logger;
  /** The event pipeline; absent only where no server runs (some CLI commands, unit tests). */
  readonly events?: EventPipeline;
  /** Announces what a plugin's own hard delete changes through foreign keys (set by the server with `events`). */
  readonly foreignKeyEvents?: ForeignKeyEvents;
}

/**
 * A hard delete a plugin makes itself (not through the record service) changes, through the database's
 * foreign keys (relations' `onDelete: cascade | set null`), records that have events; every committed record
 * change emits its event in its transaction (core/events/README.md). The same finder the record service's
 * deletes use (core/records/cascade-events.ts).
 */
export interface ForeignKeyEvents {
  /**
   * Inside the delete's transaction, before the DELETE of `ids` of `model` (lock those rows first where the
   * database has row locks): finds and reads the rows the keys will remove or set null. Call `announce(trx)`
   * after the DELETE, in the same transaction (a `record.delete` per removed row as FindOne answered it, then a
   * `record.update` per row set null, by `actor`), then `events.committed()` after the commit. Null: nothing to announce.
   */
  beforeDelete(trx: Knex.Transaction, model: string, ids: readonly number[], actor: EventActor | null): Promise<{ announce(trx: Knex.Transaction): Promise<void> } | null>;
}

export interface Authenticator {
  /** Bearer header → Actor; null when the request carries no credentials; throws 401 on bad ones. */
  authenticate(authorization: string | undefined, state: RequestState): Promise<Actor | null>;
}

export interface Authorizer {
  /**
   * May `actor` (null: the public role) perform `action` on `model`? `action` is a record action or one
   * the model declares (`ContentType.actions`, e.g. `assignRoles`).
   */
  can(actor: Actor | null, model: string, action: string): Promise<boolean>;
  /**
   * Row-level rules and field lists (issue 16), resolved once per request. Null (or no such method):
   * the caller's permissions are unrestricted everywhere, the fast path. Must be a pure function of the
   * caller's roles (or API token), its id and the time: a response cache keys on what `varies` names.
   */
  access?(actor: Actor | null, now: Date): Promise<AccessView | null>;
  /**
   * The response cache (CACHE=memory|redis) keeps an answer per scope: callers with the same `key` may see
   * the same answers, and a write to one of `models` (roles, permissions, the caller's credential) may
   * change what the caller sees. Without this method the cache stays out of the way (every read computed).
   */
  cacheScope?(actor: Actor | null): { readonly key: string; readonly models: readonly string[] };
}

/** What one caller may reach of each model, per action (issue 16). */
export interface AccessView {
  /** Null: `<model>.<action>` is unrestricted (or not held at all: `can` decides that). */
  scope(model: string, action: string): AccessScope | null;
}

export interface AccessScope {
  /**
   * The rows the caller may reach, as a Find filter in JSON (`{"createdById":{"$eq":3}}`, the syntax of
   * `filters`, variables already substituted), or null: every row.
   */
  readonly rows: Readonly<Record<string, unknown>> | null;
  /** The attributes the permission covers (readable for find/findOne, writable for create/update), or null: all. */
  readonly fields: readonly string[] | null;
  /** What `rows` depends on besides the roles: the actor's id (`$actor.id`), the time (`$now`). */
  readonly varies: readonly ('actor' | 'now')[];
}

/**
 * Checks a rule (a Find filter in JSON) against `model` as Find checks `filters`: an unknown field or
 * operator throws the BadRequestError Find gives (its message names `at`, e.g. `where[foo]`), so a rule
 * is refused when it is saved rather than failing when used. Variables must be substituted first.
 */
export { checkRule } from './records/access';

/**
 * A plugin's part of the OpenAPI 3.1 document behind /docs (core/openapi/merge.ts merges it).
 * Paths and component names must not clash with the core's or another plugin's; an operation
 * without `tags` is filed under the plugin's name. Give every operation an `operationId`, a
 * `summary` and `responses`, and `security: []` on public ones (the document's default is bearer).
 * Reuse the core's components through OPENAPI_REFS.
 */
export interface OpenApiFragment {
  /** Path items keyed by path template, e.g. `/api/iam/authenticate`. */
  readonly paths: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
  readonly components?: {
    readonly schemas?: Readonly<Record<string, unknown>>;
    readonly responses?: Readonly<Record<string, unknown>>;
    readonly parameters?: Readonly<Record<string, unknown>>;
    readonly requestBodies?: Readonly<Record<string, unknown>>;
    readonly headers?: Readonly<Record<string, unknown>>;
    readonly examples?: Readonly<Record<string, unknown>>;
  };
  readonly tags?: readonly { readonly name: string; readonly description?: string }[];
}

/** Components of the core's OpenAPI document a fragment may `$ref` (spec 7 errors, the bearer scheme). */
export const OPENAPI_REFS = {
  /** `{ error: { status, name, message, details } }` */
  errorSchema: '#/components/schemas/Error',
  responses: {
    badRequest: '#/components/responses/BadRequest',
    unauthorized: '#/components/responses/Unauthorized',
    forbidden: '#/components/responses/Forbidden',
    notFound: '#/components/responses/NotFound',
    conflict: '#/components/responses/Conflict',
    payloadTooLarge: '#/components/responses/PayloadTooLarge',
    unsupportedMediaType: '#/components/responses/UnsupportedMediaType',
    validationFailed: '#/components/responses/ValidationFailed',
    tooManyRequests: '#/components/responses/TooManyRequests',
    /** Any other error status (the `default` response). */
    error: '#/components/responses/Error',
  },
  /** Name of the security scheme: `security: [{ bearerAuth: [] }]`. */
  bearerAuth: 'bearerAuth',
} as const;

export interface Plugin {
  readonly name: string;
  /** Extra YAML models for the registry. */
  readonly contentTypesDir?: string;
  /**
   * First segments of the `/api/<segment>/…` paths `routes` adds besides its own models' (`iam` for
   * /api/iam/authenticate): no model may be named so (core/api-segments.ts; the registry refuses it at boot).
   */
  readonly apiSegments?: readonly string[];
  routes?(router: Router<RequestState>, deps: PluginDeps): void;
  authenticator?(deps: PluginDeps): Authenticator;
  authorizer?(deps: PluginDeps): Authorizer;
  /** Runs after migrations, at every start (idempotent): seed roles, etc. */
  bootstrap?(deps: PluginDeps): Promise<void>;
  cli?(program: Command, deps: () => Promise<PluginDeps>): void;
  /**
   * Joins the event pipeline (core/events/README.md): called once per process, the server and the admin
   * CLI alike, as the dependencies are built (core/boot.ts), before migrations run and before any write.
   * Register here what every process that appends an event must run with it (`events.onAppend` steps
   * such as the webhook fan-out, `events.onPrune` steps), so that an event appended anywhere has the
   * same consequences. Nothing here reads or writes the database, sends, or starts a timer: a server's
   * own work (sending, listening) starts in `routes`.
   */
  events?(deps: PluginDeps & { readonly events: EventPipeline }): void;
  /** Lifecycle hooks around record writes (before* in the write's transaction, after* after commit). */
  hooks?(deps: PluginDeps): LifecycleHooks | readonly LifecycleHooks[];
  /**
   * Routes of `routes` that read at most `limit` (below BODY_MAX_BYTES) with `readBody(limit)`: a body whose
   * Content-Length is past BODY_MAX_BYTES, refused before any route runs, names that limit too.
   */
  bodyLimits?(deps: PluginDeps): readonly RouteBodyLimit[];
  /** The plugin's routes in /docs; called once at boot (server and `openapi:export`). */
  openapi?(deps: PluginDeps): OpenApiFragment;
  close?(): Promise<void>;
}
